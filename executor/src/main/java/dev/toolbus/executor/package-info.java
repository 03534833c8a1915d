/**
 * The {@link dev.toolbus.executor.ToolExecutor}: runs the tool calls of turns with bounded
 * parallelism, per-call timeouts that cancel, retries, a TTL cache and a {@link
 * dev.toolbus.spi.ToolPolicy policy}; publishes per turn the results in call order, then the
 * media follow-ups, then {@code turn_completed}. Configured by {@link
 * dev.toolbus.executor.settings.ExecutionSettings}.
 */
package dev.toolbus.executor;
