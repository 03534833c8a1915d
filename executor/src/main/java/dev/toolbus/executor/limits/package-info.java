/**
 * The limit step: rate, concurrency and per-turn caps on calls. API: {@link
 * dev.toolbus.executor.limits.Limits} and {@link dev.toolbus.executor.limits.LimitRule} (what {@code
 * ToolExecutor.Builder.limits} takes). Not API: {@link dev.toolbus.executor.limits.LimitStep}, the public
 * entry the engine admits calls through, and the package-private machinery behind it (token buckets,
 * concurrency caps, meters).
 */
package dev.toolbus.executor.limits;
