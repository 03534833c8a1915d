package dev.toolbus.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.policy.PermissionLevel;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Issue 21 M5 (a tool flooding {@code send_message} into a non-streaming {@code POST /v1/turns} grew the
 * answer without bound) and the low finding that a scoped token read every tenant's meters on
 * {@code /metrics}. Real gateway, real HTTP client.
 */
class GatewayAnswerBoundsTest {

    static final String FULL = "full-token";
    static final String TEAM = "team-token";

    private final PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicInteger cancelled = new AtomicInteger();
    private ToolExecutor executor;
    private GatewayServer server;

    /** flood(n, kb): sends n chat messages of kb KiB each, one after the other, then answers "sent n". */
    private ToolSpec flood() {
        return new ToolSpec(ToolDefinition.builder("flood").description("Sends n messages")
                .parameter(ToolParameter.of("n", ToolParamType.INTEGER, "messages"))
                .parameter(ToolParameter.of("kb", ToolParamType.INTEGER, "KiB each")).build(),
                (a, c) -> {
                    String text = "m".repeat((int) a.integer("kb", 1) * 1024);
                    return Flux.range(0, (int) a.integer("n", 1))
                            .concatMap(i -> c.send(text).doOnSuccess(x -> sent.incrementAndGet()), 1)
                            .doOnCancel(cancelled::incrementAndGet)
                            .then(Mono.fromSupplier(() -> ToolResult.text("sent " + a.integer("n", 1))));
                });
    }

    private Http start(long perToken, long total) {
        List<ToolSpec> tools = new ArrayList<>(TestGateway.tools());
        tools.add(flood());
        executor = ToolExecutor.builder().tools(tools).meterRegistry(meters)
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
        server = Gateway.builder().executor(executor).meterRegistry(meters)
                .tokens(AccessTokens.builder().token(FULL, TokenScope.FULL)
                        .token(TEAM, TokenScope.builder("team").maxPermission(PermissionLevel.MEMBER).build()).build())
                .maxAnswerBytes(perToken).maxAnswerBytesTotal(total).build().start();
        return new Http(server.baseUrl());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(10));
        }
    }

    private static String flood(String stream, int n, int kb) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"t-" + stream + "\",\"name\":\"flood\","
                + "\"arguments\":{\"n\":" + n + ",\"kb\":" + kb + "}}";
    }

    private double gauge(String name) {
        var g = meters.find(name).gauge();
        return g == null ? -1 : g.value();
    }

    @Test
    void aFloodedNonStreamingAnswerEndsItsTurnWithAClearErrorAtTheTokensBound() {
        Http http = start(256 * 1024, 8L << 20);
        Http.Response r = http.post("/v1/turns", TEAM, flood("team:a", 2_000, 4)); // 8 MB if nothing stopped it
        assertThat(r.status()).as(r.body()).isEqualTo(503);
        JsonNode error = r.json();
        assertThat(error.path("type").asText()).isEqualTo("error");
        assertThat(error.path("code").asText()).isEqualTo("REJECTED");
        assertThat(error.path("stream_id").asText()).isEqualTo("team:a");
        assertThat(error.path("turn_id").asText()).isEqualTo("t-team:a");
        assertThat(error.path("message").asText()).startsWith("the turn was cancelled: its events are more than a"
                + " non-streaming answer may hold (the answers being gathered for token 'team' would pass 262144 bytes"
                + " (gateway.maxAnswerBytes)); send 'Accept: text/event-stream'");
        await().atMost(Duration.ofSeconds(10)).until(() -> cancelled.get() == 1);
        assertThat(sent.get()).as("the tool was stopped near the bound").isBetween(50, 200);
        // the bytes are given back as the exchange ends, which may follow the answer the client read
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(gauge(GatewayMeters.ANSWERS_PENDING)).as("every byte given back").isZero());
        assertThat(meters.find(GatewayMeters.ANSWERS_REFUSED).counter().count()).isEqualTo(1);

        // within the bound, and streamed: both answered in full
        Http.Response small = http.post("/v1/turns", TEAM, flood("team:b", 40, 4));
        assertThat(small.status()).isEqualTo(200);
        assertThat(small.json().size()).isEqualTo(40 + 2); // the messages, the result, turn_completed
        await().atMost(Duration.ofSeconds(10)).until(() -> gauge(GatewayMeters.ANSWERS_PENDING) == 0);
    }

    @Test
    void theTotalBoundHoldsForAllTokensTogether() {
        Http http = start(4L << 20, 256 * 1024);
        Http.Response r = http.post("/v1/turns", FULL, flood("ops:a", 2_000, 4));
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.json().path("message").asText()).contains("the answers being gathered for all tokens would pass"
                + " 262144 bytes (gateway.maxAnswerBytesTotal)");
        await().atMost(Duration.ofSeconds(10)).until(() -> gauge(GatewayMeters.ANSWERS_PENDING) == 0);
    }

    @Test
    void aScopedTokenCannotReadEveryTenantsMeters() {
        Http http = start(Gateway.DEFAULT_MAX_ANSWER_BYTES, Gateway.DEFAULT_MAX_ANSWER_BYTES_TOTAL);
        assertThat(http.post("/v1/turns", FULL, flood("ops:x", 1, 1)).status()).isEqualTo(200);
        Http.Response scoped = http.get("/metrics", TEAM);
        assertThat(scoped.status()).isEqualTo(403);
        assertThat(scoped.json().path("code").asText()).isEqualTo("PERMISSION_DENIED");
        assertThat(scoped.body()).contains("token 'team' is scoped").doesNotContain("toolbus_tool_calls");
        Http.Response full = http.get("/metrics", FULL);
        assertThat(full.status()).isEqualTo(200);
        assertThat(full.body()).contains("toolbus_tool_calls", "tool=\"flood\"", "toolbus_gateway_answers_pending_bytes");
    }
}
