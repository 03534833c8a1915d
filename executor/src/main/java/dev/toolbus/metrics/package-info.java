/**
 * Observability: the Micrometer meter names ({@link dev.toolbus.metrics.ToolMetrics}) and the bounded
 * recent-call log ({@link dev.toolbus.metrics.CallLog}).
 */
package dev.toolbus.metrics;
