package dev.toolbus.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
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
    /** The executor's live approval settings: off except in the approval tests (echo is medium and would ask). */
    static final AtomicReference<ApprovalSettings> APPROVAL = new AtomicReference<>(ApprovalSettings.defaults());
    static final AtomicInteger WIPES = new AtomicInteger();

    /**
     * steps: three progress events and a message, then the result. ask_city: asks for a city (within
     * timeout_ms when given). greet: sends its text, then answers greeted. wipe: side-effecting, risk high.
     */
    static List<ToolSpec> tools() {
        List<ToolSpec> tools = new ArrayList<>(TestGateway.tools());
        tools.add(new ToolSpec(ToolDefinition.builder("steps").description("Three steps").build(),
                (a, c) -> Flux.range(1, 3)
                        .concatMap(i -> c.progress(i, 3.0, "step " + i).then(Mono.delay(Duration.ofMillis(20))))
                        .then(Mono.defer(() -> c.send("halfway there")))
                        .then(Mono.just(ToolResult.text("done")))));
        tools.add(new ToolSpec(ToolDefinition.builder("ask_city").description("Asks for a city")
                .parameter(ToolParameter.builder("timeout_ms", ToolParamType.INTEGER).required(false).build()).build(),
                (a, c) -> c.ask("Which city?", Json.mapper().createObjectNode().put("type", "object"),
                                a.has("timeout_ms") ? Duration.ofMillis(a.integer("timeout_ms", 0)) : null)
                        .map(ans -> ToolResult.text(ans.outcome() + " " + ans.content()))));
        tools.add(new ToolSpec(ToolDefinition.builder("greet").description("Greets the conversation")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "what to say")).build(),
                (a, c) -> c.send(a.string("text")).thenReturn(ToolResult.text("greeted"))));
        tools.add(new ToolSpec(ToolDefinition.builder("wipe").description("Wipes the target").sideEffecting(true)
                .risk(Risk.HIGH).parameter(ToolParameter.of("target", ToolParamType.STRING, "what to wipe")).build(),
                (a, c) -> Mono.fromSupplier(() -> {
                    WIPES.incrementAndGet();
                    return ToolResult.text("wiped " + a.string("target"));
                })));
        return tools;
    }

    @BeforeAll
    static void start() {
        executor = ToolExecutor.builder().tools(tools()).approval(APPROVAL::get)
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

    @AfterEach
    void approvalOff() {
        APPROVAL.set(ApprovalSettings.defaults());
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
        // this wait once timed out in a full run with no sign of why: it says what it saw now
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> activeTurns() >= 1 || ended.isDone());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("no turn running after 10 s; the SSE request: " + ended + ", its events: " + events, e);
        }
        assertThat(ended).as("the SSE request ended before its turn ran; events %s", events).isNotDone();
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
            assertThat(id).startsWith("in-").matches(dev.toolbus.spi.ControlRequest::isDerivedId);
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

    // --- approval (wipe is risk high; echo is classified medium) ---

    static ApprovalSettings auto(long timeoutMs) {
        return ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(timeoutMs).build();
    }

    static String call(String stream, String turn, String name, String args) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn + "\",\"tool_call_id\":\""
                + turn + "-c\",\"name\":\"" + name + "\",\"arguments\":" + args + ",\"context\":{\"user_id\":\"u1\"}}";
    }

    static String approvalResponse(String stream, String id, String decision) {
        return "{\"type\":\"approval_response\",\"stream_id\":\"" + stream + "\",\"approval_id\":\"" + id
                + "\",\"decision\":\"" + decision + "\"}";
    }

    static String inputResponse(String stream, String id, String action) {
        return "{\"type\":\"input_response\",\"stream_id\":\"" + stream + "\",\"input_id\":\"" + id
                + "\",\"action\":\"" + action + "\"" + (action.equals("accept") ? ",\"content\":{\"city\":\"Paris\"}" : "") + "}";
    }

    static JsonNode frame(RawWebSocket ws) throws Exception {
        return json(ws.readFrame().text());
    }

    static void assertWipeRequest(JsonNode request) {
        assertThat(request.path("type").asText()).isEqualTo("approval_request");
        assertThat(request.path("approval_id").asText()).as("derived from the turn: names no instance")
                .startsWith("ap-").matches(dev.toolbus.spi.ControlRequest::isDerivedId);
        assertThat(request.path("calls")).singleElement().satisfies(c -> {
            assertThat(c.path("name").asText()).isEqualTo("wipe");
            assertThat(c.path("risk").asText()).isEqualTo("high");
        });
    }

    @Test
    void ws_wipeUnderAutoAsksOnce_runsOnlyAfterApprove_andAnAnswerTwiceIsUnknown() throws Exception {
        APPROVAL.set(auto(60_000));
        int before = WIPES.get();
        try (RawWebSocket ws = new RawWebSocket(server.port(), OPS, 0)) {
            ws.sendText(call("ws-ap", "t1", "wipe", "{\"target\":\"disk\"}"));
            JsonNode request = frame(ws);
            assertWipeRequest(request);
            assertThat(WIPES.get()).as("nothing ran before the answer").isEqualTo(before);
            String id = request.path("approval_id").asText();
            ws.sendText(approvalResponse("ws-ap", id, "approve"));
            JsonNode result = frame(ws);
            assertThat(result.path("type").asText()).isEqualTo("tool_result");
            assertThat(result.path("content").asText()).isEqualTo("wiped disk");
            assertThat(frame(ws).path("type").asText()).isEqualTo("turn_completed");
            assertThat(WIPES.get()).isEqualTo(before + 1);
            ws.sendText(approvalResponse("ws-ap", id, "approve"));
            JsonNode again = frame(ws);
            assertThat(again.path("type").asText()).isEqualTo("error");
            assertThat(again.path("code").asText()).isEqualTo("UNKNOWN_REQUEST");
        }
    }

    @Test
    void ws_denyAndExpiryAreNotApproved() throws Exception {
        APPROVAL.set(auto(60_000));
        int before = WIPES.get();
        try (RawWebSocket ws = new RawWebSocket(server.port(), OPS, 0)) {
            ws.sendText(call("ws-deny", "t1", "wipe", "{\"target\":\"disk\"}"));
            JsonNode request = frame(ws);
            assertWipeRequest(request);
            ws.sendText(approvalResponse("ws-deny", request.path("approval_id").asText(), "deny"));
            JsonNode denied = frame(ws);
            assertThat(denied.path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
            assertThat(denied.path("content").asText()).contains("declined");
            assertThat(frame(ws).path("type").asText()).isEqualTo("turn_completed");

            APPROVAL.set(auto(1500));
            ws.sendText(call("ws-deny", "t2", "wipe", "{\"target\":\"disk\"}"));
            JsonNode late = frame(ws);
            assertWipeRequest(late);
            JsonNode expired = frame(ws);
            assertThat(expired.path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
            assertThat(expired.path("content").asText()).contains("no answer").contains("1500 ms");
            assertThat(frame(ws).path("type").asText()).isEqualTo("turn_completed");
            ws.sendText(approvalResponse("ws-deny", late.path("approval_id").asText(), "approve"));
            assertThat(frame(ws).path("code").asText()).as("answered after expiry").isEqualTo("UNKNOWN_REQUEST");
        }
        assertThat(WIPES.get()).isEqualTo(before);
    }

    @Test
    void ws_approveSessionSkipsTheNextAsk() throws Exception {
        APPROVAL.set(auto(60_000));
        try (RawWebSocket ws = new RawWebSocket(server.port(), OPS, 0)) {
            ws.sendText(call("ws-session", "t1", "echo", "{\"text\":\"one\"}"));
            JsonNode request = frame(ws);
            assertThat(request.path("type").asText()).isEqualTo("approval_request");
            assertThat(request.path("calls").get(0).path("risk").asText()).isEqualTo("medium");
            ws.sendText(approvalResponse("ws-session", request.path("approval_id").asText(), "approve_session"));
            assertThat(frame(ws).path("content").asText()).isEqualTo("one");
            assertThat(frame(ws).path("type").asText()).isEqualTo("turn_completed");
            ws.sendText(call("ws-session", "t2", "echo", "{\"text\":\"two\"}"));
            JsonNode next = frame(ws);
            assertThat(next.path("type").asText()).as("granted for the session").isEqualTo("tool_result");
            assertThat(next.path("content").asText()).isEqualTo("two");
        }
    }

    /** An SSE turn that asks for approval, answered through POST /v1/control with the decision. */
    static List<JsonNode> sseApproval(String stream, String turn, String tool, String args, String decision)
            throws Exception {
        CompletableFuture<Void> ended = new CompletableFuture<>();
        List<JsonNode> events = sse(OPS, call(stream, turn, tool, args), ended);
        await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
        assertThat(events.get(0).path("type").asText()).isEqualTo("approval_request");
        if (decision != null) {
            HttpResponse<String> r = control(OPS, approvalResponse(stream, events.get(0).path("approval_id").asText(), decision));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            assertThat(json(r.body()).path("outcome").asText()).isEqualTo("applied");
        }
        ended.get();
        return events;
    }

    @Test
    void http_wipeUnderAutoRunsOnlyAfterApprove_denyAndExpiryAreNotApproved() throws Exception {
        APPROVAL.set(auto(60_000));
        int before = WIPES.get();
        List<JsonNode> approved = sseApproval("http-ap", "t1", "wipe", "{\"target\":\"disk\"}", "approve");
        assertThat(types(approved)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertWipeRequest(approved.get(0));
        assertThat(approved.get(1).path("content").asText()).isEqualTo("wiped disk");
        assertThat(WIPES.get()).isEqualTo(before + 1);

        List<JsonNode> denied = sseApproval("http-ap", "t2", "wipe", "{\"target\":\"disk\"}", "deny");
        assertThat(types(denied)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(denied.get(1).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");

        APPROVAL.set(auto(1500));
        List<JsonNode> expired = sseApproval("http-ap", "t3", "wipe", "{\"target\":\"disk\"}", null);
        assertThat(types(expired)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(expired.get(1).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(expired.get(1).path("content").asText()).contains("no answer");
        assertThat(WIPES.get()).isEqualTo(before + 1);
        HttpResponse<String> late = control(OPS, approvalResponse("http-ap", expired.get(0).path("approval_id").asText(), "approve"));
        assertThat(late.statusCode()).isEqualTo(404);
        assertThat(json(late.body()).path("code").asText()).isEqualTo("UNKNOWN_REQUEST");
    }

    @Test
    void http_approveSessionSkipsTheNextAsk() throws Exception {
        APPROVAL.set(auto(60_000));
        List<JsonNode> first = sseApproval("http-session", "t1", "echo", "{\"text\":\"one\"}", "approve_session");
        assertThat(types(first)).containsExactly("approval_request", "tool_result", "turn_completed");
        Http.Response next = new Http(server.baseUrl()).post("/v1/turns", OPS, call("http-session", "t2", "echo", "{\"text\":\"two\"}"));
        List<JsonNode> all = new ArrayList<>();
        next.json().forEach(all::add);
        assertThat(types(all)).as("granted for the session").containsExactly("tool_result", "turn_completed");
        assertThat(all.get(0).path("content").asText()).isEqualTo("two");
    }

    // --- greet and ask_city ---

    @Test
    void greetsMessageArrivesBeforeItsResult_overWebSocketAndSse() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(server.port(), OPS, 0)) {
            ws.sendText(call("greet-ws", "t1", "greet", "{\"text\":\"你好！\"}"));
            JsonNode message = frame(ws);
            assertThat(message.path("type").asText()).isEqualTo("send_message");
            assertThat(message.path("message_id").asText()).isEqualTo("t1-c:msg:1");
            assertThat(message.path("content").get(0).path("text").asText()).isEqualTo("你好！");
            JsonNode result = frame(ws);
            assertThat(result.path("type").asText()).isEqualTo("tool_result");
            assertThat(result.path("content").asText()).isEqualTo("greeted");
        }
        CompletableFuture<Void> ended = new CompletableFuture<>();
        List<JsonNode> events = sse(OPS, call("greet-http", "t2", "greet", "{\"text\":\"你好！\"}"), ended);
        ended.get();
        assertThat(types(events)).containsExactly("send_message", "tool_result", "turn_completed");
        assertThat(events.get(0).path("content").get(0).path("text").asText()).isEqualTo("你好！");
        assertThat(events.get(1).path("content").asText()).isEqualTo("greeted");
    }

    @Test
    void ws_askCityRoundTripsDeclineCancelAndExpiry() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(server.port(), OPS, 0)) {
            for (String action : List.of("decline", "cancel")) {
                ws.sendText(call("ask-ws", "t-" + action, "ask_city", "{}"));
                JsonNode question = frame(ws);
                assertThat(question.path("type").asText()).isEqualTo("input_request");
                ws.sendText(inputResponse("ask-ws", question.path("input_id").asText(), action));
                JsonNode result = frame(ws);
                assertThat(result.path("content").asText()).startsWith(action.toUpperCase(java.util.Locale.ROOT));
                assertThat(frame(ws).path("type").asText()).isEqualTo("turn_completed");
            }
            ws.sendText(call("ask-ws", "t-exp", "ask_city", "{\"timeout_ms\":1500}"));
            JsonNode question = frame(ws);
            assertThat(question.path("type").asText()).isEqualTo("input_request");
            JsonNode result = frame(ws);
            assertThat(result.path("content").asText()).startsWith("EXPIRED");
            assertThat(frame(ws).path("type").asText()).isEqualTo("turn_completed");
            ws.sendText(inputResponse("ask-ws", question.path("input_id").asText(), "accept"));
            assertThat(frame(ws).path("code").asText()).as("answered after expiry").isEqualTo("UNKNOWN_REQUEST");
        }
    }

    @Test
    void http_askCityRoundTripsAcceptCancelAndExpiry() throws Exception {
        for (String action : List.of("accept", "cancel")) {
            CompletableFuture<Void> ended = new CompletableFuture<>();
            List<JsonNode> events = sse(OPS, call("ask-http2", "t-" + action, "ask_city", "{}"), ended);
            await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
            HttpResponse<String> r = control(OPS, inputResponse("ask-http2", events.get(0).path("input_id").asText(), action));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
            ended.get();
            assertThat(types(events)).containsExactly("input_request", "tool_result", "turn_completed");
            assertThat(events.get(1).path("content").asText()).startsWith(action.toUpperCase(java.util.Locale.ROOT));
            if (action.equals("accept")) {
                assertThat(events.get(1).path("content").asText()).contains("Paris");
            }
        }
        CompletableFuture<Void> ended = new CompletableFuture<>();
        List<JsonNode> events = sse(OPS, call("ask-http2", "t-exp", "ask_city", "{\"timeout_ms\":1500}"), ended);
        ended.get();
        assertThat(types(events)).containsExactly("input_request", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).startsWith("EXPIRED");
    }
}
