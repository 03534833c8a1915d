/**
 * The bus SPI ({@link dev.toolbus.bus.ToolBus}, {@link dev.toolbus.bus.BusMessage}) that broker
 * adapters implement, and the embedded {@link dev.toolbus.bus.InMemoryBus}.
 */
package dev.toolbus.bus;
