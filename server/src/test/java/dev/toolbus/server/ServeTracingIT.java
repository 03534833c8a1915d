package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.bus.tck.Brokers;
import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code toolbus serve} with no tracing setup carries a bot core's {@code traceparent}/{@code tracestate}
 * from the turn onto every event it answers with: over stdio and over a real Redis.
 */
class ServeTracingIT {

    static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final ObjectMapper JSON = new ObjectMapper();
    private ToolbusProcess server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String turn(String stream) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"t1\",\"calls\":["
                + "{\"tool_call_id\":\"c1\",\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}},"
                + "{\"tool_call_id\":\"c2\",\"name\":\"draw\",\"arguments\":{\"label\":\"x\"}}],"
                + "\"traceparent\":\"" + TRACEPARENT + "\",\"tracestate\":\"core=1\"}";
    }

    private static void assertCarried(List<JsonNode> events) {
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("tool_result", "tool_result", "user_message", "turn_completed");
        assertThat(events).allSatisfy(e -> {
            assertThat(e.path("traceparent").asText()).isEqualTo(TRACEPARENT);
            assertThat(e.path("tracestate").asText()).isEqualTo("core=1");
        });
    }

    @Test
    void theSidecarCarriesTheTraceContextOntoEveryEvent() throws Exception {
        server = ToolbusProcess.sidecar("serve-trace-stdio");
        server.send(turn("s"));
        await().atMost(Duration.ofSeconds(60)).until(() -> server.events().stream()
                .anyMatch(e -> e.path("type").asText().equals("turn_completed")));
        assertCarried(server.events());
        server.send("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"traceparent\":\"" + TRACEPARENT + "\"}");
        await().atMost(Duration.ofSeconds(30)).until(() -> server.events().size() == 5);
        assertThat(server.events().get(4).path("traceparent").asText()).isEqualTo(TRACEPARENT);
    }

    @Test
    void overRedisTheTraceContextIsCarriedOntoEveryResultEntry() throws Exception {
        String url = Brokers.redisUrl();
        String db = url + (url.endsWith("/") ? "" : "/") + "8";
        RedisClient client = RedisClient.create(db);
        try (StatefulRedisConnection<String, String> conn = client.connect()) {
            var redis = conn.sync();
            redis.flushdb();
            String stream = "it:" + UUID.randomUUID();
            redis.xadd("toolbus:calls", Map.of("event", turn(stream)));
            server = ToolbusProcess.start("serve-trace-redis", "serve", "--bus", db, "--sample-tools",
                    "--instance", "it-trace-1");
            List<JsonNode> events = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                events.clear();
                for (StreamMessage<String, String> m : redis.xrange("toolbus:results:" + stream,
                        io.lettuce.core.Range.create("-", "+"))) {
                    events.add(JSON.readTree(m.getBody().get("event")));
                }
                return events.stream().anyMatch(e -> e.path("type").asText().equals("turn_completed"));
            });
            assertCarried(events);
            server.terminate();
            server.awaitExit(Duration.ofSeconds(60));
        } finally {
            client.shutdown();
        }
    }
}
