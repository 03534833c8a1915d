package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Output schemas and callers declared by a real Python stdio plugin under a real {@code toolbus serve}
 * sidecar: a result whose data does not match the tool's {@code output_schema} becomes
 * {@code INVALID_OUTPUT} naming the path; {@code allowed_callers} lets code call the tool; listings show
 * both.
 */
class OutputSchemaServeIT {

    private static final Duration EXIT = Duration.ofSeconds(60);

    /** {@code py_total}: answers {"total": n} for n >= 0, {"total": "minus"} otherwise. */
    private static final String PLUGIN = """
            import json, sys
            TOOLS = [{"name": "py_total", "description": "A total.",
                      "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
                      "output_schema": {"type": "object", "required": ["total"],
                                        "properties": {"total": {"type": "integer", "minimum": 0}}},
                      "allowed_callers": ["direct", "code_execution_20250825"]}]
            for line in sys.stdin:
                request = json.loads(line)
                method = request.get("method")
                if method == "activate":
                    print(json.dumps({"id": request["id"], "tools": TOOLS}), flush=True)
                elif method == "execute_tool":
                    n = json.loads(request["params"].get("input") or "{}").get("n", 0)
                    total = n if n >= 0 else "minus"
                    print(json.dumps({"id": request["id"], "result": {"total": total}}), flush=True)
                elif method == "deactivate":
                    print(json.dumps({"id": request["id"]}), flush=True)
                    break
            """;

    private static String call(String id, int n, String caller) {
        return "{\"tool_call_id\":\"" + id + "\",\"name\":\"py_total\",\"arguments\":{\"n\":" + n + "}"
                + (caller == null ? "" : ",\"caller\":" + caller) + "}";
    }

    @Test
    void aPluginsOutputSchemaAndCallers_areEnforced(@TempDir Path dir) throws Exception {
        Path plugin = Files.createDirectories(dir.resolve("totals"));
        Files.writeString(plugin.resolve("totals.py"), PLUGIN, StandardCharsets.UTF_8);
        Files.writeString(plugin.resolve("plugin.json"), "{\"id\":\"totals\",\"command\":\"python3\","
                + "\"args\":[\"-u\",\"totals.py\"],\"activationTimeoutMs\":10000}", StandardCharsets.UTF_8);
        try (ToolbusProcess p = ToolbusProcess.sidecar("output-schema", "--plugins", dir.toString())) {
            p.send("{\"type\":\"tool_calls\",\"stream_id\":\"s:o\",\"turn_id\":\"o1\",\"calls\":["
                    + call("ok", 4, null) + "," + call("bad", -1, null) + ","
                    + call("code", 2, "{\"type\":\"code_execution_20250825\",\"tool_id\":\"srvtoolu_1\"}") + "]}");
            p.send("{\"type\":\"list_tools\",\"stream_id\":\"s:o\",\"request_id\":\"l1\",\"format\":\"anthropic\"}");
            p.send("{\"type\":\"list_tools\",\"stream_id\":\"s:o\",\"request_id\":\"l2\",\"format\":\"mcp\"}");
            assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();
            List<JsonNode> ev = p.events();
            JsonNode ok = result(ev, "ok");
            assertThat(ok.path("is_error").asBoolean()).as(ok.toString()).isFalse();
            assertThat(ok.path("data").path("total").asInt()).isEqualTo(4);
            JsonNode bad = result(ev, "bad");
            assertThat(bad.path("error").path("code").asText()).isEqualTo("INVALID_OUTPUT");
            assertThat(bad.path("content").asText()).isEqualTo(
                    "The result of tool py_total does not match its output schema: data.total: string found, integer expected");
            assertThat(result(ev, "code").path("data").path("total").asInt()).isEqualTo(2);
            JsonNode anthropic = tool(ev, "l1");
            assertThat(anthropic.path("allowed_callers").toString()).isEqualTo("[\"direct\",\"code_execution_20250825\"]");
            JsonNode mcp = tool(ev, "l2");
            assertThat(mcp.path("outputSchema").path("required").toString()).isEqualTo("[\"total\"]");
        }
    }

    @Test
    void overTheGateway_aResultBreakingItsOutputSchemaIsInvalidOutput_andCodeMayCallInEitherProvidersShape(
            @TempDir Path dir) throws Exception {
        Path plugin = Files.createDirectories(dir.resolve("totals"));
        Files.writeString(plugin.resolve("totals.py"), PLUGIN, StandardCharsets.UTF_8);
        Files.writeString(plugin.resolve("plugin.json"), "{\"id\":\"totals\",\"command\":\"python3\","
                + "\"args\":[\"-u\",\"totals.py\"],\"activationTimeoutMs\":10000}", StandardCharsets.UTF_8);
        try (RunningServer s = RunningServer.start("output-schema-gateway", "schema-secret", "--plugins", dir.toString(),
                "--gateway", "127.0.0.1:0")) {
            String body = "{\"type\":\"tool_calls\",\"stream_id\":\"g:o\",\"turn_id\":\"g1\",\"calls\":["
                    + call("ok", 7, null) + "," + call("bad", -3, null) + ","
                    + call("anthropic", 2, "{\"type\":\"code_execution_20250825\",\"tool_id\":\"srvtoolu_2\"}") + ","
                    + call("openai", 3, "{\"type\":\"program\",\"caller_id\":\"call_prog_2\"}") + "]}";
            String out = RunningServer.curl("-s", s.url() + "/v1/turns", "-H", "Authorization: Bearer schema-secret",
                    "-d", body);
            List<JsonNode> ev = new java.util.ArrayList<>();
            RunningServer.JSON.readTree(out).forEach(ev::add);
            assertThat(result(ev, "ok").path("data").path("total").asInt()).isEqualTo(7);
            JsonNode bad = result(ev, "bad");
            assertThat(bad.path("error").path("code").asText()).as(out).isEqualTo("INVALID_OUTPUT");
            assertThat(bad.path("content").asText()).contains("data.total");
            // the plugin allows programmatic callers (it names Anthropic's code execution): code in either
            // provider's shape runs it
            assertThat(result(ev, "anthropic").path("data").path("total").asInt()).isEqualTo(2);
            assertThat(result(ev, "openai").path("data").path("total").asInt()).as(out).isEqualTo(3);
        }
    }

    private static JsonNode result(List<JsonNode> events, String id) {
        return events.stream().filter(e -> e.path("type").asText().equals("tool_result")
                && e.path("tool_call_id").asText().equals(id)).findFirst()
                .orElseThrow(() -> new AssertionError("no result " + id + " in " + events));
    }

    private static JsonNode tool(List<JsonNode> events, String requestId) {
        JsonNode tools = events.stream().filter(e -> e.path("type").asText().equals("tools")
                && e.path("request_id").asText().equals(requestId)).findFirst()
                .orElseThrow(() -> new AssertionError("no tools " + requestId + " in " + events)).path("tools");
        for (JsonNode t : tools) {
            if (t.path("name").asText().equals("py_total")) {
                return t;
            }
        }
        throw new AssertionError("py_total not listed: " + tools);
    }
}
