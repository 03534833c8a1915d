package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 9's high items against a real {@code serve --bus stdio} with a 256 MiB heap: distinct calls with
 * large arguments do not fill the heap through the result cache, a huge exponent is answered promptly
 * without stalling other input, and a turn of a few hundred thousand calls is refused in one line.
 */
class SmallHeapIT {

    private ToolbusProcess sidecar;

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    private ToolbusProcess start(String name) throws Exception {
        sidecar = ToolbusProcess.start(name, List.of("-Xmx256m"), Map.of(), "serve", "--bus=stdio", "--sample-tools",
                "--log-level", "warn");
        return sidecar;
    }

    private static String add(String stream, String turn, String a, String extra) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                + "\",\"tool_call_id\":\"c\",\"name\":\"add\",\"arguments\":{\"a\":" + a + ",\"b\":1" + extra + "}}";
    }

    private long completed(String streamPrefix) {
        return sidecar.events().stream().filter(e -> e.path("type").asText().equals("turn_completed")
                && e.path("stream_id").asText().startsWith(streamPrefix)).count();
    }

    @Test
    void distinctCallsWithLargeArgumentsDoNotFillTheHeap() throws Exception {
        start("small-heap-distinct-calls");
        String pad = "p".repeat(400 * 1024);
        int calls = 600; // ~240 MB of distinct arguments: kept as cache keys they would not fit in 256 MiB
        for (int i = 0; i < calls; i++) {
            sidecar.send(add("big", "t" + i, Integer.toString(i), ",\"pad\":\"" + i + pad + "\""));
            if (i % 50 == 49) {
                int sent = i + 1;
                await().atMost(Duration.ofSeconds(60)).until(() -> completed("big") >= sent);
            }
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> completed("big") >= calls);
        List<JsonNode> results = sidecar.events().stream()
                .filter(e -> e.path("type").asText().equals("tool_result")).toList();
        assertThat(results).hasSize(calls).allSatisfy(r -> assertThat(r.path("is_error").asBoolean()).isFalse());
        assertThat(results.get(calls - 1).path("data").path("sum").asLong()).isEqualTo(calls);
        assertThat(sidecar.closeInput().awaitExit(Duration.ofSeconds(60))).isZero();
        assertThat(sidecar.stderr()).doesNotContain("OutOfMemoryError");
    }

    @Test
    void aHugeExponentIsAnsweredPromptlyAndDoesNotStallOtherInput() throws Exception {
        start("small-heap-huge-exponent");
        sidecar.send(add("exp", "t1", "1e999999999", ""));
        sidecar.send(add("exp", "t2", "1e999999999", ""));
        sidecar.send(add("other", "t3", "2", ""));
        // "promptly": the old code spent 11-30 s building a 1 GB key on the reading thread
        await().atMost(Duration.ofSeconds(10)).until(() -> completed("other") == 1 && completed("exp") == 2);
        List<JsonNode> exp = sidecar.events().stream().filter(e -> e.path("type").asText().equals("tool_result")
                && e.path("stream_id").asText().equals("exp")).toList();
        assertThat(exp).hasSize(2);
        assertThat(sidecar.closeInput().awaitExit(Duration.ofSeconds(60))).isZero();
    }

    @Test
    void aTurnOfHundredsOfThousandsOfCallsIsRefusedInOneLine() throws Exception {
        start("small-heap-many-calls");
        String calls = "{},".repeat(340_000) + "{}";
        sidecar.send("{\"type\":\"tool_calls\",\"stream_id\":\"many\",\"turn_id\":\"t\",\"calls\":[" + calls + "]}");
        sidecar.send(add("after", "t2", "1", ""));
        await().atMost(Duration.ofSeconds(30)).until(() -> completed("after") == 1);
        List<JsonNode> many = sidecar.events().stream().filter(e -> e.path("stream_id").asText().equals("many"))
                .toList();
        assertThat(many).singleElement().satisfies(e -> {
            assertThat(e.path("type").asText()).isEqualTo("error");
            assertThat(e.path("code").asText()).isEqualTo("BAD_EVENT");
            assertThat(e.path("message").asText()).startsWith("the turn has 340001 calls, above the limit of 128");
        });
        assertThat(sidecar.closeInput().awaitExit(Duration.ofSeconds(60))).isZero();
    }

    @Test
    void errorsThrownByToolsNeverWedgeTheExecutor() throws Exception {
        // one slot: on the first release the first Error kept it (and the drain flag) forever
        sidecar = ToolbusProcess.start("small-heap-errors", List.of("-Xmx256m"), Map.of(), "serve", "--bus=stdio",
                "--sample-tools", "--max-parallel", "1", "--log-level", "error");
        for (int i = 0; i < 20; i++) {
            sidecar.send("{\"type\":\"tool_call\",\"stream_id\":\"err" + i + "\",\"turn_id\":\"t\",\"tool_call_id\":\"c\","
                    + "\"name\":\"fail\",\"arguments\":{\"message\":\"boom\",\"kind\":\"error\"}}");
        }
        sidecar.send(add("after-errors", "t", "40", ""));
        await().atMost(Duration.ofSeconds(30)).until(() -> completed("after-errors") == 1 && completed("err") == 20);
        List<JsonNode> failed = sidecar.events().stream().filter(e -> e.path("type").asText().equals("tool_result")
                && e.path("stream_id").asText().startsWith("err")).toList();
        assertThat(failed).hasSize(20).allSatisfy(r -> {
            assertThat(r.path("error").path("code").asText()).isEqualTo("TOOL_FAILED");
            assertThat(r.path("content").asText()).contains("simulated: boom");
        });
        JsonNode sum = sidecar.events().stream().filter(e -> e.path("type").asText().equals("tool_result")
                && e.path("stream_id").asText().equals("after-errors")).findFirst().orElseThrow();
        assertThat(sum.path("data").path("sum").asLong()).isEqualTo(41);
        assertThat(sidecar.closeInput().awaitExit(Duration.ofSeconds(60))).isZero();
    }
}
