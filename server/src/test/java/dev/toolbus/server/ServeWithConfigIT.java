package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code toolbus serve --config docs/examples/toolbus.yaml --sample-tools} as a real process (on a free
 * port), answering real curl and the {@code call}, {@code tools} and {@code check-config} commands.
 */
class ServeWithConfigIT {

    static final Path SAMPLE = Path.of(System.getProperty("toolbus.root", "..")).toAbsolutePath().normalize()
            .resolve("docs/examples/toolbus.yaml");
    private static final String TOKEN = "it-secret";

    private static RunningServer server;

    @BeforeAll
    static void start() throws Exception {
        server = RunningServer.start("serve-config", TOKEN, "--config", SAMPLE.toString(), "--sample-tools",
                "--gateway", "127.0.0.1:0");
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static ToolbusProcess toolbus(String name, String... args) throws Exception {
        return ToolbusProcess.run(name, args);
    }

    private static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.path("type").asText()).toList();
    }

    @Test
    void startup_printsTheGatewayUrlOnStderr() {
        assertThat(server.process.stderr()).contains("gateway listening on " + server.url(),
                "port " + server.port);
        assertThat(server.process.lines()).isEmpty();
    }

    @Test
    void curl_postTurns_answersTheToolCallAsAJsonArray() throws Exception {
        String body = RunningServer.curl("-s", server.url() + "/v1/turns", "-H", "Authorization: Bearer " + TOKEN,
                "-d", "{\"type\":\"tool_call\",\"stream_id\":\"quickstart\",\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}}");

        JsonNode events = RunningServer.JSON.readTree(body);
        assertThat(events).hasSize(2);
        assertThat(events.get(0).path("type").asText()).isEqualTo("tool_result");
        assertThat(events.get(0).path("data").path("sum").asInt()).isEqualTo(42);
        assertThat(events.get(1).path("type").asText()).isEqualTo("turn_completed");
    }

    @Test
    void curl_withoutTheToken_gets401() throws Exception {
        String status = RunningServer.curl("-s", "-o", "/dev/null", "-w", "%{http_code}", server.url() + "/v1/turns",
                "-d", "{\"type\":\"tool_call\",\"stream_id\":\"s\",\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}");
        assertThat(status).isEqualTo("401");
    }

    @Test
    void call_printsTheTurnsEventsAsJsonLines() throws Exception {
        ToolbusProcess p = toolbus("call-echo", "call", "--url", server.url(), "--token", TOKEN, "--turn", "t-1",
                "--stream", "cli:it", "echo", "{\"text\":\"hi\"}");

        assertThat(p.exitCode()).as(p.stderr()).isZero();
        List<JsonNode> events = p.events();
        assertThat(types(events)).containsExactly("tool_result", "turn_completed");
        assertThat(events.get(0).path("content").asText()).isEqualTo("hi");
        assertThat(events.get(0).path("stream_id").asText()).isEqualTo("cli:it");
        assertThat(events.get(0).path("turn_id").asText()).isEqualTo("t-1");
    }

    @Test
    void call_sse_printsEachEventAsItArrives() throws Exception {
        ToolbusProcess p = toolbus("call-sse", "call", "--url", server.url(), "--token", TOKEN, "--sse",
                "draw", "{\"label\":\"a cat\"}");

        assertThat(p.exitCode()).as(p.stderr()).isZero();
        assertThat(types(p.events())).containsExactly("tool_result", "user_message", "turn_completed");
    }

    @Test
    void call_wholeEventFromAFile(@TempDir Path dir) throws Exception {
        Path event = dir.resolve("turn.json");
        Files.writeString(event, "{\"type\":\"tool_calls\",\"stream_id\":\"cli:file\",\"turn_id\":\"f1\",\"calls\":["
                + "{\"tool_call_id\":\"a\",\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}},"
                + "{\"tool_call_id\":\"b\",\"name\":\"no_such_tool\",\"arguments\":{}}]}");

        ToolbusProcess p = toolbus("call-event", "call", "--url", server.url(), "--token", TOKEN,
                "--event", event.toString());

        assertThat(p.exitCode()).as(p.stderr()).isZero();
        List<JsonNode> events = p.events();
        assertThat(types(events)).containsExactly("tool_result", "tool_result", "turn_completed");
        assertThat(events.get(0).path("data").path("sum").asInt()).isEqualTo(3);
        assertThat(events.get(1).path("error").path("code").asText()).isEqualTo("UNKNOWN_TOOL");
    }

    @Test
    void call_wrongToken_exits1WithTheErrorEvent() throws Exception {
        ToolbusProcess p = toolbus("call-bad-token", "call", "--url", server.url(), "--token", "wrong", "echo",
                "{\"text\":\"x\"}");

        assertThat(p.exitCode()).isEqualTo(1);
        assertThat(p.events()).singleElement()
                .satisfies(e -> assertThat(e.path("code").asText()).isEqualTo("PERMISSION_DENIED"));
        assertThat(p.stderr()).contains("HTTP 401");
    }

    @Test
    void call_badArguments_isAUsageError() throws Exception {
        ToolbusProcess p = toolbus("call-bad-args", "call", "--url", server.url(), "echo", "[1,2]");

        assertThat(p.exitCode()).isEqualTo(2);
        assertThat(p.stderr()).contains("ARGS_JSON must be a JSON object");
    }

    @Test
    void tools_remoteAndLocal_agree() throws Exception {
        ToolbusProcess remote = toolbus("tools-remote", "tools", "--url", server.url(), "--token", TOKEN, "--names",
                "--user", "u1", "--permission", "member");
        ToolbusProcess local = toolbus("tools-local", "tools", "--local", "--config", SAMPLE.toString(),
                "--sample-tools", "--names", "--user", "u1", "--permission", "member");

        assertThat(remote.exitCode()).as(remote.stderr()).isZero();
        assertThat(local.exitCode()).as(local.stderr()).isZero();
        assertThat(remote.lines()).containsExactlyInAnyOrder("echo", "add", "sleep", "fail", "draw", "progress", "greet",
                "ask_city", "wipe", "count");
        assertThat(local.lines()).containsExactlyInAnyOrderElementsOf(remote.lines());
    }

    @Test
    void tools_printsTheToolsEventInTheRequestedFormat() throws Exception {
        ToolbusProcess p = toolbus("tools-anthropic", "tools", "--url", server.url(), "--token", TOKEN,
                "--format", "anthropic", "--channel", "qq", "--provider", "anthropic", "--agent", "a1");

        assertThat(p.exitCode()).as(p.stderr()).isZero();
        JsonNode event = p.events().get(0);
        assertThat(event.path("type").asText()).isEqualTo("tools");
        assertThat(event.path("format").asText()).isEqualTo("anthropic");
        assertThat(event.path("tools").get(0).has("input_schema")).isTrue();
    }

    @Test
    void checkConfig_printsTheEffectiveConfigAndWarnings() throws Exception {
        ToolbusProcess p = toolbus("check-sample", "check-config", SAMPLE.toString(), "--sample-tools");

        assertThat(p.exitCode()).as(p.stderr()).isZero();
        String yaml = String.join("\n", p.lines());
        assertThat(yaml).contains("mode: hybrid", "gateway:", "port: 8765", "deny:", "web_fetch");
        assertThat(p.stderr()).contains("warning:", "workflow_tool", "is valid");
    }

    @Test
    void checkConfig_invalidOrMissingFile_exits1(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "tools:\n  deny: [echo\n");

        ToolbusProcess invalid = toolbus("check-invalid", "check-config", bad.toString());
        ToolbusProcess missing = toolbus("check-missing", "check-config", dir.resolve("nope.yaml").toString());

        assertThat(invalid.exitCode()).isEqualTo(1);
        assertThat(invalid.stderr()).contains("invalid YAML");
        assertThat(invalid.lines()).isEmpty();
        assertThat(missing.exitCode()).isEqualTo(1);
        assertThat(missing.stderr()).contains("cannot read config file");
    }

    @Test
    void checkConfig_badValues_areWarningsNotErrors(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "execution:\n  timeout: abc\ngateway:\n  prot: 1\n");

        ToolbusProcess p = toolbus("check-fallbacks", "check-config", file.toString());

        assertThat(p.exitCode()).as(p.stderr()).isZero();
        assertThat(String.join("\n", p.lines())).contains("timeout: 30000");
        assertThat(p.stderr()).contains("execution.timeout", "gateway.prot", "2 warnings");
    }
}
