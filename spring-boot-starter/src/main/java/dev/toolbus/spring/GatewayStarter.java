package dev.toolbus.spring;

import dev.toolbus.config.Config;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.gateway.Gateway;
import dev.toolbus.gateway.GatewayServer;
import io.micrometer.core.instrument.MeterRegistry;

/** Starts the gateway of {@code toolbus.gateway.*}; loaded only when toolbus-gateway is on the classpath. */
final class GatewayStarter {

    record Started(GatewayServer server, String url) {
    }

    private GatewayStarter() {
    }

    static Started start(ToolExecutor executor, Config.Gateway g, MeterRegistry meters) {
        Gateway.Builder b = Gateway.builder().executor(executor).host(g.host()).port(g.port())
                .maxRequestBytes((int) Math.min(Integer.MAX_VALUE, Math.max(1024, g.maxRequestBytes())));
        if (!g.token().isBlank()) {
            b.token(g.token());
        }
        if (meters instanceof io.micrometer.prometheusmetrics.PrometheusMeterRegistry prometheus) {
            b.meterRegistry(prometheus); // the gateway's /metrics then shows the application's meters
        }
        GatewayServer server = b.build().start();
        return new Started(server, server.baseUrl());
    }
}
