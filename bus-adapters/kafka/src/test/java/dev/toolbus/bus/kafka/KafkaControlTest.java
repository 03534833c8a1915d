package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.bus.testing.ControlTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.protocol.ControlIds;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
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
    /** Both instances' approval settings: off except in the approval tests (echo is medium and would ask). */
    private final AtomicReference<ApprovalSettings> approval = new AtomicReference<>(ApprovalSettings.defaults());

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
                .tool(ControlTools.wipe(id, ranOn)).tool(ControlTools.greet(id, ranOn))
                .tool(Tools.function("echo", "Returns its arguments", json -> json))
                .approval(approval::get)
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

    // --- approval, greet and ask_city ---

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static JsonNode json(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new AssertionError(s, e);
        }
    }

    private List<JsonNode> ofTurn(String stream, String turnId) {
        return events(stream).stream().map(KafkaControlTest::json)
                .filter(e -> turnId.equals(e.path("turn_id").asText())).toList();
    }

    private static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.path("type").asText()).toList();
    }

    private JsonNode awaitEvent(String stream, String turnId, String type) {
        await().atMost(WAIT).until(() -> ofTurn(stream, turnId).stream()
                .anyMatch(e -> e.path("type").asText().equals(type)));
        return ofTurn(stream, turnId).stream().filter(e -> e.path("type").asText().equals(type)).findFirst().orElseThrow();
    }

    private List<JsonNode> awaitTurn(String stream, String turnId) {
        awaitEvent(stream, turnId, "turn_completed");
        return ofTurn(stream, turnId);
    }

    private static String withUser(String turn) {
        return turn.replace("]}", "],\"context\":{\"user_id\":\"u1\"}}");
    }

    private static String approvalResponse(String stream, String id, String decision) {
        return "{\"type\":\"approval_response\",\"stream_id\":\"" + stream + "\",\"approval_id\":\"" + id
                + "\",\"decision\":\"" + decision + "\"}";
    }

    private static String wipe(String stream, String turnId) {
        return withUser(turn(stream, turnId, "{\"tool_call_id\":\"c1\",\"name\":\"wipe\",\"arguments\":{\"target\":\"disk\"}}"));
    }

    @Test
    void wipeUnderAuto_asksOnce_andRunsOnlyAfterAnApprovePublishedWhileItWaits() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        kafka.send("s-ap", wipe("s-ap", "t1"));
        JsonNode request = awaitEvent("s-ap", "t1", "approval_request");
        String owner = ControlIds.instanceOf(request.path("approval_id").asText());
        assertThat(owner).isIn("ka", "kb");
        assertThat(request.path("calls")).singleElement().satisfies(c -> {
            assertThat(c.path("name").asText()).isEqualTo("wipe");
            assertThat(c.path("risk").asText()).isEqualTo("high");
        });
        assertThat(ranOn).as("nothing ran before the answer").doesNotContainKey("t1");

        kafka.send("s-ap", approvalResponse("s-ap", request.path("approval_id").asText(), "approve"));
        List<JsonNode> events = awaitTurn("s-ap", "t1");
        assertThat(types(events)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).isEqualTo("wiped disk");
        assertThat(ranOn.get("t1")).isEqualTo(owner);
    }

    @Test
    void denyAndExpiry_areNotApproved() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        kafka.send("s-deny", wipe("s-deny", "t1"));
        JsonNode request = awaitEvent("s-deny", "t1", "approval_request");
        kafka.send("s-deny", approvalResponse("s-deny", request.path("approval_id").asText(), "deny"));
        List<JsonNode> denied = awaitTurn("s-deny", "t1");
        assertThat(types(denied)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(denied.get(1).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(denied.get(1).path("content").asText()).contains("declined");

        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(1500).build());
        kafka.send("s-deny", wipe("s-deny", "t2"));
        JsonNode late = awaitEvent("s-deny", "t2", "approval_request");
        List<JsonNode> expired = awaitTurn("s-deny", "t2");
        assertThat(types(expired)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(expired.get(1).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(expired.get(1).path("content").asText()).contains("no answer").contains("1500 ms");
        assertThat(ranOn).doesNotContainKeys("t1", "t2");

        kafka.send("s-deny", approvalResponse("s-deny", late.path("approval_id").asText(), "approve"));
        await().atMost(WAIT).until(() -> events("s-deny").stream().anyMatch(e -> e.contains("UNKNOWN_REQUEST")));
        assertThat(events("s-deny")).filteredOn(e -> e.contains("UNKNOWN_REQUEST")).singleElement()
                .satisfies(e -> assertThat(e).contains(late.path("approval_id").asText()));
    }

    @Test
    void approveSession_skipsTheNextAskOfTheStream() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        kafka.send("s-ses", withUser(turn("s-ses", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"x\":1}}")));
        JsonNode request = awaitEvent("s-ses", "t1", "approval_request");
        assertThat(request.path("calls").get(0).path("risk").asText()).isEqualTo("medium");
        kafka.send("s-ses", approvalResponse("s-ses", request.path("approval_id").asText(), "approve_session"));
        assertThat(types(awaitTurn("s-ses", "t1"))).containsExactly("approval_request", "tool_result", "turn_completed");

        kafka.send("s-ses", withUser(turn("s-ses", "t2", "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"x\":2}}")));
        List<JsonNode> next = awaitTurn("s-ses", "t2");
        assertThat(types(next)).as("granted for the session").containsExactly("tool_result", "turn_completed");
        assertThat(next.get(0).path("is_error").asBoolean()).isFalse();
    }

    @Test
    void greetsMessageArrivesBeforeItsResult() {
        kafka.send("s-g", turn("s-g", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"greet\",\"arguments\":{\"text\":\"你好！\"}}"));
        List<JsonNode> events = awaitTurn("s-g", "t1");
        assertThat(types(events)).containsExactly("send_message", "tool_result", "turn_completed");
        assertThat(events.get(0).path("message_id").asText()).isEqualTo("c1:msg:1");
        assertThat(events.get(0).path("content").get(0).path("text").asText()).isEqualTo("你好！");
        assertThat(events.get(1).path("content").asText()).isEqualTo("greeted");
    }

    @Test
    void askCity_roundTripsDeclineCancelAndExpiry() {
        for (String action : List.of("decline", "cancel")) {
            String t = "t-" + action;
            kafka.send("s-ask", turn("s-ask", t, "{\"tool_call_id\":\"c1\",\"name\":\"ask_city\",\"arguments\":{}}"));
            String inputId = awaitEvent("s-ask", t, "input_request").path("input_id").asText();
            kafka.send("s-ask", "{\"type\":\"input_response\",\"stream_id\":\"s-ask\",\"input_id\":\"" + inputId
                    + "\",\"action\":\"" + action + "\"}");
            List<JsonNode> events = awaitTurn("s-ask", t);
            assertThat(types(events)).containsExactly("input_request", "tool_result", "turn_completed");
            assertThat(events.get(1).path("content").asText()).isEqualTo("no answer (" + action + ")");
        }
        kafka.send("s-ask", turn("s-ask", "t-exp", "{\"tool_call_id\":\"c1\",\"name\":\"ask_city\",\"arguments\":{\"timeout_ms\":1500}}"));
        List<JsonNode> events = awaitTurn("s-ask", "t-exp");
        assertThat(types(events)).containsExactly("input_request", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).isEqualTo("no answer (expired)");
    }
}
