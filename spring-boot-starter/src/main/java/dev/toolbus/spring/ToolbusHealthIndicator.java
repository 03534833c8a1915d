package dev.toolbus.spring;

import dev.toolbus.executor.ToolExecutor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * {@code toolbus} in {@code /actuator/health}: UP while the executor takes turns (with the calls in
 * flight, the tools registered, and the gateway's address and bus when they run), DOWN once it
 * stopped.
 */
public final class ToolbusHealthIndicator implements HealthIndicator {

    private final ToolExecutor executor;
    private final ToolbusLifecycle lifecycle;

    ToolbusHealthIndicator(ToolExecutor executor, ToolbusLifecycle lifecycle) {
        this.executor = executor;
        this.lifecycle = lifecycle;
    }

    @Override
    public Health health() {
        Health.Builder b = lifecycle.stopped() ? Health.down() : Health.up();
        b.withDetail("inflight", executor.inflight())
                .withDetail("tools", executor.registry().entries().size())
                .withDetail("maxParallel", executor.settings().maxParallel());
        if (lifecycle.gatewayUrl() != null) {
            b.withDetail("gateway", lifecycle.gatewayUrl());
        }
        if (lifecycle.busType() != null) {
            b.withDetail("bus", lifecycle.busType());
        }
        return b.build();
    }
}
