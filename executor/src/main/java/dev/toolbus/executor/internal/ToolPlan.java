package dev.toolbus.executor.internal;

/**
 * What every call of one tool definition shares, made once per definition instance: its compiled
 * argument checks, its meters, whether its results may be cached, and its compiled output schema.
 */
final class ToolPlan {

    final ArgumentRules rules;
    final ExecutorMetrics.ToolMeters meters;
    /** Declared cacheable or listed in {@code execution.cacheTools}; never a side-effecting or dangerous tool. */
    final boolean cacheable;
    /** The output schema's check, or {@code null} when the tool declares none. */
    final OutputCheck output;

    ToolPlan(ArgumentRules rules, ExecutorMetrics.ToolMeters meters, boolean cacheable, OutputCheck output) {
        this.rules = rules;
        this.meters = meters;
        this.cacheable = cacheable;
        this.output = output;
    }
}
