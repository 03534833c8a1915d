package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;

/** {@code POST /v1/turns} as Server-Sent Events, read by curl and by a streaming Java client. */
class CurlSseTest {

    static TestGateway gw;

    @BeforeAll
    static void start() {
        gw = TestGateway.start();
    }

    @AfterAll
    static void stop() {
        gw.close();
    }

    /** One SSE event: its {@code event:} name and its {@code data:} JSON. */
    record SseEvent(String name, JsonNode data) {
    }

    static List<SseEvent> parseSse(String body) throws Exception {
        List<SseEvent> out = new ArrayList<>();
        for (String block : body.split("\n\n")) {
            if (block.isBlank()) {
                continue;
            }
            String name = null;
            String data = null;
            for (String line : block.split("\n")) {
                if (line.startsWith("event: ")) {
                    name = line.substring(7);
                } else if (line.startsWith("data: ")) {
                    assertThat(data).as("one data line per event").isNull();
                    data = line.substring(6);
                }
            }
            out.add(new SseEvent(name, Json.mapper().readTree(data)));
        }
        return out;
    }

    static Processes.Result curl(String... args) throws Exception {
        assumeTrue(Processes.onPath("curl"), "curl is not installed: skipping the curl tests");
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20"));
        cmd.addAll(List.of(args));
        return Processes.run(Path.of("."), 30, cmd);
    }

    @Test
    void curl_readsTheTurnAsServerSentEvents() throws Exception {
        Path body = Files.createTempFile("turn", ".json");
        Files.writeString(body, "{\"type\":\"tool_calls\",\"stream_id\":\"curl\",\"turn_id\":\"c1\",\"calls\":["
                + "{\"tool_call_id\":\"a\",\"name\":\"echo\",\"arguments\":{\"text\":\"one\"}},"
                + "{\"tool_call_id\":\"b\",\"name\":\"sleep\",\"arguments\":{\"ms\":50}}]}");
        try {
            Processes.Result r = curl("-N", "-i", "-H", "Accept: text/event-stream", "-H", "Authorization: Bearer " + TOKEN,
                    "-H", "Content-Type: application/json", "--data-binary", "@" + body,
                    gw.baseUrl() + "/v1/turns");
            assertThat(r.exit()).as(r.err()).isZero();
            String raw = r.out().replace("\r\n", "\n");
            int split = raw.indexOf("\n\n");
            String head = raw.substring(0, split);
            assertThat(head).startsWith("HTTP/1.1 200").containsIgnoringCase("content-type: text/event-stream");
            List<SseEvent> events = parseSse(raw.substring(split + 2));
            assertThat(events).extracting(SseEvent::name).containsExactly("tool_result", "tool_result", "turn_completed");
            for (SseEvent e : events) {
                assertThat(e.data().get("type").asText()).isEqualTo(e.name());
                assertThat(e.data().get("turn_id").asText()).isEqualTo("c1");
            }
            assertThat(events.get(0).data().get("content").asText()).isEqualTo("one");
            assertThat(events.get(1).data().get("content").asText()).isEqualTo("slept 50");
        } finally {
            Files.deleteIfExists(body);
        }
    }

    @Test
    void curl_jsonArrayAndAuthErrors() throws Exception {
        String turn = "{\"type\":\"tool_call\",\"stream_id\":\"curl\",\"name\":\"echo\",\"arguments\":{\"text\":\"json\"}}";
        Processes.Result ok = curl("-H", "Authorization: Bearer " + TOKEN, "--data-binary", turn, gw.baseUrl() + "/v1/turns");
        JsonNode array = Json.mapper().readTree(ok.out());
        assertThat(array.isArray()).isTrue();
        assertThat(array.get(0).get("content").asText()).isEqualTo("json");

        Processes.Result denied = curl("-w", "\n%{http_code}", "--data-binary", turn, gw.baseUrl() + "/v1/turns");
        String[] parts = denied.out().split("\n");
        assertThat(parts[parts.length - 1]).isEqualTo("401");
        assertThat(Json.mapper().readTree(parts[0]).get("type").asText()).isEqualTo("error");

        Processes.Result health = curl(gw.baseUrl() + "/healthz");
        assertThat(health.out()).startsWith("{\"status\":\"UP\",\"executor\":\"UP\"");
    }

    @Test
    void sse_eventsAreSentAsTheyAreReady() {
        // the first result is ready at once, the second after 800 ms: the first chunk must not wait
        String turn = "{\"type\":\"tool_calls\",\"stream_id\":\"sse-live\",\"calls\":["
                + "{\"tool_call_id\":\"fast\",\"name\":\"echo\",\"arguments\":{\"text\":\"now\"}},"
                + "{\"tool_call_id\":\"slow\",\"name\":\"sleep\",\"arguments\":{\"ms\":800}}]}";
        List<String> chunks = HttpClient.create()
                .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + TOKEN)
                        .set(HttpHeaderNames.ACCEPT, "text/event-stream"))
                .post().uri(gw.baseUrl() + "/v1/turns")
                .send(ByteBufFlux.fromString(Mono.just(turn)))
                .responseContent().asString()
                .collectList()
                .block(Duration.ofSeconds(20));
        assertThat(chunks).isNotNull().hasSizeGreaterThanOrEqualTo(2);
        assertThat(chunks.get(0)).contains("\"tool_call_id\":\"fast\"").doesNotContain("turn_completed");
        assertThat(String.join("", chunks)).endsWith("\n\n").contains("event: turn_completed\n");
    }
}
