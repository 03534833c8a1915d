package dev.toolbus.executor.internal;

/**
 * What every call of one tool definition shares, made once per definition instance: its compiled
 * argument checks, its meters, and whether its results may be cached.
 */
final class ToolPlan {

    final ArgumentRules rules;
    final ExecutorMetrics.ToolMeters meters;
    /** Declared cacheable or listed in {@code execution.cacheTools}; never a side-effecting or dangerous tool. */
    final boolean cacheable;

    ToolPlan(ArgumentRules rules, ExecutorMetrics.ToolMeters meters, boolean cacheable) {
        this.rules = rules;
        this.meters = meters;
        this.cacheable = cacheable;
    }
}
