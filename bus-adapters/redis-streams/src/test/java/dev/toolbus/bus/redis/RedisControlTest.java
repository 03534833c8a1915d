package dev.toolbus.bus.redis;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
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
    /** Both instances' approval settings: off except in the approval tests (echo is medium and would ask). */
    private final AtomicReference<ApprovalSettings> approval = new AtomicReference<>(ApprovalSettings.defaults());

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
                .tool(ControlTools.wipe(id, ranOn)).tool(ControlTools.greet(id, ranOn))
                .tool(Tools.function("echo", "Returns its arguments", json -> json))
                .approval(approval::get)
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

    // --- approval, greet and ask_city ---

    private static JsonNode json(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new AssertionError(s, e);
        }
    }

    private List<JsonNode> ofTurn(String stream, String turnId) {
        return events(stream).stream().map(RedisControlTest::json)
                .filter(e -> turnId.equals(e.path("turn_id").asText())).toList();
    }

    private static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.path("type").asText()).toList();
    }

    private JsonNode awaitEvent(String stream, String turnId, String type) {
        await().atMost(Duration.ofSeconds(20)).until(() -> ofTurn(stream, turnId).stream()
                .anyMatch(e -> e.path("type").asText().equals(type)));
        return ofTurn(stream, turnId).stream().filter(e -> e.path("type").asText().equals(type)).findFirst().orElseThrow();
    }

    private List<JsonNode> awaitTurn(String stream, String turnId) {
        awaitEvent(stream, turnId, "turn_completed");
        return ofTurn(stream, turnId);
    }

    private static String approvalResponse(String stream, String id, String decision) {
        return "{\"type\":\"approval_response\",\"stream_id\":\"" + stream + "\",\"approval_id\":\"" + id
                + "\",\"decision\":\"" + decision + "\"}";
    }

    private static String wipe(String stream, String turnId) {
        return turn(stream, turnId, "{\"tool_call_id\":\"c1\",\"name\":\"wipe\",\"arguments\":{\"target\":\"disk\"}}")
                .replace("]}", "],\"context\":{\"user_id\":\"u1\"}}");
    }

    /** The turn's approval_request; its owner (named in the id) then stops reading, so the answer is read by the other. */
    private JsonNode approvalRequestOwnerStopsReading(String stream, String turnId) {
        JsonNode request = awaitEvent(stream, turnId, "approval_request");
        String owner = ControlIds.instanceOf(request.path("approval_id").asText());
        assertThat(owner).isIn("ra", "rb");
        buses.get(owner).pauseReading();
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1)).until(() -> true); // its read in progress ends
        return request;
    }

    @Test
    void wipeUnderAuto_asksOnce_andRunsOnlyAfterAnApproveReadByTheOtherInstance() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        redis.addCall(wipe("s-ap", "t1"));
        JsonNode request = approvalRequestOwnerStopsReading("s-ap", "t1");
        String owner = ControlIds.instanceOf(request.path("approval_id").asText());
        assertThat(request.path("calls")).singleElement().satisfies(c -> {
            assertThat(c.path("name").asText()).isEqualTo("wipe");
            assertThat(c.path("risk").asText()).isEqualTo("high");
        });
        assertThat(ranOn).as("nothing ran before the answer").doesNotContainKey("t1");
        assertThat(types(ofTurn("s-ap", "t1"))).containsExactly("approval_request");

        redis.addCall(approvalResponse("s-ap", request.path("approval_id").asText(), "approve"));
        List<JsonNode> events = awaitTurn("s-ap", "t1");
        assertThat(types(events)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).isEqualTo("wiped disk");
        assertThat(ranOn.get("t1")).isEqualTo(owner);
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.pending() == 0);
    }

    @Test
    void denyAndExpiry_readByTheOtherInstance_areNotApproved() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        redis.addCall(wipe("s-deny", "t1"));
        JsonNode request = approvalRequestOwnerStopsReading("s-deny", "t1");
        redis.addCall(approvalResponse("s-deny", request.path("approval_id").asText(), "deny"));
        List<JsonNode> denied = awaitTurn("s-deny", "t1");
        assertThat(types(denied)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(denied.get(1).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(denied.get(1).path("content").asText()).contains("declined");

        buses.values().forEach(RedisStreamsBus::resumeReading);
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(1500).build());
        redis.addCall(wipe("s-deny", "t2"));
        JsonNode late = awaitEvent("s-deny", "t2", "approval_request");
        List<JsonNode> expired = awaitTurn("s-deny", "t2");
        assertThat(types(expired)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(expired.get(1).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(expired.get(1).path("content").asText()).contains("no answer").contains("1500 ms");
        assertThat(ranOn).doesNotContainKeys("t1", "t2");

        redis.addCall(approvalResponse("s-deny", late.path("approval_id").asText(), "approve"));
        await().atMost(Duration.ofSeconds(10)).until(() -> events("s-deny").stream().anyMatch(e -> e.contains("UNKNOWN_REQUEST")));
        assertThat(events("s-deny")).filteredOn(e -> e.contains("UNKNOWN_REQUEST")).singleElement()
                .satisfies(e -> assertThat(e).contains(late.path("approval_id").asText()));
    }

    @Test
    void approveSession_answeredOnTheOtherInstance_skipsTheNextAskOnTheOwner() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        redis.addCall(turn("s-ses", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"x\":1}}")
                .replace("]}", "],\"context\":{\"user_id\":\"u1\"}}"));
        JsonNode request = approvalRequestOwnerStopsReading("s-ses", "t1");
        String owner = ControlIds.instanceOf(request.path("approval_id").asText());
        assertThat(request.path("calls").get(0).path("risk").asText()).isEqualTo("medium");
        redis.addCall(approvalResponse("s-ses", request.path("approval_id").asText(), "approve_session"));
        assertThat(types(awaitTurn("s-ses", "t1"))).containsExactly("approval_request", "tool_result", "turn_completed");

        // grants live on the instance that asked: the owner takes the next turn
        buses.get(owner).resumeReading();
        buses.get(owner.equals("ra") ? "rb" : "ra").pauseReading();
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(1)).until(() -> true);
        redis.addCall(turn("s-ses", "t2", "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"x\":2}}")
                .replace("]}", "],\"context\":{\"user_id\":\"u1\"}}"));
        List<JsonNode> next = awaitTurn("s-ses", "t2");
        assertThat(types(next)).as("granted for the session").containsExactly("tool_result", "turn_completed");
        assertThat(next.get(0).path("is_error").asBoolean()).isFalse();
    }

    @Test
    void greetsMessageArrivesBeforeItsResult() {
        redis.addCall(turn("s-g", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"greet\",\"arguments\":{\"text\":\"你好！\"}}"));
        List<JsonNode> events = awaitTurn("s-g", "t1");
        assertThat(types(events)).containsExactly("send_message", "tool_result", "turn_completed");
        assertThat(events.get(0).path("message_id").asText()).isEqualTo("c1:msg:1");
        assertThat(events.get(0).path("content").get(0).path("text").asText()).isEqualTo("你好！");
        assertThat(events.get(1).path("content").asText()).isEqualTo("greeted");
    }

    @Test
    void askCity_readByTheOtherInstance_roundTripsDeclineCancelAndExpiry() {
        for (String action : List.of("decline", "cancel")) {
            String t = "t-" + action;
            redis.addCall(turn("s-ask", t, "{\"tool_call_id\":\"c1\",\"name\":\"ask_city\",\"arguments\":{}}"));
            String owner = ownerStopsReading(t);
            String inputId = awaitEvent("s-ask", t, "input_request").path("input_id").asText();
            assertThat(ControlIds.instanceOf(inputId)).isEqualTo(owner);
            redis.addCall("{\"type\":\"input_response\",\"stream_id\":\"s-ask\",\"input_id\":\"" + inputId
                    + "\",\"action\":\"" + action + "\"}");
            List<JsonNode> events = awaitTurn("s-ask", t);
            assertThat(types(events)).containsExactly("input_request", "tool_result", "turn_completed");
            assertThat(events.get(1).path("content").asText()).isEqualTo("no answer (" + action + ")");
            buses.get(owner).resumeReading();
        }
        redis.addCall(turn("s-ask", "t-exp", "{\"tool_call_id\":\"c1\",\"name\":\"ask_city\",\"arguments\":{\"timeout_ms\":1500}}"));
        List<JsonNode> events = awaitTurn("s-ask", "t-exp");
        assertThat(types(events)).containsExactly("input_request", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).isEqualTo("no answer (expired)");
    }
}
