package dev.toolbus.assembly;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.Hosts;
import dev.toolbus.config.Config;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.gateway.Gateway;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.function.Function;

/**
 * The gateway an assembly starts: where, with which tokens (from where), and every other
 * {@code gateway} key of the config.
 *
 * @param host the bind address
 * @param port the port (0: a free one)
 * @param tokens the accepted tokens and their scopes
 * @param tokenSource where the tokens came from, for the log
 * @param section the config's {@code gateway} section (caps, timeouts, sizes)
 */
record GatewayPlan(String host, int port, AccessTokens tokens, String tokenSource, Config.Gateway section) {

    /**
     * The gateway to start, or {@code null} for none.
     *
     * @param g the config's {@code gateway} section
     * @param fromConfig whether the section may switch the gateway on ({@code enabled}); false
     *     without a config file, and on the stdio bus
     * @param host the override's bind address, or {@code null}
     * @param port the override's port (used with {@code host})
     * @param tokenOverride a full-scope token replacing {@code gateway.token}, or {@code null}
     * @param env where {@code TOOLBUS_TOKEN} is read when no token is configured
     * @throws IllegalArgumentException for a bad token, or a non-loopback address without one
     */
    static GatewayPlan of(Config.Gateway g, boolean fromConfig, String host, int port, String tokenOverride,
                          Function<String, String> env) {
        boolean on = host != null || fromConfig && g.enabled();
        if (!on) {
            return null;
        }
        String h = host != null ? host : g.host();
        int p = host != null ? port : g.port();
        String flag = tokenOverride == null || tokenOverride.isBlank() ? null : tokenOverride.strip();
        AccessTokens tokens;
        try {
            tokens = g.accessTokens(flag);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bad gateway token: " + e.getMessage(), e);
        }
        String source;
        if (tokens.required()) {
            source = flag != null && !g.tokens().isEmpty() ? "--token and gateway.tokens" : flag != null ? "--token"
                    : "the config";
        } else {
            // never serve without a token while the environment names one
            tokens = AccessTokens.single(env.apply("TOOLBUS_TOKEN"));
            source = "TOOLBUS_TOKEN";
        }
        if (!tokens.required() && !Hosts.isLoopback(h)) {
            throw new IllegalArgumentException("the gateway on " + h + " needs a token: pass --token TOKEN, set "
                    + "gateway.token or gateway.tokens, or TOOLBUS_TOKEN (only loopback addresses may be served without "
                    + "one)");
        }
        return new GatewayPlan(h, p, tokens, source, g);
    }

    /** The gateway with every key of the section; {@code /metrics} shows {@code meters} when it is Prometheus's. */
    Gateway gateway(ToolExecutor executor, MeterRegistry meters) {
        Gateway.Builder b = Gateway.builder().executor(executor).host(host).port(port).tokens(tokens)
                .maxRequestBytes((int) Math.min(Integer.MAX_VALUE, Math.max(1024, section.maxRequestBytes())))
                .maxConnections(section.maxConnections())
                .headerTimeout(Duration.ofMillis(section.headerTimeoutMs()))
                .bodyTimeout(Duration.ofMillis(section.bodyTimeoutMs()));
        if (meters instanceof PrometheusMeterRegistry prometheus) {
            b.meterRegistry(prometheus);
        }
        return b.build();
    }
}
