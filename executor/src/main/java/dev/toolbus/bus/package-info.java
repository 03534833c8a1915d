/**
 * The bus SPI ({@link dev.toolbus.spi.ToolBus}, {@link dev.toolbus.spi.BusMessage}) that broker
 * adapters implement, and the embedded {@link dev.toolbus.bus.InMemoryBus}.
 */
package dev.toolbus.bus;
