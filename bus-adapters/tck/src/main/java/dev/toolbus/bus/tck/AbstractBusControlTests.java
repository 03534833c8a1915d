package dev.toolbus.bus.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnState;
import dev.toolbus.tool.method.Tools;
import io.opentelemetry.api.common.AttributeKey;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Conversation control with two instances ({@code ia} and {@code ib}) of one group: a cancel ends the
 * turn where it runs, an answer (approval or input) reaches the instance that asked, an id nobody
 * owns gets exactly one {@code UNKNOWN_REQUEST}, approval and session grants hold, a tool's message
 * arrives before its result. Where the broker may give a control event to either instance (Redis), the
 * turn's owner stops reading first, so the other instance reads the event and must pass it on; where
 * control events are keyed to their turn's owner (Kafka), the owner reads them itself. Both instances
 * trace on the OpenTelemetry SDK: an answer passed on keeps its sender's trace context.
 */
public abstract class AbstractBusControlTests extends AbstractBusTests {

    private static final Duration WAIT = Duration.ofSeconds(30);

    /** The turn ids each instance ran. */
    protected final Map<String, String> ranOn = new ConcurrentHashMap<>();
    /**
     * Which instance published each approval and input id (ids are derived from the turn, so they name no
     * instance: any instance that takes the turn raises the same ones).
     */
    protected final Map<String, String> askedBy = new ConcurrentHashMap<>();
    /** The instances' buses by instance id. */
    protected final Map<String, ToolBus> buses = new ConcurrentHashMap<>();
    /** Both instances' approval settings: off except in the approval tests (echo is medium and would ask). */
    private final AtomicReference<ApprovalSettings> approval = new AtomicReference<>(ApprovalSettings.defaults());
    /** Both instances' spans. */
    private OtelTracing tracing;

    /**
     * The turn's owner stops taking inputs, so the next control event of its conversation is read by
     * the other instance (Redis: {@code pauseReading}, then its read in progress ends); nothing where the
     * broker keys control events to their turn's owner.
     */
    protected abstract void ownerStopsReading(ToolBus owner);

    /** Undoes {@link #ownerStopsReading}. */
    protected abstract void resumeReading(ToolBus bus);

    /**
     * The next turns of a conversation go to this instance (Redis: the other stops reading; Kafka:
     * nothing, a conversation's turns stay on its partition's owner).
     */
    protected abstract void nextTurnsGoTo(ToolBus owner, ToolBus other);

    /** How soon a cancel must end the turn's 30 s call (Kafka adds its transaction interval and a read_committed reader). */
    protected abstract Duration cancelBound();

    @BeforeEach
    void startTwoInstances() {
        tracing = closeLater(new OtelTracing()); // closed after the instances
        startInstance("ia");
        startInstance("ib");
        broker.awaitMembers(2);
    }

    private void startInstance(String id) {
        ToolExecutor executor = ToolExecutor.builder().instanceId(id)
                .tool(ControlTools.sleep(id, ranOn)).tool(ControlTools.askCity(id, ranOn))
                .tool(ControlTools.wipe(id, ranOn)).tool(ControlTools.greet(id, ranOn))
                .tool(Tools.function("echo", "Returns its arguments", json -> json))
                .approval(approval::get)
                .observationRegistry(tracing.registry)
                .build();
        ToolBus bus = broker.bus(BusOptions.named(id).instanceId(id).build());
        closeLater(executor);
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(30))); // before its executor
        executor.attach(new Recording(bus, id, askedBy));
        buses.put(id, bus);
    }

    private String other(String id) {
        return id.equals("ia") ? "ib" : "ia";
    }

    /** The owner of the turn (once it runs) stops reading. */
    private String ownerOf(String turnId) {
        await().atMost(WAIT).until(() -> ranOn.containsKey(turnId));
        String owner = ranOn.get(turnId);
        ownerStopsReading(buses.get(owner));
        return owner;
    }

    private List<String> events(String stream) {
        return broker.events(stream);
    }

    private static String turn(String stream, String turn, String calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn + "\",\"calls\":[" + calls + "]}";
    }

    private static String withUser(String turn) {
        return turn.replace("]}", "],\"context\":{\"user_id\":\"u1\"}}");
    }

    private List<JsonNode> ofTurn(String stream, String turnId) {
        return events(stream).stream().map(Events::json).filter(e -> turnId.equals(e.path("turn_id").asText())).toList();
    }

    private JsonNode awaitEvent(String stream, String turnId, String type) {
        await().atMost(WAIT).until(() -> ofTurn(stream, turnId).stream().anyMatch(e -> e.path("type").asText().equals(type)));
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
        return withUser(turn(stream, turnId, "{\"tool_call_id\":\"c1\",\"name\":\"wipe\",\"arguments\":{\"target\":\"disk\"}}"));
    }

    /** The instance that published the request of this id. */
    private String askedBy(String id) {
        await().atMost(WAIT).until(() -> askedBy.containsKey(id));
        return askedBy.get(id);
    }

    /** The turn's approval_request; its owner (the instance that published it) then stops reading. */
    private JsonNode approvalRequestOwnerStopsReading(String stream, String turnId) {
        JsonNode request = awaitEvent(stream, turnId, "approval_request");
        assertThat(ControlRequest.isDerivedId(request.path("approval_id").asText())).isTrue();
        String owner = askedBy(request.path("approval_id").asText());
        assertThat(owner).isIn("ia", "ib");
        ownerStopsReading(buses.get(owner));
        return request;
    }

    @Test
    void aCancel_stopsTheTurnWhereItRuns_promptly_andTheTurnKeepsItsOrder() {
        broker.send("s-c", turn("s-c", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"sleep\",\"arguments\":{}},"
                + "{\"tool_call_id\":\"c2\",\"name\":\"echo\",\"arguments\":{\"x\":1}}"));
        ownerOf("t1");
        long sent = System.nanoTime();
        broker.send("s-c", "{\"type\":\"cancel\",\"stream_id\":\"s-c\",\"turn_id\":\"t1\",\"reason\":\"user said stop\"}");
        await().atMost(Duration.ofSeconds(10)).until(() -> events("s-c").stream().anyMatch(Events::isCompleted));
        Duration took = Duration.ofNanos(System.nanoTime() - sent);
        List<String> events = events("s-c");
        assertThat(events).hasSize(3);
        assertThat(events.get(0)).contains("\"tool_call_id\":\"c1\"", "CANCELLED");
        assertThat(events.get(1)).contains("\"tool_call_id\":\"c2\"", "\"is_error\":false");
        assertThat(events.get(2)).contains("turn_completed");
        assertThat(took).as("from cancel to turn_completed").isLessThan(cancelBound());
        await().atMost(Duration.ofSeconds(10)).until(broker::settled);
    }

    @Test
    void answers_reachTheInstanceThatAsked_andUnknownIdsGetExactlyOneErrorEach() {
        broker.send("s-a", turn("s-a", "t2", "{\"tool_call_id\":\"c1\",\"name\":\"ask_city\",\"arguments\":{}}"));
        String owner = ownerOf("t2");
        await().atMost(WAIT).until(() -> events("s-a").stream().anyMatch(e -> e.contains("input_request")));
        String request = events("s-a").stream().filter(e -> e.contains("input_request")).findFirst().orElseThrow();
        String inputId = request.replaceAll(".*\"input_id\":\"([^\"]+)\".*", "$1");
        assertThat(ControlRequest.isDerivedId(inputId)).as("names no instance").isTrue();
        assertThat(askedBy(inputId)).isEqualTo(owner);

        // nobody is instance zz: answered where read; the owner's forged id: answered by the owner
        broker.send("s-a", "{\"type\":\"input_response\",\"stream_id\":\"s-a\",\"input_id\":\"in-zz-404\",\"action\":\"accept\","
                + "\"content\":{\"city\":\"Nowhere\"}}");
        broker.send("s-a", "{\"type\":\"input_response\",\"stream_id\":\"s-a\",\"input_id\":\"in-" + owner
                + "-999\",\"action\":\"accept\",\"content\":{}}");
        broker.send("s-a", "{\"type\":\"input_response\",\"stream_id\":\"s-a\",\"input_id\":\"" + inputId
                + "\",\"action\":\"accept\",\"content\":{\"city\":\"Paris\"}}");
        await().atMost(WAIT).until(() -> events("s-a").stream().anyMatch(Events::isCompleted) && broker.settled());
        await().pollDelay(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1)).until(() -> true); // a second answer would be here by now
        List<String> events = events("s-a");
        assertThat(events).filteredOn(e -> e.contains("tool_result")).singleElement()
                .satisfies(e -> assertThat(e).contains("city Paris"));
        assertThat(events).filteredOn(e -> e.contains("UNKNOWN_REQUEST")).hasSize(2)
                .anySatisfy(e -> assertThat(e).contains("in-zz-404"))
                .anySatisfy(e -> assertThat(e).contains("in-" + owner + "-999"));
    }

    @Test
    void wipeUnderAuto_asksOnce_andRunsOnlyAfterAnApprove() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        broker.send("s-ap", wipe("s-ap", "t1"));
        JsonNode request = approvalRequestOwnerStopsReading("s-ap", "t1");
        String owner = askedBy(request.path("approval_id").asText());
        assertThat(request.path("calls")).singleElement().satisfies(c -> {
            assertThat(c.path("name").asText()).isEqualTo("wipe");
            assertThat(c.path("risk").asText()).isEqualTo("high");
        });
        assertThat(ranOn).as("nothing ran before the answer").doesNotContainKey("t1");
        assertThat(Events.types(ofTurn("s-ap", "t1"))).containsExactly("approval_request");

        broker.send("s-ap", approvalResponse("s-ap", request.path("approval_id").asText(), "approve"));
        List<JsonNode> events = awaitTurn("s-ap", "t1");
        assertThat(Events.types(events)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).isEqualTo("wiped disk");
        assertThat(ranOn.get("t1")).isEqualTo(owner);
        await().atMost(Duration.ofSeconds(10)).until(broker::settled);
    }

    @Test
    void anAnswerPassedOnToTheInstanceThatAsked_isASpanOfItsSendersTrace() {
        String traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
        String senderSpan = "00f067aa0ba902b7";
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        broker.send("s-tr", wipe("s-tr", "t1"));
        JsonNode request = approvalRequestOwnerStopsReading("s-tr", "t1");
        broker.send("s-tr", "{\"type\":\"approval_response\",\"stream_id\":\"s-tr\",\"approval_id\":\""
                + request.path("approval_id").asText() + "\",\"decision\":\"approve\",\"traceparent\":\"00-" + traceId
                + "-" + senderSpan + "-01\",\"tracestate\":\"ui=1\"}");
        assertThat(Events.types(awaitTurn("s-tr", "t1"))).containsExactly("approval_request", "tool_result", "turn_completed");
        await().atMost(WAIT).until(() -> !tracing.named("toolbus approval_response").isEmpty());
        assertThat(tracing.named("toolbus approval_response")).singleElement().satisfies(s -> {
            assertThat(s.getTraceId()).isEqualTo(traceId);
            assertThat(s.getParentSpanId()).isEqualTo(senderSpan);
            assertThat(s.getAttributes().get(AttributeKey.stringKey("outcome"))).isEqualTo("applied");
            assertThat(s.getAttributes().get(AttributeKey.stringKey("decision"))).isEqualTo("approve");
        });
    }

    @Test
    void denyAndExpiry_areNotApproved_andALateAnswerIsUnknown() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        broker.send("s-deny", wipe("s-deny", "t1"));
        JsonNode request = approvalRequestOwnerStopsReading("s-deny", "t1");
        broker.send("s-deny", approvalResponse("s-deny", request.path("approval_id").asText(), "deny"));
        List<JsonNode> denied = awaitTurn("s-deny", "t1");
        assertThat(Events.types(denied)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(denied.get(1).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(denied.get(1).path("content").asText()).contains("declined");

        buses.values().forEach(this::resumeReading);
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).timeoutMs(1500).build());
        broker.send("s-deny", wipe("s-deny", "t2"));
        JsonNode late = awaitEvent("s-deny", "t2", "approval_request");
        List<JsonNode> expired = awaitTurn("s-deny", "t2");
        assertThat(Events.types(expired)).containsExactly("approval_request", "tool_result", "turn_completed");
        assertThat(expired.get(1).path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(expired.get(1).path("content").asText()).contains("no answer").contains("1500 ms");
        assertThat(ranOn).doesNotContainKeys("t1", "t2");

        broker.send("s-deny", approvalResponse("s-deny", late.path("approval_id").asText(), "approve"));
        await().atMost(WAIT).until(() -> events("s-deny").stream().anyMatch(e -> e.contains("UNKNOWN_REQUEST")));
        assertThat(events("s-deny")).filteredOn(e -> e.contains("UNKNOWN_REQUEST")).singleElement()
                .satisfies(e -> assertThat(e).contains(late.path("approval_id").asText()));
    }

    @Test
    void approveSession_skipsTheNextAskOfTheConversationOnTheOwner() {
        approval.set(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
        broker.send("s-ses", withUser(turn("s-ses", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"x\":1}}")));
        JsonNode request = approvalRequestOwnerStopsReading("s-ses", "t1");
        String owner = askedBy(request.path("approval_id").asText());
        assertThat(request.path("calls").get(0).path("risk").asText()).isEqualTo("medium");
        broker.send("s-ses", approvalResponse("s-ses", request.path("approval_id").asText(), "approve_session"));
        assertThat(Events.types(awaitTurn("s-ses", "t1"))).containsExactly("approval_request", "tool_result", "turn_completed");

        // grants live on the instance that asked: the owner takes the next turn
        nextTurnsGoTo(buses.get(owner), buses.get(other(owner)));
        broker.send("s-ses", withUser(turn("s-ses", "t2", "{\"tool_call_id\":\"c1\",\"name\":\"echo\",\"arguments\":{\"x\":2}}")));
        List<JsonNode> next = awaitTurn("s-ses", "t2");
        assertThat(Events.types(next)).as("granted for the session").containsExactly("tool_result", "turn_completed");
        assertThat(next.get(0).path("is_error").asBoolean()).isFalse();
    }

    @Test
    void greetsMessageArrivesBeforeItsResult() {
        broker.send("s-g", turn("s-g", "t1", "{\"tool_call_id\":\"c1\",\"name\":\"greet\",\"arguments\":{\"text\":\"你好！\"}}"));
        List<JsonNode> events = awaitTurn("s-g", "t1");
        assertThat(Events.types(events)).containsExactly("send_message", "tool_result", "turn_completed");
        assertThat(events.get(0).path("message_id").asText()).isEqualTo("c1:msg:1");
        assertThat(events.get(0).path("content").get(0).path("text").asText()).isEqualTo("你好！");
        assertThat(events.get(1).path("content").asText()).isEqualTo("greeted");
    }

    @Test
    void askCity_roundTripsDeclineCancelAndExpiry() {
        for (String action : List.of("decline", "cancel")) {
            String t = "t-" + action;
            broker.send("s-ask", turn("s-ask", t, "{\"tool_call_id\":\"c1\",\"name\":\"ask_city\",\"arguments\":{}}"));
            String owner = ownerOf(t);
            String inputId = awaitEvent("s-ask", t, "input_request").path("input_id").asText();
            assertThat(askedBy(inputId)).isEqualTo(owner);
            broker.send("s-ask", "{\"type\":\"input_response\",\"stream_id\":\"s-ask\",\"input_id\":\"" + inputId
                    + "\",\"action\":\"" + action + "\"}");
            List<JsonNode> events = awaitTurn("s-ask", t);
            assertThat(Events.types(events)).containsExactly("input_request", "tool_result", "turn_completed");
            assertThat(events.get(1).path("content").asText()).isEqualTo("no answer (" + action + ")");
            resumeReading(buses.get(owner));
        }
        broker.send("s-ask", turn("s-ask", "t-exp", "{\"tool_call_id\":\"c1\",\"name\":\"ask_city\",\"arguments\":{\"timeout_ms\":1500}}"));
        List<JsonNode> events = awaitTurn("s-ask", "t-exp");
        assertThat(Events.types(events)).containsExactly("input_request", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).isEqualTo("no answer (expired)");
    }

    /** An instance's bus, noting which instance published each approval and input id. */
    private record Recording(ToolBus bus, String instance, Map<String, String> askedBy) implements ToolBus {
        @Override
        public Flux<BusMessage> receive() {
            return bus.receive();
        }

        @Override
        public Mono<Void> publish(List<OutboundEvent> events) {
            for (OutboundEvent e : events) {
                if (e instanceof ApprovalRequestEvent a) {
                    askedBy.putIfAbsent(a.approvalId(), instance);
                } else if (e instanceof InputRequestEvent q) {
                    askedBy.putIfAbsent(q.inputId(), instance);
                }
            }
            return bus.publish(events);
        }

        @Override
        public Mono<Void> publishUnrouted(OutboundEvent event) {
            return bus.publishUnrouted(event);
        }

        @Override
        public TurnState turnState() {
            return bus.turnState();
        }

        @Override
        public Principal principal() {
            return bus.principal();
        }

        @Override
        public Mono<Void> closeGracefully() {
            return bus.closeGracefully();
        }
    }
}
