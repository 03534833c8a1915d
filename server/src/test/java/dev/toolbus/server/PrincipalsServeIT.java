package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21 M1, M2 and the session-grant low against a real {@code toolbus serve} whose gateway has
 * scoped tokens from toolbus.yaml: {@code alice} and {@code bob} have the same rank and share the
 * streams {@code shared:*}; {@code carol} also has {@code approval: override}. The sample tools under
 * {@code approval.mode: auto}. One token must not answer the other's approval, read the other's cut
 * result, get a replay of the other's turn by re-sending its turn id, pre-empt the other's next turn
 * id, or use the other's session grant by asserting the same {@code user_id}; {@code approval_mode:
 * off} from a scoped token still asks unless its entry says {@code approval: override}.
 */
class PrincipalsServeIT {

    private static final String ALICE = "alice-1";
    private static final String BOB = "bob-1";
    private static final String CAROL = "carol-1";
    private static final String CONFIG = """
            approval:
              mode: auto
              timeoutMs: 30000
              medium: [sleep]
              bypass: [count, echo, add]
            execution:
              cacheResults: false
              maxResultChars: 100
            gateway:
              port: 0
              tokens:
                - {name: alice, token: "${ALICE_TOKEN}", maxPermission: admin, streams: ["shared:*"]}
                - {name: bob, token: "${BOB_TOKEN}", maxPermission: admin, streams: ["shared:*"]}
                - {name: carol, token: "${CAROL_TOKEN}", maxPermission: admin, streams: ["shared:*"], approval: override}
            """;
    private static final HttpClient JDK = HttpClient.newHttpClient();
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static RunningServer server;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        Path config = Files.writeString(dir.resolve("toolbus.yaml"), CONFIG);
        server = RunningServer.start("principals-serve", null, Map.of("JAVA_TOOL_OPTIONS", "-Xmx256m",
                "ALICE_TOKEN", ALICE, "BOB_TOKEN", BOB, "CAROL_TOKEN", CAROL), "--config", config.toString(),
                "--sample-tools", "--log-level", "warn");
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static JsonNode json(String s) {
        try {
            return RunningServer.JSON.readTree(s);
        } catch (Exception e) {
            throw new AssertionError(s, e);
        }
    }

    private static String call(String stream, String turn, String name, String args, String extraContext) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn + "\",\"tool_call_id\":\""
                + turn + "-c\",\"name\":\"" + name + "\",\"arguments\":" + args + ",\"context\":{\"user_id\":\"u1\""
                + extraContext + "}}";
    }

    /** A non-streaming POST /v1/turns: the events of its answer. */
    private static List<JsonNode> turn(String token, String body) throws Exception {
        HttpResponse<String> r = JDK.send(HttpRequest.newBuilder(URI.create(server.url() + "/v1/turns"))
                .header("Authorization", "Bearer " + token).timeout(WAIT)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        List<JsonNode> out = new ArrayList<>();
        json(r.body()).forEach(out::add);
        return out;
    }

    /** A turn over SSE, its events collected as they arrive. */
    private record Streamed(List<JsonNode> events, CompletableFuture<Void> ended) {
        JsonNode first(String type) {
            await().atMost(WAIT).until(() -> events.stream().anyMatch(e -> e.path("type").asText().equals(type))
                    || ended.isDone());
            return events.stream().filter(e -> e.path("type").asText().equals(type)).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + type + " in " + events));
        }
    }

    private static Streamed sse(String token, String body) {
        List<JsonNode> events = new CopyOnWriteArrayList<>();
        CompletableFuture<Void> ended = new CompletableFuture<>();
        JDK.sendAsync(HttpRequest.newBuilder(URI.create(server.url() + "/v1/turns"))
                .header("Authorization", "Bearer " + token).header("Accept", "text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofLines())
                .thenAccept(res -> {
                    try (Stream<String> lines = res.body()) {
                        lines.filter(l -> l.startsWith("data: ")).forEach(l -> events.add(json(l.substring(6))));
                    }
                    ended.complete(null);
                }).exceptionally(e -> {
                    ended.completeExceptionally(e);
                    return null;
                });
        return new Streamed(events, ended);
    }

    private static HttpResponse<String> control(String token, String stream, String approvalId, String decision)
            throws Exception {
        String body = "{\"type\":\"approval_response\",\"stream_id\":\"" + stream + "\",\"approval_id\":\"" + approvalId
                + "\",\"decision\":\"" + decision + "\"}";
        return JDK.send(HttpRequest.newBuilder(URI.create(server.url() + "/v1/control"))
                .header("Authorization", "Bearer " + token).timeout(WAIT)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode result(List<JsonNode> events) {
        return events.stream().filter(e -> e.path("type").asText().equals("tool_result")).findFirst()
                .orElseThrow(() -> new AssertionError("no tool_result in " + events));
    }

    @Test
    void m1_bobCannotAnswerAlicesApproval_aliceCan() throws Exception {
        Streamed alice = sse(ALICE, call("shared:1", "t-ap", "wipe", "{\"target\":\"disk\"}", ""));
        String id = alice.first("approval_request").path("approval_id").asText();
        for (String decision : List.of("approve", "approve_session", "deny")) {
            HttpResponse<String> r = control(BOB, "shared:1", id, decision);
            assertThat(r.statusCode()).as(r.body()).isEqualTo(404);
            assertThat(json(r.body()).path("code").asText()).isEqualTo("UNKNOWN_REQUEST");
        }
        assertThat(alice.events()).as("bob's answers changed nothing").noneMatch(e -> e.path("type").asText()
                .equals("tool_result"));
        HttpResponse<String> mine = control(ALICE, "shared:1", id, "approve");
        assertThat(mine.statusCode()).as(mine.body()).isEqualTo(202);
        alice.ended().get(30, TimeUnit.SECONDS);
        assertThat(result(alice.events()).path("content").asText()).isEqualTo("wiped disk");
    }

    @Test
    void m1_bobCannotReadBackAlicesCutResult() throws Exception {
        String text = "abcdefghij".repeat(50);
        JsonNode cut = result(turn(ALICE, call("shared:2", "t-cut", "echo", "{\"text\":\"" + text + "\"}", "")));
        assertThat(cut.path("content").asText()).contains("read_tool_result").hasSizeLessThan(text.length());

        JsonNode stolen = result(turn(BOB, call("shared:2", "t-steal", "read_tool_result",
                "{\"tool_call_id\":\"t-cut-c\"}", "")));
        assertThat(stolen.path("is_error").asBoolean()).as(stolen.toString()).isTrue();
        assertThat(stolen.path("content").asText()).doesNotContain("abcdefghij");

        JsonNode own = result(turn(ALICE, call("shared:2", "t-own", "read_tool_result",
                "{\"tool_call_id\":\"t-cut-c\"}", "")));
        assertThat(own.path("is_error").asBoolean()).as(own.toString()).isFalse();
        assertThat(own.path("content").asText()).startsWith("abcdefghij");
    }

    @Test
    void m1_aTurnIdRepeatedByBob_runsAsBobsOwnTurn_aliceGetsHerReplay() throws Exception {
        JsonNode first = result(turn(ALICE, call("shared:3", "t-rep", "count", "{\"key\":\"rep\"}", "")));
        assertThat(first.path("content").asText()).startsWith("run ");
        JsonNode bobs = result(turn(BOB, call("shared:3", "t-rep", "count", "{\"key\":\"rep\"}", "")));
        assertThat(bobs.has("replayed")).as("bob's turn ran: %s", bobs).isFalse();
        assertThat(bobs.path("content").asText()).isNotEqualTo(first.path("content").asText());
        JsonNode again = result(turn(ALICE, call("shared:3", "t-rep", "count", "{\"key\":\"rep\"}", "")));
        assertThat(again.path("replayed").asBoolean()).as("alice's own repeat is replayed: %s", again).isTrue();
        assertThat(again.path("content").asText()).isEqualTo(first.path("content").asText());
    }

    @Test
    void m1_aTurnIdSentFirstByBob_doesNotAnswerAlicesTurn() throws Exception {
        JsonNode planted = result(turn(BOB, call("shared:4", "t-pre", "count", "{\"key\":\"pre\"}", "")));
        JsonNode real = result(turn(ALICE, call("shared:4", "t-pre", "count", "{\"key\":\"pre\"}", "")));
        assertThat(real.has("replayed")).as(real.toString()).isFalse();
        assertThat(real.path("content").asText()).startsWith("run ").isNotEqualTo(planted.path("content").asText());
    }

    @Test
    void m2_approvalModeOffFromAScopedToken_stillAsks_carolsOverrideLoosensIt() throws Exception {
        Streamed alice = sse(ALICE, call("shared:5", "t-off", "wipe", "{\"target\":\"a\"}", ",\"approval_mode\":\"off\""));
        JsonNode asked = alice.first("approval_request");
        HttpResponse<String> deny = control(ALICE, "shared:5", asked.path("approval_id").asText(), "deny");
        assertThat(deny.statusCode()).as(deny.body()).isEqualTo(202);
        alice.ended().get(30, TimeUnit.SECONDS);
        assertThat(result(alice.events()).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");

        List<JsonNode> carol = turn(CAROL, call("shared:5", "t-off2", "wipe", "{\"target\":\"c\"}",
                ",\"approval_mode\":\"off\""));
        assertThat(carol).extracting(e -> e.path("type").asText()).doesNotContain("approval_request");
        assertThat(result(carol).path("content").asText()).isEqualTo("wiped c");
    }

    @Test
    void low_aSessionGrantIsAlicesOwn_bobAssertingTheSameUserIsAskedAgain() throws Exception {
        Streamed first = sse(ALICE, call("shared:6", "t-g1", "sleep", "{\"ms\":1}", ""));
        String id = first.first("approval_request").path("approval_id").asText();
        assertThat(control(ALICE, "shared:6", id, "approve_session").statusCode()).isEqualTo(202);
        first.ended().get(30, TimeUnit.SECONDS);
        assertThat(result(first.events()).path("content").asText()).isEqualTo("slept 1");

        List<JsonNode> granted = turn(ALICE, call("shared:6", "t-g2", "sleep", "{\"ms\":2}", ""));
        assertThat(granted).as("alice's grant covers her next call").extracting(e -> e.path("type").asText())
                .doesNotContain("approval_request");
        assertThat(result(granted).path("content").asText()).isEqualTo("slept 2");

        Streamed bob = sse(BOB, call("shared:6", "t-g3", "sleep", "{\"ms\":3}", ""));
        JsonNode bobAsked = bob.first("approval_request");
        assertThat(bob.events()).noneMatch(e -> e.path("type").asText().equals("tool_result"));
        control(BOB, "shared:6", bobAsked.path("approval_id").asText(), "deny");
        bob.ended().get(30, TimeUnit.SECONDS);
        assertThat(result(bob.events()).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
    }
}
