package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.testing.ControlTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.Tools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Conversation control with two instances in one consumer group (two executors, each with its own
 * consumer): a control event keyed by its stream lands on its turn's partition and reaches the
 * executor while the turn's long call is still running there (no head-of-line wait behind it).
 */
class KafkaControlTest {

    private KafkaTestSupport kafka;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final Map<String, String> ranOn = new ConcurrentHashMap<>();

    @BeforeEach
    void setUp() {
        kafka = KafkaTestSupport.require();
        startInstance("ka");
        startInstance("kb");
    }

    @AfterEach
    void tearDown() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    private void startInstance(String id) {
        ToolExecutor executor = ToolExecutor.builder().instanceId(id)
                .tool(ControlTools.sleep(id, ranOn)).tool(ControlTools.askCity(id, ranOn))
                .tool(Tools.function("echo", "Returns its arguments", json -> json))
                .build();
        KafkaBus bus = KafkaBus.builder().config(kafka.config().clientId(kafka.prefix + id).build()).build();
        bus.start().block(Duration.ofSeconds(30));
        executor.attach(bus);
        closeables.add(executor::close);
        closeables.add(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
    }

    private List<String> events(String stream) {
        return kafka.results().stream().filter(r -> stream.equals(r.key())).map(KafkaTestSupport::value).toList();
    }

    private static String turn(String stream, String turn, String calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn + "\",\"calls\":[" + calls + "]}";
    }

    @Test
    void aCancelPublishedWhileTheTurnRuns_endsTheLongCallPromptly_andTheTurnKeepsItsOrder() {
        kafka.send("s-c", turn("s-c", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"sleep\",\"arguments\":{}},"
                + "{\"tool_call_id\":\"c2\",\"name\":\"echo\",\"arguments\":{\"x\":1}}"));
        await().atMost(Duration.ofSeconds(30)).until(() -> ranOn.containsKey("t1"));
        long sent = System.nanoTime();
        kafka.send("s-c", "{\"type\":\"cancel\",\"stream_id\":\"s-c\",\"turn_id\":\"t1\",\"reason\":\"user said stop\"}");
        await().atMost(Duration.ofSeconds(10)).until(() -> events("s-c").stream().anyMatch(e -> e.contains("turn_completed")));
        double seconds = (System.nanoTime() - sent) / 1e9;
        List<String> events = events("s-c");
        assertThat(events).hasSize(3);
        assertThat(events.get(0)).contains("\"tool_call_id\":\"c1\"", "CANCELLED");
        assertThat(events.get(1)).contains("\"tool_call_id\":\"c2\"", "\"is_error\":false");
        assertThat(events.get(2)).contains("turn_completed");
        // the transaction interval and the read_committed reader add to the one second of the issue
        assertThat(seconds).as("seconds from cancel to turn_completed").isLessThan(3);
    }

    @Test
    void anInputResponsePublishedWhileTheToolAsks_reachesIt_andAnUnknownIdGetsOneError() {
        kafka.send("s-a", turn("s-a", "t2", "{\"tool_call_id\":\"c1\",\"name\":\"ask_city\",\"arguments\":{}}"));
        await().atMost(Duration.ofSeconds(30)).until(() -> events("s-a").stream().anyMatch(e -> e.contains("input_request")));
        String request = events("s-a").stream().filter(e -> e.contains("input_request")).findFirst().orElseThrow();
        String inputId = request.replaceAll(".*\"input_id\":\"([^\"]+)\".*", "$1");
        assertThat(inputId).startsWith("in-" + ranOn.get("t2") + "-");

        kafka.send("s-a", "{\"type\":\"input_response\",\"stream_id\":\"s-a\",\"input_id\":\"in-zz-404\",\"action\":\"accept\","
                + "\"content\":{\"city\":\"Nowhere\"}}");
        kafka.send("s-a", "{\"type\":\"input_response\",\"stream_id\":\"s-a\",\"input_id\":\"" + inputId
                + "\",\"action\":\"accept\",\"content\":{\"city\":\"Paris\"}}");
        await().atMost(Duration.ofSeconds(10)).until(() -> events("s-a").stream().anyMatch(e -> e.contains("turn_completed")));
        List<String> events = events("s-a");
        assertThat(events).filteredOn(e -> e.contains("tool_result")).singleElement()
                .satisfies(e -> assertThat(e).contains("city Paris"));
        assertThat(events).filteredOn(e -> e.contains("UNKNOWN_REQUEST")).singleElement()
                .satisfies(e -> assertThat(e).contains("in-zz-404"));
    }
}
