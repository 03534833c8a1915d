/**
 * API: the embedded {@link dev.toolbus.bus.InMemoryBus}, an implementation of the bus SPI
 * ({@link dev.toolbus.spi.ToolBus}) for tests and embedding; the broker adapters live in their own
 * modules.
 */
package dev.toolbus.bus;
