/**
 * API: observability values. The Micrometer meter names ({@link dev.toolbus.metrics.ToolMetrics}), the
 * bounded recent-call log ({@link dev.toolbus.metrics.CallLog} of {@link dev.toolbus.metrics.CallRecord}s)
 * and an executor's health reading ({@link dev.toolbus.metrics.ExecutorHealth}).
 */
package dev.toolbus.metrics;
