package dev.toolbus.executor.approval;

import dev.toolbus.metrics.ToolMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The approval counters ({@link ToolMetrics#APPROVALS}), one per outcome, registered once. */
final class ApprovalMetrics {

    final Counter asked;
    final Counter approved;
    final Counter denied;
    final Counter expired;
    final Counter bySessionGrant;
    final Counter askMode;
    final Counter cancelled;

    ApprovalMetrics(MeterRegistry registry) {
        asked = counter(registry, "asked");
        approved = counter(registry, "approved");
        denied = counter(registry, "denied");
        expired = counter(registry, "expired");
        bySessionGrant = counter(registry, "by_session_grant");
        askMode = counter(registry, "ask_mode");
        cancelled = counter(registry, "cancelled");
    }

    private static Counter counter(MeterRegistry registry, String outcome) {
        return Counter.builder(ToolMetrics.CONTROL_APPROVALS).tag("outcome", outcome)
                .description("Tool calls by approval outcome").register(registry);
    }
}
