package dev.toolbus.executor;

/**
 * What every call of one tool definition shares, made once per definition instance: its compiled
 * argument checks and its meters.
 */
final class ToolPlan {

    final ArgumentRules rules;
    final ExecutorMetrics.ToolMeters meters;

    ToolPlan(ArgumentRules rules, ExecutorMetrics.ToolMeters meters) {
        this.rules = rules;
        this.meters = meters;
    }
}
