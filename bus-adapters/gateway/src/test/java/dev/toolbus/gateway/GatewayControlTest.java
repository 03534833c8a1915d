package dev.toolbus.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.executor.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Conversation control through the gateway: control events in (WebSocket frames, {@code POST
 * /v1/control}), live events out (WebSocket frames, the SSE stream of {@code POST /v1/turns}) as they
 * happen, and the token's stream scope on control events.
 */
class GatewayControlTest {

    static final String OPS = "ops";
    static final String TEAM_A = "team-a";
    static ToolExecutor executor;
    static GatewayServer server;
    static final HttpClient JDK = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** steps: three progress events and a message, then the result. ask: asks for a city. */
    static List<ToolSpec> tools() {
        List<ToolSpec> tools = new ArrayList<>(TestGateway.tools());
        tools.add(new ToolSpec(ToolDefinition.builder("steps").description("Three steps").build(),
                (a, c) -> Flux.range(1, 3)
                        .concatMap(i -> c.progress(i, 3.0, "step " + i).then(Mono.delay(Duration.ofMillis(20))))
                        .then(Mono.defer(() -> c.send("halfway there")))
                        .then(Mono.just(ToolResult.text("done")))));
        tools.add(new ToolSpec(ToolDefinition.builder("ask_city").description("Asks for a city").build(),
                (a, c) -> c.ask("Which city?", Json.mapper().createObjectNode().put("type", "object"))
                        .map(ans -> ToolResult.text(ans.outcome() + " " + ans.content()))));
        return tools;
    }

    @BeforeAll
    static void start() {
        executor = ToolExecutor.builder().tools(tools())
                .settings(ExecutionSettings.builder().cacheResults(false).progressIntervalMs(0).build()).build();
        server = Gateway.builder().executor(executor).tokens(AccessTokens.builder()
                .token(OPS, TokenScope.FULL)
                .token(TEAM_A, TokenScope.builder("team-a").streams(List.of("team-a:*")).build())
                .build()).build().start();
    }

    @AfterAll
    static void stop() {
        server.close();
        executor.close();
    }

    static JsonNode json(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new AssertionError(s, e);
        }
    }

    static String sleepTurn(String stream, String turn) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                + "\",\"tool_call_id\":\"" + turn + "-c\",\"name\":\"sleep\",\"arguments\":{\"ms\":30000}}";
    }

    static HttpResponse<String> control(String token, String body) throws Exception {
        return JDK.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/control"))
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** POST /v1/turns with SSE; the data lines are collected as they arrive. */
    static List<JsonNode> sse(String token, String body, CompletableFuture<Void> ended) {
        List<JsonNode> events = new CopyOnWriteArrayList<>();
        HttpRequest r = HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/turns"))
                .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        JDK.sendAsync(r, HttpResponse.BodyHandlers.ofLines()).thenAccept(res -> {
            try (Stream<String> lines = res.body()) {
                lines.filter(l -> l.startsWith("data: ")).forEach(l -> events.add(json(l.substring(6))));
            }
            ended.complete(null);
        }).exceptionally(e -> {
            ended.completeExceptionally(e);
            return null;
        });
        return events;
    }

    static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.path("type").asText()).toList();
    }

    @Test
    void ws_aCancelDuringA30sSleepEndsItCancelledWithinASecond() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(server.port(), OPS, 0)) {
            ws.sendText(sleepTurn("ws-cancel", "t1"));
            await().atMost(Duration.ofSeconds(10)).until(() -> activeTurns() >= 1);
            long t0 = System.nanoTime();
            ws.sendText("{\"type\":\"cancel\",\"stream_id\":\"ws-cancel\",\"turn_id\":\"t1\",\"reason\":\"user said stop\"}");
            JsonNode result = json(ws.readFrame().text());
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertThat(result.path("type").asText()).isEqualTo("tool_result");
            assertThat(result.path("error").path("code").asText()).isEqualTo("CANCELLED");
            assertThat(took).isLessThan(Duration.ofSeconds(1));
            assertThat(json(ws.readFrame().text()).path("type").asText()).isEqualTo("turn_completed");
            // a cancel with nothing left to cancel is a no-op: no event
            ws.sendText("{\"type\":\"cancel\",\"stream_id\":\"ws-cancel\",\"turn_id\":\"t1\"}");
            ws.sendText("{\"type\":\"tool_call\",\"stream_id\":\"ws-cancel\",\"name\":\"echo\",\"arguments\":{\"text\":\"next\"}}");
            assertThat(json(ws.readFrame().text()).path("content").asText()).isEqualTo("next");
        }
    }

    static double activeTurns() {
        return ((NettyGatewayServer) server).config.meterRegistry.get(GatewayMeters.TURNS_ACTIVE).gauge().value();
    }

    @Test
    void http_aCancelPostedToControlEndsTheSseTurnCancelledWithinASecond() throws Exception {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        List<JsonNode> events = sse(OPS, sleepTurn("http-cancel", "t2"), ended);
        await().atMost(Duration.ofSeconds(10)).until(() -> activeTurns() >= 1);
        long t0 = System.nanoTime();
        HttpResponse<String> r = control(OPS, "{\"type\":\"cancel\",\"stream_id\":\"http-cancel\",\"turn_id\":\"t2\","
                + "\"tool_call_id\":\"t2-c\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        assertThat(json(r.body()).path("outcome").asText()).isEqualTo("applied");
        await().atMost(Duration.ofSeconds(1)).until(() -> !events.isEmpty());
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(1));
        ended.get();
        assertThat(types(events)).containsExactly("tool_result", "turn_completed");
        assertThat(events.get(0).path("error").path("code").asText()).isEqualTo("CANCELLED");

        HttpResponse<String> again = control(OPS, "{\"type\":\"cancel\",\"stream_id\":\"http-cancel\"}");
        assertThat(again.statusCode()).isEqualTo(202);
        assertThat(json(again.body()).path("outcome").asText()).isEqualTo("nothing_to_do");
    }

    @Test
    void sse_progressAndMessagesArriveInOrderBeforeTheResult_andTheJsonAnswerHasThemToo() throws Exception {
        String turn = "{\"type\":\"tool_call\",\"stream_id\":\"steps\",\"turn_id\":\"t3\",\"tool_call_id\":\"c3\",\"name\":\"steps\"}";
        CompletableFuture<Void> ended = new CompletableFuture<>();
        List<JsonNode> events = sse(OPS, turn, ended);
        ended.get();
        assertThat(types(events)).containsExactly("tool_progress", "tool_progress", "tool_progress", "send_message",
                "tool_result", "turn_completed");
        assertThat(events.subList(0, 3)).extracting(e -> e.path("progress").asInt()).containsExactly(1, 2, 3);
        assertThat(events.get(0).path("total").asInt()).isEqualTo(3);
        assertThat(events.get(0).path("message").asText()).isEqualTo("step 1");
        assertThat(events.get(3).path("message_id").asText()).isEqualTo("c3:msg:1");
        assertThat(events.get(3).path("content").get(0).path("text").asText()).isEqualTo("halfway there");

        Http.Response array = new Http(server.baseUrl()).post("/v1/turns", OPS, turn.replace("t3", "t4"));
        List<JsonNode> all = new ArrayList<>();
        array.json().forEach(all::add);
        assertThat(types(all)).containsExactly("tool_progress", "tool_progress", "tool_progress", "send_message",
                "tool_result", "turn_completed");
    }

    @Test
    void ws_anInputRequestIsAnsweredByAnInputResponse() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(server.port(), OPS, 0)) {
            ws.sendText("{\"type\":\"tool_call\",\"stream_id\":\"ask\",\"turn_id\":\"t5\",\"name\":\"ask_city\"}");
            JsonNode question = json(ws.readFrame().text());
            assertThat(question.path("type").asText()).isEqualTo("input_request");
            assertThat(question.path("message").asText()).isEqualTo("Which city?");
            String id = question.path("input_id").asText();
            assertThat(id).startsWith("in-" + executor.instanceId() + "-");
            ws.sendText("{\"type\":\"input_response\",\"stream_id\":\"ask\",\"input_id\":\"" + id
                    + "\",\"action\":\"accept\",\"content\":{\"city\":\"Paris\"}}");
            JsonNode result = json(ws.readFrame().text());
            assertThat(result.path("content").asText()).contains("ACCEPT").contains("Paris");
            // answering again: nobody waits for it any more
            ws.sendText("{\"type\":\"input_response\",\"stream_id\":\"ask\",\"input_id\":\"" + id
                    + "\",\"action\":\"accept\",\"content\":{}}");
            JsonNode next = json(ws.readFrame().text());
            if (next.path("type").asText().equals("turn_completed")) {
                next = json(ws.readFrame().text());
            }
            assertThat(next.path("code").asText()).isEqualTo("UNKNOWN_REQUEST");
        }
    }

    @Test
    void http_anInputRequestInTheSseStreamIsAnsweredThroughControl() throws Exception {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        List<JsonNode> events = sse(OPS, "{\"type\":\"tool_call\",\"stream_id\":\"ask-http\",\"name\":\"ask_city\"}", ended);
        await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
        String id = events.get(0).path("input_id").asText();
        HttpResponse<String> r = control(OPS, "{\"type\":\"input_response\",\"stream_id\":\"ask-http\",\"input_id\":\""
                + id + "\",\"action\":\"decline\"}");
        assertThat(r.statusCode()).isEqualTo(202);
        ended.get();
        assertThat(types(events)).containsExactly("input_request", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).startsWith("DECLINE");

        HttpResponse<String> unknown = control(OPS, "{\"type\":\"input_response\",\"stream_id\":\"ask-http\",\"input_id\":\""
                + id + "\",\"action\":\"accept\"}");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(json(unknown.body()).path("code").asText()).isEqualTo("UNKNOWN_REQUEST");
    }

    @Test
    void aControlEventForAStreamTheTokenMayNotUseIsRefused() throws Exception {
        HttpResponse<String> r = control(TEAM_A, "{\"type\":\"cancel\",\"stream_id\":\"team-b:1\"}");
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(json(r.body()).path("code").asText()).isEqualTo("PERMISSION_DENIED");
        assertThat(control(TEAM_A, "{\"type\":\"cancel\",\"stream_id\":\"team-a:1\"}").statusCode()).isEqualTo(202);
        try (RawWebSocket ws = new RawWebSocket(server.port(), TEAM_A, 0)) {
            ws.sendText("{\"type\":\"cancel\",\"stream_id\":\"team-b:1\",\"turn_id\":\"x\"}");
            JsonNode err = json(ws.readFrame().text());
            assertThat(err.path("code").asText()).isEqualTo("PERMISSION_DENIED");
            assertThat(err.path("message").asText()).contains("may not use stream 'team-b:1'");
        }
    }

    @Test
    void controlTakesOnlyControlEvents() throws Exception {
        HttpResponse<String> r = control(OPS, "{\"type\":\"tool_call\",\"stream_id\":\"x\",\"name\":\"echo\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("/v1/control takes cancel");
        assertThat(control(OPS, "{\"type\":\"cancel\"}").statusCode()).isEqualTo(400);
        HttpResponse<String> get = JDK.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/control"))
                .header("Authorization", "Bearer " + OPS).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(get.statusCode()).isEqualTo(405);
    }
}
