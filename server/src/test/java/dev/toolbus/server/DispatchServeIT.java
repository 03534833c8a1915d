package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * Issue 11 item 1 end to end: {@code toolbus serve} with {@code dispatch} on in its toolbus.yaml (the key
 * from {@code ${DISPATCH_KEY}}), against a local HTTP server speaking the chat-completions wire. The
 * gateway's {@code GET /v1/tools?text=} narrows to the model's groups inside the policy, falls back to the
 * full list on every failure, caches per stream and text, counts each outcome, and never logs the key
 * (the process runs at {@code --log-level debug}).
 */
class DispatchServeIT {

    private static final String TOKEN = "dispatch-secret";
    private static final String KEY = "sk-dispatch-it-7f3a9c";

    /** What the fake model answers: status and body, after a delay. */
    record Answer(int status, String body, Duration delay) {
    }

    private DisposableServer model;
    private final AtomicReference<Function<JsonNode, Answer>> behaviour = new AtomicReference<>();
    private final List<JsonNode> requests = new CopyOnWriteArrayList<>();
    private final List<String> auth = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startModel() {
        model = HttpServer.create().host("127.0.0.1").port(0)
                .route(r -> r.post("/v1/chat/completions", (req, res) -> req.receive().aggregate().asString()
                        .flatMap(body -> {
                            JsonNode json;
                            try {
                                json = RunningServer.JSON.readTree(body);
                            } catch (Exception e) {
                                return Mono.error(e);
                            }
                            requests.add(json);
                            auth.add(String.valueOf(req.requestHeaders().get("Authorization")));
                            Answer a = behaviour.get().apply(json);
                            Mono<Void> send = res.status(a.status()).header("Content-Type", "application/json")
                                    .sendString(Mono.just(a.body())).then();
                            return a.delay().isZero() ? send : Mono.delay(a.delay()).then(send);
                        })))
                .bindNow();
    }

    @AfterEach
    void stopModel() {
        model.disposeNow();
    }

    private static String content(String text) {
        return "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":"
                + RunningServer.JSON.valueToTree(text) + "}}]}";
    }

    private static String toolCall(String arguments) {
        return "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"x\","
                + "\"type\":\"function\",\"function\":{\"name\":\"choose\",\"arguments\":"
                + RunningServer.JSON.valueToTree(arguments) + "}}]}}]}";
    }

    private static Answer ok(String body) {
        return new Answer(200, body, Duration.ZERO);
    }

    private static List<String> tools(RunningServer s, String stream, String text) throws Exception {
        return s.toolNames("stream_id=" + stream + (text == null ? ""
                : "&text=" + URLEncoder.encode(text, StandardCharsets.UTF_8)));
    }

    @Test
    void listToolsWithATextIsNarrowedInsideThePolicy_andEveryFailureGivesTheFullList(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, """
                groups:
                  - {name: math, description: "Arithmetic and counting", tools: [add, count]}
                  - {name: art, description: "Drawing pictures", tools: [draw]}
                  - {name: talk, description: "Echoing and greeting", tools: [echo, greet]}
                  - {name: danger, description: "Wiping things", tools: [wipe]}
                tools:
                  deny: [greet, wipe]
                dispatch:
                  enabled: true
                  maxGroups: 2
                  cacheTtlMs: 600000
                  model:
                    baseUrl: "http://127.0.0.1:%d/v1"
                    name: tiny
                    apiKey: "${DISPATCH_KEY}"
                    # generous: the first ask of a fresh process (connection, JIT) must not time out on a loaded machine
                    timeoutMs: 4000
                """.formatted(model.port()), StandardCharsets.UTF_8);
        try (RunningServer s = RunningServer.start("serve-dispatch", TOKEN, Map.of("DISPATCH_KEY", KEY),
                "--config", config.toString(), "--sample-tools", "--gateway", "127.0.0.1:0", "--log-level", "debug")) {
            List<String> full = tools(s, "s0", null);
            assertThat(full).contains("add", "count", "draw", "echo").doesNotContain("greet", "wipe");
            assertThat(requests).as("no text: the model is not asked").isEmpty();

            // a JSON answer naming three groups, one of them not offered: capped at maxGroups, inside the policy
            behaviour.set(req -> ok(content("{\"groups\": [\"danger\", \"talk\", \"art\", \"math\"]}")));
            List<String> narrowed = tools(s, "s1", "say hi and draw a cat");
            // the sample tools are in-process plugin tools: outside the chosen groups only CORE tools would stay
            assertThat(narrowed).containsExactly("draw", "echo");
            JsonNode req = requests.get(0);
            assertThat(req.path("model").asText()).isEqualTo("tiny");
            String system = req.path("messages").path(0).path("content").asText();
            assertThat(system).contains("- math: Arithmetic and counting", "- art: Drawing pictures",
                    "- talk: Echoing and greeting").doesNotContain("danger"); // its only tool is denied
            assertThat(req.path("messages").path(1).path("content").asText()).isEqualTo("say hi and draw a cat");
            assertThat(auth.get(0)).isEqualTo("Bearer " + KEY);

            // cached per stream and text: the same pair asks nothing, another stream asks again
            assertThat(tools(s, "s1", "say hi and draw a cat")).isEqualTo(narrowed);
            assertThat(requests).hasSize(1);
            behaviour.set(req2 -> ok(toolCall("{\"groups\":[\"math\"]}")));
            assertThat(tools(s, "s2", "say hi and draw a cat")).as("a tool-call answer")
                    .containsExactly("add", "count");
            assertThat(requests).hasSize(2);

            // every failure: the full policy-filtered list
            behaviour.set(r -> new Answer(500, "{\"error\":\"overloaded, key " + KEY + "\"}", Duration.ZERO));
            assertThat(tools(s, "f1", "t")).isEqualTo(full);
            behaviour.set(r -> ok("<html>garbage</html>"));
            assertThat(tools(s, "f2", "t")).isEqualTo(full);
            behaviour.set(r -> ok(content("I would pick the math group.")));
            assertThat(tools(s, "f3", "t")).isEqualTo(full);
            behaviour.set(r -> ok(content("{\"groups\": []}")));
            assertThat(tools(s, "f4", "t")).as("an empty choice (ChatAI: no tools)").isEqualTo(full);
            behaviour.set(r -> new Answer(200, content("{\"groups\": [\"math\"]}"), Duration.ofSeconds(30)));
            assertThat(tools(s, "f5", "t")).as("slower than timeoutMs").isEqualTo(full);
            // a fallback is not cached: the next ask of that stream and text asks again
            behaviour.set(r -> ok(content("{\"groups\": [\"art\"]}")));
            int before = requests.size();
            assertThat(tools(s, "f4", "t")).containsExactly("draw");
            assertThat(requests).hasSize(before + 1);

            String metrics = RunningServer.curl("-s", s.url() + "/metrics", "-H", "Authorization: Bearer " + TOKEN);
            assertThat(metrics).contains("toolbus_dispatch_decisions_total{outcome=\"chosen\"} 3.0",
                    "toolbus_dispatch_decisions_total{outcome=\"cached\"} 1.0",
                    "toolbus_dispatch_decisions_total{outcome=\"fallback_error\"} 1.0",
                    "toolbus_dispatch_decisions_total{outcome=\"fallback_unparsable\"} 2.0",
                    "toolbus_dispatch_decisions_total{outcome=\"fallback_empty\"} 1.0",
                    "toolbus_dispatch_decisions_total{outcome=\"fallback_timeout\"} 1.0");
            String stderr = s.process.stderr();
            assertThat(stderr).contains("dispatch on: tiny at http://127.0.0.1:" + model.port() + "/v1")
                    .contains("dispatch for stream f1 failed (error): the dispatch model answered HTTP 500")
                    .contains("dispatch for stream f5 failed (timeout)");
            assertThat(stderr).as("the API key is never logged, even at debug").doesNotContain(KEY);
            assertThat(String.join("\n", s.process.lines())).doesNotContain(KEY);
        }
    }
}
