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
import dev.toolbus.policy.PermissionLevel;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.Risk;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Issue 21 item 1 through a real gateway: two scoped tokens of the same rank share one stream. The
 * principal comes from the token, never from the event, and binds every piece of turn state: M1 (one
 * token approves, reads back, replays or pre-empts the other's turn) and M2 (a scoped token loosens
 * approval with {@code context.approval_mode: off}) must fail; a scope with {@code approval: override}
 * may loosen it.
 */
class GatewayPrincipalsTest {

    static final String ALICE = "alice-secret";
    static final String BOB = "bob-secret";
    static final String CAROL = "carol-secret";
    static final AtomicInteger WIPES = new AtomicInteger();
    static final AtomicInteger TICKS = new AtomicInteger();
    static final HttpClient JDK = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static ToolExecutor executor;
    static GatewayServer server;

    @BeforeAll
    static void start() {
        List<ToolSpec> tools = new ArrayList<>();
        tools.add(new ToolSpec(ToolDefinition.builder("wipe").description("Wipes").sideEffecting(true).risk(Risk.HIGH)
                .build(), (a, c) -> Mono.fromSupplier(() -> ToolResult.text("wiped " + WIPES.incrementAndGet()))));
        tools.add(new ToolSpec(ToolDefinition.builder("tick").description("Counts").risk(Risk.LOW).cacheable(false)
                .build(), (a, c) -> Mono.fromSupplier(() -> ToolResult.text("tick " + TICKS.incrementAndGet()))));
        tools.add(new ToolSpec(ToolDefinition.builder("long_text").description("Long").risk(Risk.LOW).maxResultChars(100)
                .build(), (a, c) -> Mono.just(ToolResult.text("abcdefghij".repeat(50)))));
        executor = ToolExecutor.builder().tools(tools)
                .approval(() -> ApprovalSettings.builder().mode(ApprovalMode.AUTO).build())
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
        server = Gateway.builder().executor(executor).tokens(AccessTokens.builder()
                .token(ALICE, TokenScope.builder("alice").maxPermission(PermissionLevel.ADMIN)
                        .streams(List.of("shared:*")).build())
                .token(BOB, TokenScope.builder("bob").maxPermission(PermissionLevel.ADMIN)
                        .streams(List.of("shared:*")).build())
                .token(CAROL, TokenScope.builder("carol").maxPermission(PermissionLevel.ADMIN)
                        .streams(List.of("shared:*")).approvalOverride(true).build())
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

    static String call(String stream, String turn, String name, String args, String extraContext) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn + "\",\"tool_call_id\":\""
                + turn + "-c\",\"name\":\"" + name + "\",\"arguments\":" + args + ",\"context\":{\"user_id\":\"u1\""
                + extraContext + "}}";
    }

    /** POST /v1/turns; the events of the JSON answer. */
    static List<JsonNode> turn(String token, String body) {
        Http.Response r = new Http(server.baseUrl()).post("/v1/turns", token, body);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        List<JsonNode> out = new ArrayList<>();
        r.json().forEach(out::add);
        return out;
    }

    /** POST /v1/turns with SSE; the data lines as they arrive. */
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

    static HttpResponse<String> control(String token, String body) throws Exception {
        return JDK.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/v1/control"))
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static String approve(String stream, String id, String decision) {
        return "{\"type\":\"approval_response\",\"stream_id\":\"" + stream + "\",\"approval_id\":\"" + id
                + "\",\"decision\":\"" + decision + "\"}";
    }

    static JsonNode result(List<JsonNode> events) {
        return events.stream().filter(e -> e.path("type").asText().equals("tool_result")).findFirst().orElseThrow();
    }

    @Test
    void m1_aTokenCannotAnswerAnotherTokensApproval() throws Exception {
        int before = WIPES.get();
        CompletableFuture<Void> ended = new CompletableFuture<>();
        List<JsonNode> events = sse(ALICE, call("shared:1", "t-ap", "wipe", "{}", ""), ended);
        await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
        String id = events.get(0).path("approval_id").asText();
        assertThat(events.get(0).path("type").asText()).isEqualTo("approval_request");

        for (String decision : List.of("approve", "approve_session", "deny")) {
            HttpResponse<String> r = control(BOB, approve("shared:1", id, decision));
            assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
            assertThat(json(r.body()).path("code").asText()).isEqualTo("UNKNOWN_REQUEST");
        }
        assertThat(events).hasSize(1);
        HttpResponse<String> mine = control(ALICE, approve("shared:1", id, "approve"));
        assertThat(mine.statusCode()).as(mine.body()).isEqualTo(202);
        ended.get();
        assertThat(result(events).path("content").asText()).isEqualTo("wiped " + (before + 1));
    }

    @Test
    void m1_aTokenCannotReadBackAnotherTokensCutResult() {
        JsonNode cut = result(turn(ALICE, call("shared:2", "t-cut", "long_text", "{}", "")));
        assertThat(cut.path("content").asText()).contains("read_tool_result");

        JsonNode stolen = result(turn(BOB, call("shared:2", "t-steal", "read_tool_result",
                "{\"tool_call_id\":\"t-cut-c\"}", "")));
        assertThat(stolen.path("is_error").asBoolean()).isTrue();
        assertThat(stolen.path("content").asText()).doesNotContain("abcdefghij");

        JsonNode own = result(turn(ALICE, call("shared:2", "t-own", "read_tool_result",
                "{\"tool_call_id\":\"t-cut-c\"}", "")));
        assertThat(own.path("is_error").asBoolean()).isFalse();
        assertThat(own.path("content").asText()).startsWith("abcdefghij");
    }

    @Test
    void m1_aTurnIdRepeatedByAnotherToken_runsAsItsOwnTurn_neverAReplayOfTheOther() {
        JsonNode first = result(turn(ALICE, call("shared:3", "t-rep", "tick", "{}", "")));
        JsonNode other = result(turn(BOB, call("shared:3", "t-rep", "tick", "{}", "")));
        assertThat(other.has("replayed")).as("bob's turn ran").isFalse();
        assertThat(other.path("content").asText()).isNotEqualTo(first.path("content").asText());
        JsonNode again = result(turn(ALICE, call("shared:3", "t-rep", "tick", "{}", "")));
        assertThat(again.path("replayed").asBoolean()).as("alice's own repeat is replayed").isTrue();
        assertThat(again.path("content").asText()).isEqualTo(first.path("content").asText());
    }

    @Test
    void m1_aTurnIdSentFirstByAnotherToken_doesNotAnswerTheRealTurn() {
        JsonNode planted = result(turn(BOB, call("shared:4", "t-pre", "tick", "{}", "")));
        JsonNode real = result(turn(ALICE, call("shared:4", "t-pre", "tick", "{}", "")));
        assertThat(real.has("replayed")).isFalse();
        assertThat(real.path("content").asText()).isNotEqualTo(planted.path("content").asText());
    }

    @Test
    void m2_approvalModeOffFromAScopedToken_stillAsks_unlessItsScopeHasTheOverride() throws Exception {
        int before = WIPES.get();
        CompletableFuture<Void> ended = new CompletableFuture<>();
        List<JsonNode> events = sse(ALICE, call("shared:5", "t-off", "wipe", "{}", ",\"approval_mode\":\"off\""), ended);
        await().atMost(Duration.ofSeconds(10)).until(() -> !events.isEmpty());
        assertThat(events.get(0).path("type").asText()).as("off from a scoped token does not loosen approval")
                .isEqualTo("approval_request");
        control(ALICE, approve("shared:5", events.get(0).path("approval_id").asText(), "deny"));
        ended.get();
        assertThat(result(events).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(WIPES.get()).isEqualTo(before);

        List<JsonNode> overridden = turn(CAROL, call("shared:5", "t-off2", "wipe", "{}", ",\"approval_mode\":\"off\""));
        assertThat(overridden).extracting(e -> e.path("type").asText()).containsExactly("tool_result", "turn_completed");
        assertThat(result(overridden).path("content").asText()).isEqualTo("wiped " + (before + 1));
    }
}
