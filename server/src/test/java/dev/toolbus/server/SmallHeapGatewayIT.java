package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21 M5 and M8 against a real {@code toolbus serve} with a 512 MiB heap. M5: a real Python
 * plugin flooding {@code send_message} into a non-streaming {@code POST /v1/turns} grew one answer to
 * 742 MB and the server ran out of memory; now the turn ends with a {@code REJECTED} error at
 * {@code gateway.maxAnswerBytes}. M8: turns waiting for approval kept their whole event with no byte
 * bound (8 WebSockets of one token brought the server down); now a turn that would pass
 * {@code approval.maxWaitingBytes} is not asked, its call ends {@code REJECTED} at once.
 */
class SmallHeapGatewayIT {

    private static final String TOKEN = "small-heap-secret";
    private static final Map<String, String> SMALL_HEAP = Map.of("JAVA_TOOL_OPTIONS", "-Xmx512m");

    /**
     * A plugin with one tool, {@code flood}: sends chat messages of 200 KB without waiting for their
     * replies (at most 8,000: 1.6 GB) until its call is cancelled, then answers.
     */
    private static final String FLOODER = """
            import json, sys, threading
            TOOLS = [{"name": "flood", "description": "Floods the chat.",
                      "inputSchema": {"type": "object", "properties": {}}}]
            out = threading.Lock()
            stop = threading.Event()
            def write(obj):
                with out:
                    sys.stdout.write(json.dumps(obj) + "\\n")
                    sys.stdout.flush()
            def flood(call_id):
                text = "f" * 200000
                n = 0
                while not stop.is_set() and n < 8000:
                    write({"method": "send", "params": {"id": call_id, "rid": "s%d" % n, "content": text}})
                    n += 1
                write({"id": call_id, "result": "sent %d" % n})
            for line in sys.stdin:
                request = json.loads(line)
                method = request.get("method")
                if method == "activate":
                    write({"id": request["id"], "tools": TOOLS})
                elif method == "execute_tool":
                    stop.clear()
                    threading.Thread(target=flood, args=(request["id"],), daemon=True).start()
                elif method == "cancel":
                    stop.set()
                elif method == "deactivate":
                    stop.set()
                    write({"id": request["id"]})
                    break
            """;

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static HttpResponse<String> post(RunningServer s, String body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + "/v1/turns"))
                .header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(120))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int healthz(RunningServer s) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(s.url() + "/healthz")).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Test
    void aPluginFloodingANonStreamingAnswerEndsItsTurn_notTheServer(@TempDir Path dir) throws Exception {
        Path plugin = Files.createDirectories(dir.resolve("plugins").resolve("flooder"));
        Files.writeString(plugin.resolve("flooder.py"), FLOODER, StandardCharsets.UTF_8);
        Files.writeString(plugin.resolve("plugin.json"), "{\"id\":\"flooder\",\"command\":\"python3\","
                + "\"args\":[\"-u\",\"flooder.py\"],\"timeoutMs\":300000,\"cancelGraceMs\":10000}", StandardCharsets.UTF_8);
        try (RunningServer s = RunningServer.start("small-heap-answer", TOKEN, SMALL_HEAP, "--plugins",
                dir.resolve("plugins").toString(), "--sample-tools", "--gateway", "127.0.0.1:0", "--log-level", "warn")) {
            HttpResponse<String> r = post(s, "{\"type\":\"tool_call\",\"stream_id\":\"chat:flood\",\"turn_id\":\"t1\","
                    + "\"name\":\"flood\",\"arguments\":{}}");
            assertThat(r.statusCode()).as(r.body().substring(0, Math.min(300, r.body().length()))).isEqualTo(503);
            JsonNode error = RunningServer.JSON.readTree(r.body());
            assertThat(error.path("code").asText()).isEqualTo("REJECTED");
            assertThat(error.path("turn_id").asText()).isEqualTo("t1");
            assertThat(error.path("message").asText()).contains("the answers being gathered for token",
                    "would pass 33554432 bytes (gateway.maxAnswerBytes)", "send 'Accept: text/event-stream'");

            assertThat(healthz(s)).isEqualTo(200);
            HttpResponse<String> after = post(s, "{\"type\":\"tool_call\",\"stream_id\":\"chat:after\","
                    + "\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}");
            assertThat(after.statusCode()).isEqualTo(200);
            assertThat(after.body()).contains("\"sum\":3");
            await().atMost(Duration.ofSeconds(30)).until(() -> RunningServer.curl("-s", s.url() + "/metrics", "-H",
                    "Authorization: Bearer " + TOKEN).contains("toolbus_gateway_answers_pending_bytes 0.0"));
            assertThat(s.process.stderr()).doesNotContain("OutOfMemoryError");
            assertThat(s.process.alive()).isTrue();
        }
    }

    /** Collects a WebSocket's text messages as JSON events. */
    private static final class Events implements WebSocket.Listener {
        final List<JsonNode> events = new CopyOnWriteArrayList<>();
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                try {
                    events.add(RunningServer.JSON.readTree(partial.toString()));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                partial.setLength(0);
            }
            ws.request(1);
            return null;
        }

        long count(String type) {
            return events.stream().filter(e -> e.path("type").asText().equals(type)).count();
        }

        long rejected() {
            return events.stream().filter(e -> e.path("type").asText().equals("tool_result")
                    && e.path("error").path("code").asText().equals("REJECTED")).count();
        }
    }

    /**
     * Opens {@code sockets} WebSockets with this token and sends {@code turns} turns of {@code wipe}
     * with 700,000-character arguments on each, each turn on a stream of its own.
     */
    private static List<Events> flood(RunningServer s, String token, int sockets, int turns, List<WebSocket> open)
            throws Exception {
        String target = "w".repeat(700_000);
        List<Events> listeners = new ArrayList<>();
        for (int i = 0; i < sockets; i++) {
            Events l = new Events();
            listeners.add(l);
            open.add(HTTP.newWebSocketBuilder().header("Authorization", "Bearer " + token)
                    .buildAsync(URI.create("ws://127.0.0.1:" + s.port + "/v1/ws"), l).join());
        }
        List<CompletableFuture<?>> sends = new ArrayList<>();
        for (int i = 0; i < sockets; i++) {
            WebSocket ws = open.get(i);
            int socket = i;
            sends.add(CompletableFuture.runAsync(() -> {
                for (int t = 0; t < turns; t++) {
                    ws.sendText("{\"type\":\"tool_call\",\"stream_id\":\"ws" + socket + ":s" + t + "\",\"turn_id\":\"t\","
                            + "\"name\":\"wipe\",\"arguments\":{\"target\":\"" + target + "\"}}", true).join();
                }
            }));
        }
        CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get();
        return listeners;
    }

    @Test
    void turnsWaitingForApprovalAreWeighedAndRefusedAboveTheBound(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        // one token is one principal: its own bound raised to the total, so the total bound is the one met here
        Files.writeString(config, "approval:\n  mode: auto\n  maxWaitingBytesPerPrincipal: 67108864\n",
                StandardCharsets.UTF_8);
        try (RunningServer s = RunningServer.start("small-heap-approvals", TOKEN, SMALL_HEAP, "--config",
                config.toString(), "--sample-tools", "--gateway", "127.0.0.1:0", "--log-level", "warn")) {
            int sockets = 8;
            int turns = 30;
            List<WebSocket> open = new ArrayList<>();
            List<Events> listeners = flood(s, TOKEN, sockets, turns, open);
            // every turn is either asked (it waits) or refused at once
            await().atMost(Duration.ofSeconds(120)).until(() -> listeners.stream()
                    .mapToLong(l -> l.count("approval_request") + l.rejected()).sum() == (long) sockets * turns);
            long asked = listeners.stream().mapToLong(l -> l.count("approval_request")).sum();
            long rejected = listeners.stream().mapToLong(Events::rejected).sum();
            // each waiting turn weighs about 1.4 MB (its 700,000 characters at two bytes each): 64 MiB holds ~47
            assertThat(asked).isBetween(30L, 60L);
            assertThat(rejected).isEqualTo((long) sockets * turns - asked);
            JsonNode refused = listeners.stream().flatMap(l -> l.events.stream())
                    .filter(e -> e.path("error").path("code").asText().equals("REJECTED")).findFirst().orElseThrow();
            assertThat(refused.path("content").asText()).startsWith("Tool not executed: too many calls wait for"
                    + " approval now (").endsWith(" of at most 67108864 bytes of their turns are held); try again once"
                    + " some are answered.");

            // answering gives the bytes back: a new turn is asked again
            JsonNode request = listeners.stream().flatMap(l -> l.events.stream())
                    .filter(e -> e.path("type").asText().equals("approval_request")).findFirst().orElseThrow();
            int owner = 0;
            for (int i = 0; i < sockets; i++) {
                if (listeners.get(i).events.contains(request)) {
                    owner = i;
                }
            }
            open.get(owner).sendText("{\"type\":\"approval_response\",\"stream_id\":\"" + request.path("stream_id").asText()
                    + "\",\"approval_id\":\"" + request.path("approval_id").asText() + "\",\"decision\":\"deny\"}", true).join();
            Events answered = listeners.get(owner);
            String deniedStream = request.path("stream_id").asText();
            await().atMost(Duration.ofSeconds(30)).until(() -> answered.events.stream().anyMatch(e ->
                    e.path("type").asText().equals("tool_result") && e.path("stream_id").asText().equals(deniedStream)
                            && e.path("error").path("code").asText().equals("NOT_APPROVED")));
            Events fresh = new Events();
            WebSocket ws = HTTP.newWebSocketBuilder().header("Authorization", "Bearer " + TOKEN)
                    .buildAsync(URI.create("ws://127.0.0.1:" + s.port + "/v1/ws"), fresh).join();
            ws.sendText("{\"type\":\"tool_call\",\"stream_id\":\"fresh\",\"name\":\"wipe\",\"arguments\":{\"target\":\"x\"}}",
                    true).join();
            await().atMost(Duration.ofSeconds(30)).until(() -> fresh.count("approval_request") > 0 || fresh.rejected() > 0);
            assertThat(fresh.count("approval_request")).isEqualTo(1);
            assertThat(healthz(s)).isEqualTo(200);
            assertThat(s.process.stderr()).doesNotContain("OutOfMemoryError");
            for (WebSocket w : open) {
                w.abort();
            }
            ws.abort();
        }
    }

    /**
     * M8 as it was found: one member token, 8 WebSockets. With the default bounds (64 MiB in all, 16
     * MiB per principal) that token's waiting turns are held to its own 16 MiB, and the operator's
     * token, another principal, is still asked.
     */
    @Test
    void oneMemberTokenWithEightWebSocketsIsHeldToItsOwnBound_anotherTokenIsStillAsked(@TempDir Path dir)
            throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, """
                approval:
                  mode: auto
                gateway:
                  port: 0
                  token: ${OPS_TOKEN}
                  tokens:
                    - {name: member-bot, token: "${MEMBER_TOKEN}", maxPermission: member}
                """, StandardCharsets.UTF_8);
        Map<String, String> env = Map.of("JAVA_TOOL_OPTIONS", "-Xmx512m", "OPS_TOKEN", TOKEN, "MEMBER_TOKEN",
                "member-secret");
        try (RunningServer s = RunningServer.start("small-heap-member", null, env, "--config", config.toString(),
                "--sample-tools", "--log-level", "warn")) {
            int sockets = 8;
            int turns = 30;
            List<WebSocket> open = new ArrayList<>();
            List<Events> listeners = flood(s, "member-secret", sockets, turns, open);
            await().atMost(Duration.ofSeconds(120)).until(() -> listeners.stream()
                    .mapToLong(l -> l.count("approval_request") + l.rejected()).sum() == (long) sockets * turns);
            long asked = listeners.stream().mapToLong(l -> l.count("approval_request")).sum();
            // each waiting turn weighs about 1.4 MB: the member's 16 MiB holds ~11, far below the 64 MiB total
            assertThat(asked).isBetween(6L, 16L);
            assertThat(listeners.stream().mapToLong(Events::rejected).sum()).isEqualTo((long) sockets * turns - asked);
            JsonNode refused = listeners.stream().flatMap(l -> l.events.stream())
                    .filter(e -> e.path("error").path("code").asText().equals("REJECTED")).findFirst().orElseThrow();
            assertThat(refused.path("content").asText()).startsWith("Tool not executed: too many calls wait for"
                    + " approval now (").contains(" of at most 16777216 bytes of their turns are held)");

            Events ops = new Events();
            WebSocket ws = HTTP.newWebSocketBuilder().header("Authorization", "Bearer " + TOKEN)
                    .buildAsync(URI.create("ws://127.0.0.1:" + s.port + "/v1/ws"), ops).join();
            open.add(ws);
            ws.sendText("{\"type\":\"tool_call\",\"stream_id\":\"ops\",\"name\":\"wipe\",\"arguments\":{\"target\":\""
                    + "w".repeat(700_000) + "\"}}", true).join();
            await().atMost(Duration.ofSeconds(30)).until(() -> ops.count("approval_request") > 0 || ops.rejected() > 0);
            assertThat(ops.count("approval_request")).as("the operator's token is another principal: asked").isEqualTo(1);
            assertThat(healthz(s)).isEqualTo(200);
            assertThat(s.process.stderr()).doesNotContain("OutOfMemoryError");
            for (WebSocket w : open) {
                w.abort();
            }
        }
    }
}
