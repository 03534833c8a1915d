package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.testing.ControlTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.Tools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Conversation control across two Redis instances. The instance running the turn stops reading from
 * the group, so the control event is read by the other one, which must pass it on: a cancel is shared
 * with every instance, an answer goes to the instance named in its id, and an id nobody owns gets
 * exactly one UNKNOWN_REQUEST.
 */
class RedisControlTest {

    private RedisTestSupport redis;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Map<String, String> ranOn = new ConcurrentHashMap<>();
    private final Map<String, RedisStreamsBus> buses = new HashMap<>();

    @BeforeEach
    void setUp() {
        redis = RedisTestSupport.require();
        startInstance("ra");
        startInstance("rb");
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private void startInstance(String id) {
        ToolExecutor executor = ToolExecutor.builder().instanceId(id)
                .tool(ControlTools.sleep(id, ranOn)).tool(ControlTools.askCity(id, ranOn))
                .tool(Tools.function("echo", "Returns its arguments", json -> json))
                .build();
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, redis.config().consumer(id).instanceId(id)
                .controlChannel(redis.prefix + "control").blockTimeout(Duration.ofMillis(200)).build());
        executor.attach(bus);
        buses.put(id, bus);
        closeables.add(executor::close);
        closeables.add(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
    }

    /** The owner of the turn stops reading, so whatever is published next is read by the other instance. */
    private String ownerStopsReading(String turnId) {
        await().atMost(Duration.ofSeconds(20)).until(() -> ranOn.containsKey(turnId));
        String owner = ranOn.get(turnId);
        buses.get(owner).pauseReading();
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1)).until(() -> true); // its read in progress ends
        return owner;
    }

    private List<String> events(String stream) {
        return redis.events(redis.prefix + "results:" + stream);
    }

    private static String turn(String stream, String turn, String calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn + "\",\"calls\":[" + calls + "]}";
    }

    @Test
    void aCancelReadByTheOtherInstance_stopsTheTurnWhereItRuns() {
        redis.addCall(turn("s-c", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"sleep\",\"arguments\":{}},"
                + "{\"tool_call_id\":\"c2\",\"name\":\"echo\",\"arguments\":{\"x\":1}}"));
        ownerStopsReading("t1");
        long sent = System.nanoTime();
        redis.addCall("{\"type\":\"cancel\",\"stream_id\":\"s-c\",\"turn_id\":\"t1\",\"reason\":\"user said stop\"}");
        await().atMost(Duration.ofSeconds(10)).until(() -> events("s-c").stream().anyMatch(e -> e.contains("turn_completed")));
        double seconds = (System.nanoTime() - sent) / 1e9;
        List<String> events = events("s-c");
        assertThat(events).hasSize(3);
        assertThat(events.get(0)).contains("\"tool_call_id\":\"c1\"", "CANCELLED");
        assertThat(events.get(1)).contains("\"tool_call_id\":\"c2\"", "\"is_error\":false");
        assertThat(events.get(2)).contains("turn_completed");
        assertThat(seconds).as("seconds from cancel to turn_completed").isLessThan(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.pending() == 0);
    }

    @Test
    void answersReadByTheOtherInstance_reachTheOwner_andUnknownIdsGetExactlyOneError() {
        redis.addCall(turn("s-a", "t2", "{\"tool_call_id\":\"c1\",\"name\":\"ask_city\",\"arguments\":{}}"));
        String owner = ownerStopsReading("t2");
        await().atMost(Duration.ofSeconds(10)).until(() -> events("s-a").stream().anyMatch(e -> e.contains("input_request")));
        String request = events("s-a").stream().filter(e -> e.contains("input_request")).findFirst().orElseThrow();
        String inputId = request.replaceAll(".*\"input_id\":\"([^\"]+)\".*", "$1");
        assertThat(inputId).startsWith("in-" + owner + "-");

        // nobody is instance zz: answered where read; the owner's forged id: answered by the owner
        redis.addCall("{\"type\":\"input_response\",\"stream_id\":\"s-a\",\"input_id\":\"in-zz-404\",\"action\":\"accept\",\"content\":{}}");
        redis.addCall("{\"type\":\"input_response\",\"stream_id\":\"s-a\",\"input_id\":\"in-" + owner
                + "-999\",\"action\":\"accept\",\"content\":{}}");
        redis.addCall("{\"type\":\"input_response\",\"stream_id\":\"s-a\",\"input_id\":\"" + inputId
                + "\",\"action\":\"accept\",\"content\":{\"city\":\"Paris\"}}");
        await().atMost(Duration.ofSeconds(10)).until(() -> events("s-a").stream().anyMatch(e -> e.contains("turn_completed"))
                && redis.pending() == 0);
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1)).until(() -> true); // a second answer would be here by now
        List<String> events = events("s-a");
        assertThat(events).filteredOn(e -> e.contains("tool_result")).singleElement()
                .satisfies(e -> assertThat(e).contains("city Paris"));
        assertThat(events).filteredOn(e -> e.contains("UNKNOWN_REQUEST")).hasSize(2)
                .anySatisfy(e -> assertThat(e).contains("in-zz-404"))
                .anySatisfy(e -> assertThat(e).contains("in-" + owner + "-999"));
    }
}
