package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.bus.tck.Brokers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 11.2 end to end: limits from toolbus.yaml on real {@code serve} processes, reloaded live, shared on Redis. */
class LimitsServeIT {

    private static final String TOKEN = "limits-secret";

    /** POSTs one turn of {@code calls} calls of {@code tool} to the gateway; the tool_result events. */
    private static List<JsonNode> turn(RunningServer s, String turnId, String user, String tool, String args,
                                       int calls) throws Exception {
        StringBuilder c = new StringBuilder();
        for (int i = 0; i < calls; i++) {
            c.append(i == 0 ? "" : ",").append("{\"tool_call_id\":\"").append(turnId).append('-').append(i)
                    .append("\",\"name\":\"").append(tool).append("\",\"arguments\":").append(args).append('}');
        }
        String body = "{\"type\":\"tool_calls\",\"stream_id\":\"s-" + turnId + "\",\"turn_id\":\"" + turnId
                + "\",\"context\":{\"user_id\":\"" + user + "\"},\"calls\":[" + c + "]}";
        String out = RunningServer.curl("-s", s.url() + "/v1/turns", "-H", "Authorization: Bearer " + TOKEN,
                "-d", body);
        List<JsonNode> results = new ArrayList<>();
        for (JsonNode e : RunningServer.JSON.readTree(out)) {
            if (e.path("type").asText().equals("tool_result")) {
                results.add(e);
            }
        }
        assertThat(results).as(out).hasSize(calls);
        return results;
    }

    private static List<String> codes(List<JsonNode> results) {
        return results.stream().map(r -> r.path("is_error").asBoolean() ? r.path("error").path("code").asText() : "ok")
                .toList();
    }

    @Test
    void aRateLimitedCallIsAToolResultWithRetryAfterAndAReloadAppliesNewLimits(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        String first = """
                limits:
                  rules:
                    - name: echo-per-user
                      tools: [echo]
                      rate: 2
                      periodMs: 600000
                      per: user
                """;
        Files.writeString(config, first, StandardCharsets.UTF_8);
        try (RunningServer s = RunningServer.start("serve-limits", TOKEN, "--config", config.toString(),
                "--sample-tools", "--gateway", "127.0.0.1:0")) {
            List<JsonNode> r = turn(s, "t1", "alice", "echo", "{\"text\":\"hi\"}", 3);
            assertThat(codes(r)).containsExactly("ok", "ok", "RATE_LIMITED");
            JsonNode error = r.get(2).path("error");
            assertThat(error.path("retry_after_ms").asLong()).isBetween(299_000L, 300_000L);
            assertThat(error.path("message").asText()).contains("rate limited (rule echo-per-user)");
            assertThat(codes(turn(s, "t2", "bob", "echo", "{\"text\":\"hi\"}", 1))).containsExactly("ok");
            assertThat(RunningServer.curl("-s", s.url() + "/metrics", "-H", "Authorization: Bearer " + TOKEN))
                    .contains("toolbus_limits_refused_total{reason=\"rate\",rule=\"echo-per-user\"} 1.0");

            Files.writeString(config, """
                    limits:
                      rules:
                        - {name: two-adds, tools: [add], maxCallsPerTool: 2}
                    """, StandardCharsets.UTF_8);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    codes(turn(s, "t3-" + UUID.randomUUID(), "alice", "add", "{\"a\":1,\"b\":2}", 3)).get(2)
                            .equals("LIMIT_EXCEEDED"));
            assertThat(codes(turn(s, "t4", "alice", "echo", "{\"text\":\"hi\"}", 3))).as("the old rule is gone")
                    .containsExactly("ok", "ok", "ok");

            // a nonsense edit keeps the last good limits (fail closed)
            Files.writeString(config, """
                    limits:
                      rules:
                        - {name: two-adds, tools: [add], maxCallsPerTool: lots}
                    """, StandardCharsets.UTF_8);
            await().atMost(Duration.ofSeconds(30)).until(() -> s.process.stderr()
                    .contains("keeping the last good limits"));
            assertThat(codes(turn(s, "t5", "alice", "add", "{\"a\":1,\"b\":2}", 3)))
                    .containsExactly("ok", "ok", "LIMIT_EXCEEDED");
        }
    }

    @Test
    void theSidecarAnswersARateLimitedCallOnStdout(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, "limits:\n  rules:\n    - {name: one-add, tools: [add], rate: 1, periodMs: 60000}\n"
                + "    - {name: slow-echo, tools: [echo], concurrency: 1}\n", StandardCharsets.UTF_8);
        ToolbusProcess p = ToolbusProcess.sidecar("sidecar-limits", "--config", config.toString());
        try {
            p.send("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t1\",\"calls\":["
                    + "{\"tool_call_id\":\"c1\",\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}},"
                    + "{\"tool_call_id\":\"c2\",\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}},"
                    + "{\"tool_call_id\":\"c3\",\"name\":\"echo\",\"arguments\":{\"text\":\"y\"}},"
                    + "{\"tool_call_id\":\"c4\",\"name\":\"add\",\"arguments\":{\"a\":3,\"b\":4}}]}");
            assertThat(p.closeInput().awaitExit(Duration.ofSeconds(60))).as(p.stderr()).isZero();
            List<JsonNode> results = p.events().stream().filter(e -> e.path("type").asText().equals("tool_result"))
                    .toList();
            assertThat(results).extracting(r -> r.path("tool_call_id").asText()).containsExactly("c1", "c2", "c3", "c4");
            assertThat(codes(results)).containsExactly("ok", "ok", "ok", "RATE_LIMITED");
            assertThat(results.get(3).path("error").path("retry_after_ms").asLong()).isBetween(59_000L, 60_000L);
            assertThat(results.get(3).path("attempts").asInt()).isZero();
        } finally {
            p.close();
        }
    }

    @Test
    void twoServeProcessesOnOneRedisShareOneBucket(@TempDir Path dir) throws Exception {
        String url = Brokers.redisUrl();
        String db = url + (url.endsWith("/") ? "" : "/") + "9";
        String rule = "shared-" + UUID.randomUUID().toString().substring(0, 8);
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, "bus:\n  type: redis\n  calls: " + rule + ":calls\n  results: \"" + rule
                + ":results:{stream_id}\"\nlimits:\n  store: redis\n  rules:\n    - {name: " + rule
                + ", tools: [add], rate: 5, periodMs: 600000}\n", StandardCharsets.UTF_8);
        try (RunningServer a = RunningServer.start("serve-limits-a", TOKEN, "--config", config.toString(),
                "--bus", db, "--sample-tools", "--gateway", "127.0.0.1:0", "--instance", "limits-a");
             RunningServer b = RunningServer.start("serve-limits-b", TOKEN, "--config", config.toString(),
                     "--bus", db, "--sample-tools", "--gateway", "127.0.0.1:0", "--instance", "limits-b")) {
            List<String> all = new ArrayList<>();
            all.addAll(codes(turn(a, "a1", "u", "add", "{\"a\":1,\"b\":2}", 2)));
            all.addAll(codes(turn(b, "b1", "u", "add", "{\"a\":1,\"b\":2}", 2)));
            all.addAll(codes(turn(a, "a2", "u", "add", "{\"a\":1,\"b\":2}", 2)));
            all.addAll(codes(turn(b, "b2", "u", "add", "{\"a\":1,\"b\":2}", 2)));
            // 8 calls through two instances, one bucket of 5 on the Redis both use
            assertThat(all).containsExactly("ok", "ok", "ok", "ok", "ok", "RATE_LIMITED", "RATE_LIMITED",
                    "RATE_LIMITED");
            assertThat(a.process.stderr()).contains("limits: shared token buckets on");
        }
    }
}
