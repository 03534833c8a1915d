package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22 end to end: the rules over the call and the callers from toolbus.yaml on real {@code serve}
 * processes, over the stdio sidecar and the gateway, reloaded live.
 */
class RulesServeIT {

    private static final String TOKEN = "rules-secret";
    private static final Duration EXIT = Duration.ofSeconds(60);

    private static final String CONFIG = """
            tools:
              allowedCallers:
                add: [direct, programmatic]
            rules:
              - name: no-secrets
                tools: [echo]
                when: "args.text.contains('secret') && ctx.user != 'owner'"
                then: deny
                message: "Secrets are not echoed."
              - name: small-sums-from-code
                tools: [add]
                when: "caller.type == 'programmatic' && args.a > 1000"
                then: deny
                message: "Code adds small numbers only."
              - name: ask-for-wipes
                tools: [wipe]
                when: "true"
                then: ask
                message: "Wiping needs a person."
            """;

    private static String call(String id, String name, String args, String caller) {
        return "{\"tool_call_id\":\"" + id + "\",\"name\":\"" + name + "\",\"arguments\":" + args
                + (caller == null ? "" : ",\"caller\":" + caller) + "}";
    }

    private static String turn(String stream, String turn, String user, String... calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                + "\",\"context\":{\"user_id\":\"" + user + "\"},\"calls\":[" + String.join(",", calls) + "]}";
    }

    private static JsonNode result(List<JsonNode> events, String id) {
        return events.stream().filter(e -> e.path("type").asText().equals("tool_result")
                && e.path("tool_call_id").asText().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no result " + id + " in " + events));
    }

    private static String outcome(JsonNode r) {
        return r.path("is_error").asBoolean() ? r.path("error").path("code").asText() + ": " + r.path("content").asText()
                : "ok: " + r.path("content").asText();
    }

    static final String ANTHROPIC = "{\"type\":\"code_execution_20250825\",\"tool_id\":\"srvtoolu_01\"}";
    static final String OPENAI = "{\"type\":\"program\",\"caller_id\":\"call_prog_1\"}";

    @Test
    void theSidecar_appliesRulesAndCallers_inEachProviderShape(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, CONFIG, StandardCharsets.UTF_8);
        try (ToolbusProcess p = ToolbusProcess.sidecar("rules-sidecar", "--config", config.toString())) {
            p.send(turn("s:1", "t1", "u1",
                    call("c1", "echo", "{\"text\":\"my secret\"}", null),
                    call("c2", "echo", "{\"text\":\"hello\"}", null),
                    call("c3", "add", "{\"a\":2,\"b\":3}", ANTHROPIC),
                    call("c4", "add", "{\"a\":2000,\"b\":3}", OPENAI),
                    call("c5", "echo", "{\"text\":\"from code\"}", OPENAI),
                    call("c6", "add", "{\"a\":2000,\"b\":3}", "{\"type\":\"direct\"}"),
                    call("c7", "wipe", "{\"target\":\"disk\"}", null)));
            p.send(turn("s:2", "t2", "owner", call("c8", "echo", "{\"text\":\"my secret\"}", null)));
            assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();
            List<JsonNode> ev = p.events();
            assertThat(outcome(result(ev, "c1"))).isEqualTo("NOT_ALLOWED: Secrets are not echoed.");
            assertThat(outcome(result(ev, "c2"))).isEqualTo("ok: hello");
            assertThat(result(ev, "c3").path("data").path("sum").asLong()).isEqualTo(5);
            assertThat(outcome(result(ev, "c4"))).isEqualTo("NOT_ALLOWED: Code adds small numbers only.");
            assertThat(outcome(result(ev, "c5"))).isEqualTo(
                    "NOT_ALLOWED: Tool echo cannot be called by a programmatic caller; it allows: direct.");
            assertThat(result(ev, "c6").path("data").path("sum").asLong()).isEqualTo(2003);
            // approval is off in this config: a rule that asks cannot be asked
            assertThat(outcome(result(ev, "c7"))).isEqualTo("NOT_ALLOWED: Tool wipe not executed: the rule "
                    + "'ask-for-wipes' asks for a person's approval, and approval is off here.");
            assertThat(outcome(result(ev, "c8"))).isEqualTo("ok: my secret");
            // a bad caller is a bad event, and the sidecar goes on
            assertThat(ev).anySatisfy(e -> {
                assertThat(e.path("type").asText()).isEqualTo("turn_completed");
                assertThat(e.path("turn_id").asText()).isEqualTo("t2");
            });
        }
    }

    @Test
    void aBadCaller_isABadEvent(@TempDir Path dir) throws Exception {
        try (ToolbusProcess p = ToolbusProcess.sidecar("rules-bad-caller")) {
            p.send(turn("s:b", "b1", "u1", call("c1", "echo", "{\"text\":\"x\"}", "{\"type\":\"robot\"}")));
            p.send(turn("s:b", "b2", "u1", call("c2", "echo", "{\"text\":\"after\"}", null)));
            assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();
            List<JsonNode> ev = p.events();
            assertThat(ev).anySatisfy(e -> {
                assertThat(e.path("type").asText()).isEqualTo("error");
                assertThat(e.path("code").asText()).isEqualTo("BAD_EVENT");
                assertThat(e.path("message").asText()).contains("calls[0].caller.type 'robot'");
            });
            assertThat(outcome(result(ev, "c2"))).isEqualTo("ok: after");
        }
    }

    /** POSTs one turn to the gateway; its events. */
    private static List<JsonNode> post(RunningServer s, String body) throws Exception {
        String out = RunningServer.curl("-s", s.url() + "/v1/turns", "-H", "Authorization: Bearer " + TOKEN, "-d", body);
        List<JsonNode> events = new ArrayList<>();
        RunningServer.JSON.readTree(out).forEach(events::add);
        return events;
    }

    @Test
    void theGateway_appliesRules_andAReloadAppliesToTheNextCall_andBadRulesKeepTheLastGood(@TempDir Path dir)
            throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, CONFIG, StandardCharsets.UTF_8);
        try (RunningServer s = RunningServer.start("rules-gateway", TOKEN, "--config", config.toString(),
                "--sample-tools", "--gateway", "127.0.0.1:0")) {
            List<JsonNode> ev = post(s, turn("g:1", "t1", "u1", call("c1", "echo", "{\"text\":\"a secret\"}", null),
                    call("c2", "add", "{\"a\":1,\"b\":1}", ANTHROPIC), call("c3", "add", "{\"a\":5000,\"b\":1}", OPENAI)));
            assertThat(outcome(result(ev, "c1"))).isEqualTo("NOT_ALLOWED: Secrets are not echoed.");
            assertThat(result(ev, "c2").path("data").path("sum").asLong()).isEqualTo(2);
            assertThat(outcome(result(ev, "c3"))).isEqualTo("NOT_ALLOWED: Code adds small numbers only.");
            assertThat(RunningServer.curl("-s", s.url() + "/metrics", "-H", "Authorization: Bearer " + TOKEN))
                    .contains("toolbus_rules_decisions_total{outcome=\"deny\",rule=\"no-secrets\"} 1.0");

            // a reload: secrets may be echoed, but not "hello"
            Files.writeString(config, """
                    rules:
                      - name: no-hello
                        tools: [echo]
                        when: "args.text == 'hello'"
                        then: deny
                        message: "No hello."
                    """, StandardCharsets.UTF_8);
            await().atMost(Duration.ofSeconds(30)).until(() -> outcome(result(post(s, turn("g:" + UUID.randomUUID(),
                    "t", "u1", call("c", "echo", "{\"text\":\"hello\"}", null))), "c")).equals("NOT_ALLOWED: No hello."));
            assertThat(outcome(result(post(s, turn("g:2", "t2", "u1", call("c4", "echo", "{\"text\":\"a secret\"}",
                    null))), "c4"))).isEqualTo("ok: a secret");
            // the override is gone with the reload: add is direct only again
            assertThat(outcome(result(post(s, turn("g:3", "t3", "u1", call("c5", "add", "{\"a\":1,\"b\":1}",
                    ANTHROPIC))), "c5"))).startsWith("NOT_ALLOWED: Tool add cannot be called by a programmatic caller");

            // rules that do not compile: the file is refused, the last good rules stay
            Files.writeString(config, """
                    rules:
                      - name: broken
                        tools: [echo]
                        when: "args.text =="
                        then: deny
                    """, StandardCharsets.UTF_8);
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(10)).until(() ->
                    outcome(result(post(s, turn("g:" + UUID.randomUUID(), "t", "u1",
                            call("c", "echo", "{\"text\":\"hello\"}", null))), "c")).equals("NOT_ALLOWED: No hello."));
        }
    }
}
