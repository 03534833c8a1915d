/**
 * Rate, concurrency and per-turn limits on tool calls: {@link dev.toolbus.limits.Limits} (the rules,
 * from {@code toolbus.yaml}'s {@code limits} section or built in code), {@link dev.toolbus.limits.LimitRule}
 * (one rule), and {@link dev.toolbus.limits.RateLimitStore} (where token buckets live: in memory by default,
 * or shared by every instance, e.g. on Redis).
 */
package dev.toolbus.limits;
