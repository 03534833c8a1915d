/**
 * Not API: the engine, package-private together as reactor-core keeps its operators (bus loop, stream
 * lanes, turn and call runs, slots, handler runs, live events, control routing, the result cache,
 * argument parsing, result cutting, tracing). {@link dev.toolbus.executor.internal.Engine} is its one
 * public entry, built by {@code ToolExecutor.builder()}; it may change without notice.
 */
package dev.toolbus.executor.internal;
