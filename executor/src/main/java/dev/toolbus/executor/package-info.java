/**
 * API: the {@link dev.toolbus.executor.ToolExecutor} and its builder, the top of the core. An executor
 * runs the tool calls of turns with bounded parallelism, per-call timeouts that cancel, retries, a
 * result cache, approval and limit steps and a {@link dev.toolbus.spi.ToolPolicy policy}; per turn it
 * publishes the results in call order, then the media follow-ups, then {@code turn_completed}.
 *
 * <p>What it is configured with lives below it: {@link dev.toolbus.executor.settings settings},
 * {@link dev.toolbus.executor.approval approval}, {@link dev.toolbus.executor.limits limits},
 * {@link dev.toolbus.executor.state turn state}; the engine itself is
 * {@link dev.toolbus.executor.internal not API}. This package holds only the interface, its builder and
 * a package-private facade over the engine, so the engine never depends on this package.
 */
package dev.toolbus.executor;
