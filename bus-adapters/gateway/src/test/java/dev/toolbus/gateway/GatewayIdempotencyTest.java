package dev.toolbus.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.state.TurnLedgerSettings;
import dev.toolbus.executor.state.TurnStateStep;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.http.client.HttpClient;

/**
 * Idempotent turns through the gateway, over HTTP ({@code POST /v1/turns}) and WebSocket: a retried
 * turn is answered with its recorded events marked {@code replayed} without running, and a duplicate
 * sent while the turn runs joins it (its caller gets the run's events, marked replayed). The tools count
 * their runs.
 */
class GatewayIdempotencyTest {

    private static final java.net.http.HttpClient JDK = java.net.http.HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5)).build();

    private final AtomicInteger counted = new AtomicInteger();
    private final AtomicInteger slowRuns = new AtomicInteger();
    private final AtomicInteger joins = new AtomicInteger();
    private final Sinks.Empty<Void> gate = Sinks.empty();
    private ToolExecutor executor;
    private GatewayServer server;

    /** The in-memory ledger, counting the turns that joined a running one. */
    private final class CountingLedger implements TurnLedger {
        private final TurnLedger inner = TurnStateStep.inMemoryLedger(TurnLedgerSettings.DEFAULTS, System::nanoTime);

        @Override
        public Mono<Admission> admit(TurnKey turn) {
            return inner.admit(turn).doOnNext(a -> {
                if (a instanceof Admission.Join) {
                    joins.incrementAndGet();
                }
            });
        }

        @Override
        public Mono<Void> complete(TurnKey turn, List<OutboundEvent> events) {
            return inner.complete(turn, events);
        }

        @Override
        public void release(TurnKey turn) {
            inner.release(turn);
        }
    }

    @BeforeEach
    void start() {
        ToolSpec count = new ToolSpec(ToolDefinition.builder("count").description("Counts its runs")
                .parameter(ToolParameter.of("key", ToolParamType.STRING, "what")).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("run " + counted.incrementAndGet() + " of " + a.string("key"))));
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("Answers when the test lets it").build(),
                (a, c) -> gate.asMono().then(Mono.fromSupplier(() -> ToolResult.text("slow run " + slowRuns.incrementAndGet()))));
        executor = ToolExecutor.builder().tools(List.of(count, slow)).turnState(TurnState.builder().ledger(new CountingLedger()).build())
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
        server = Gateway.builder().executor(executor).token(TestGateway.TOKEN).build().start();
    }

    @AfterEach
    void stop() {
        gate.tryEmitEmpty();
        server.close();
        executor.closeGracefully().block(Duration.ofSeconds(10));
    }

    private static String turn(String stream, String turnId, String tool) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turnId + "\",\"calls\":["
                + "{\"tool_call_id\":\"c1\",\"name\":\"" + tool + "\",\"arguments\":"
                + (tool.equals("count") ? "{\"key\":\"" + turnId + "\"}" : "{}") + "}]}";
    }

    private CompletableFuture<List<JsonNode>> post(String body) {
        HttpRequest r = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/turns"))
                .header("Authorization", "Bearer " + TestGateway.TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return JDK.sendAsync(r, HttpResponse.BodyHandlers.ofString()).thenApply(res -> {
            assertThat(res.statusCode()).as(res.body()).isEqualTo(200);
            List<JsonNode> out = new ArrayList<>();
            parse(res.body()).forEach(out::add);
            return out;
        });
    }

    private static JsonNode parse(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new AssertionError(s, e);
        }
    }

    private static void assertReplayOf(List<JsonNode> replay, List<JsonNode> original) {
        assertThat(replay).hasSameSizeAs(original);
        for (int i = 0; i < replay.size(); i++) {
            assertThat(replay.get(i).path("replayed").asBoolean()).isTrue();
            var copy = replay.get(i).deepCopy();
            ((com.fasterxml.jackson.databind.node.ObjectNode) copy).remove("replayed");
            assertThat(copy).isEqualTo(original.get(i));
        }
    }

    @Test
    void overHttp_aRetriedTurnIsReplayed_andAConcurrentDuplicateJoinsTheRun() {
        List<JsonNode> first = post(turn("h", "t1", "count")).join();
        assertThat(first).extracting(e -> e.path("type").asText()).containsExactly("tool_result", "turn_completed");
        assertThat(first).noneMatch(e -> e.has("replayed"));
        List<JsonNode> retried = post(turn("h", "t1", "count")).join();
        assertReplayOf(retried, first);
        assertThat(counted).hasValue(1);

        CompletableFuture<List<JsonNode>> running = post(turn("h", "t2", "slow"));
        await().atMost(Duration.ofSeconds(10)).until(() -> executor.inflight() == 1);
        CompletableFuture<List<JsonNode>> duplicate = post(turn("h", "t2", "slow"));
        await().atMost(Duration.ofSeconds(10)).until(() -> joins.get() == 1);
        assertThat(duplicate).isNotDone();
        gate.tryEmitEmpty();
        List<JsonNode> one = running.join();
        assertThat(one.get(0).path("content").asText()).isEqualTo("slow run 1");
        assertReplayOf(duplicate.join(), one);
        assertThat(slowRuns).hasValue(1);
    }

    @Test
    void overWebSocket_aRetriedTurnIsReplayed_andAConcurrentDuplicateJoinsTheRun() {
        List<JsonNode> received = new CopyOnWriteArrayList<>();
        Sinks.Many<String> frames = Sinks.many().unicast().onBackpressureBuffer();
        var session = HttpClient.create()
                .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + TestGateway.TOKEN))
                .websocket()
                .uri("ws://127.0.0.1:" + server.port() + "/v1/ws")
                .handle((in, out) -> Flux.merge(out.sendString(frames.asFlux()).then(),
                        in.receive().asString().map(GatewayIdempotencyTest::parse).doOnNext(received::add).then()))
                .subscribe();
        try {
            frames.tryEmitNext(turn("w", "t1", "count"));
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2);
            frames.tryEmitNext(turn("w", "t1", "count"));
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 4);
            assertReplayOf(received.subList(2, 4), received.subList(0, 2));
            assertThat(counted).hasValue(1);

            frames.tryEmitNext(turn("w", "t2", "slow"));
            frames.tryEmitNext(turn("w", "t2", "slow"));
            await().atMost(Duration.ofSeconds(10)).until(() -> joins.get() == 1);
            assertThat(received).hasSize(4);
            gate.tryEmitEmpty();
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 8);
            assertThat(received.subList(4, 6)).noneMatch(e -> e.has("replayed"));
            assertThat(received.get(4).path("content").asText()).isEqualTo("slow run 1");
            assertReplayOf(received.subList(6, 8), received.subList(4, 6));
            assertThat(slowRuns).hasValue(1);
        } finally {
            session.dispose();
        }
    }
}
