package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11.4 through a real {@code toolbus serve} sidecar and a real Python stdio plugin: long results
 * are cut (the global {@code --max-result-chars}, and a plugin tool's own {@code maxResultChars} from
 * its {@code activate} declaration), then read back in full with {@code read_tool_result} calls; another
 * stream is refused.
 */
class ResultSizeIT {

    private static final Duration EXIT = Duration.ofSeconds(60);

    /** A plugin with one tool, {@code py_log}, that answers 1,000 numbered lines and declares a 3,000-character limit. */
    private static final String PLUGIN = """
            import json, sys
            TOOLS = [{"name": "py_log", "description": "A long log.", "maxResultChars": 3000,
                      "inputSchema": {"type": "object", "properties": {}}}]
            def text():
                return "\\n".join("entry %05d \\U0001F600 %s" % (i, "x" * (i % 7 + 1)) for i in range(1000))
            for line in sys.stdin:
                request = json.loads(line)
                method = request.get("method")
                if method == "activate":
                    print(json.dumps({"id": request["id"], "tools": TOOLS}), flush=True)
                elif method == "execute_tool":
                    print(json.dumps({"id": request["id"], "result": text()}), flush=True)
                elif method == "deactivate":
                    print(json.dumps({"id": request["id"]}), flush=True)
                    break
            """;

    private ToolbusProcess sidecar;

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    private static String expectedLog() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            if (i > 0) {
                sb.append('\n');
            }
            sb.append(String.format("entry %05d \uD83D\uDE00 %s", i, "x".repeat(i % 7 + 1)));
        }
        return sb.toString();
    }

    private static String turn(String stream, String turn, String id, String name, String args) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn + "\",\"calls\":[{"
                + "\"tool_call_id\":\"" + id + "\",\"name\":\"" + name + "\",\"arguments\":" + args + "}]}";
    }

    /** Sends one turn and waits for its {@code tool_result}. */
    private JsonNode call(String stream, String turn, String id, String name, String args) {
        sidecar.send(turn(stream, turn, id, name, args));
        return Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> sidecar.events().stream()
                .filter(e -> e.path("type").asText().equals("tool_result") && turn.equals(e.path("turn_id").asText()))
                .findFirst().orElse(null), e -> e != null);
    }

    /** Reads the rest of a cut result with read_tool_result calls from {@code offset}; the pieces joined. */
    private String readRest(String stream, String callId, int offset, int limit) {
        StringBuilder got = new StringBuilder();
        for (int n = 0; n < 100; n++) {
            JsonNode r = call(stream, "read-" + callId + "-" + n, "r-" + callId + "-" + n, "read_tool_result",
                    "{\"tool_call_id\":\"" + callId + "\",\"offset\":" + offset + "}");
            assertThat(r.path("is_error").asBoolean()).as(r.toString()).isFalse();
            JsonNode data = r.path("data");
            assertThat(data.path("offset").asInt()).isEqualTo(offset);
            int end = data.path("end").asInt();
            assertThat(end - offset).isPositive().isLessThanOrEqualTo(limit);
            String content = r.path("content").asText();
            String piece = content.substring(0, content.lastIndexOf("[toolbus: characters " + offset + " to " + end));
            got.append(piece, 0, end - offset);
            if (data.path("next_offset").isNull()) {
                assertThat(content).endsWith("this is the end.]");
                return got.toString();
            }
            offset = data.path("next_offset").asInt();
            assertThat(offset).isEqualTo(end);
        }
        throw new AssertionError("no end after 100 pieces");
    }

    @Test
    void longResultsAreCutAndReadBackThroughReadToolResult(@TempDir Path dir) throws Exception {
        Path plugin = Files.createDirectories(dir.resolve("long-log"));
        Files.writeString(plugin.resolve("log.py"), PLUGIN, StandardCharsets.UTF_8);
        Files.writeString(plugin.resolve("plugin.json"), "{\"id\":\"long-log\",\"command\":\"python3\","
                + "\"args\":[\"-u\",\"log.py\"],\"activationTimeoutMs\":10000}", StandardCharsets.UTF_8);
        sidecar = ToolbusProcess.sidecar("result-size", "--plugins", dir.toString(), "--max-result-chars", "5000",
                "--log-level", "warn");

        // a Java sample tool under the global limit of 5,000
        String words = "word ".repeat(6_000).strip();
        JsonNode echo = call("qq:group:1", "t1", "call_echo", "echo", "{\"text\":\"" + words + "\"}");
        String echoed = echo.path("content").asText();
        int marker = echoed.indexOf("\n\n[toolbus: this result is " + words.length() + " characters long; the first ");
        assertThat(marker).as(echoed.substring(Math.max(0, echoed.length() - 300))).isBetween(4_000, 5_000);
        assertThat(echoed).contains("To read the rest, call read_tool_result with {\"tool_call_id\": \"call_echo\", "
                + "\"offset\": " + marker + "}.]");
        assertThat(echoed.substring(0, marker)).isEqualTo(words.substring(0, marker)).endsWith(" ");
        assertThat(echoed.substring(0, marker) + readRest("qq:group:1", "call_echo", marker, 5_000)).isEqualTo(words);

        // a plugin tool with its own limit of 3,000 (from activate), surrogate pairs in every line
        String full = expectedLog();
        JsonNode log = call("qq:group:1", "t2", "call_log", "py_log", "{}");
        assertThat(log.path("is_error").asBoolean()).as(log.toString()).isFalse();
        String content = log.path("content").asText();
        int cut = content.indexOf("\n[toolbus: this result is " + full.length() + " characters long;");
        assertThat(cut).as(content.substring(0, Math.min(200, content.length()))).isBetween(2_400, 3_000);
        String shown = content.substring(0, cut);
        assertThat(shown).endsWith("\n").isEqualTo(full.substring(0, shown.length()));
        assertThat(shown + readRest("qq:group:1", "call_log", shown.length(), 3_000)).isEqualTo(full);

        // the same call id from another conversation is refused
        JsonNode other = call("qq:group:2", "t3", "x", "read_tool_result", "{\"tool_call_id\":\"call_log\",\"offset\":3000}");
        assertThat(other.path("is_error").asBoolean()).isTrue();
        assertThat(other.path("error").path("code").asText()).isEqualTo("TOOL_ERROR");
        assertThat(other.path("content").asText()).contains("belongs to another conversation");

        assertThat(sidecar.closeInput().awaitExit(EXIT)).as(sidecar.stderr()).isZero();
        List<JsonNode> errors = sidecar.events().stream().filter(e -> e.path("type").asText().equals("error")).toList();
        assertThat(errors).isEmpty();
    }
}
