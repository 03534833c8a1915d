package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.Principal;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.tool.InputAnswer;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.test.scheduler.VirtualTimeScheduler;

class ToolExecutorAskTest {

    static final JsonNode SCHEMA = Json.mapper().createObjectNode().put("type", "object")
            .set("properties", Json.mapper().createObjectNode()
                    .set("city", Json.mapper().createObjectNode().put("type", "string")));

    /** ask_city(): "city <answer>", or "no answer (<outcome>)". */
    static ToolSpec askCity() {
        return new ToolSpec(ToolDefinition.builder("ask_city").description("a").build(),
                (a, c) -> c.ask("Which city?", SCHEMA).map(ans -> ToolResult.text(ans.accepted()
                        ? "city " + ans.content().get("city").asText()
                        : "no answer (" + ans.outcome().name().toLowerCase() + ")")));
    }

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ToolExecutor ex = ToolExecutor.builder().timer(vts).meterRegistry(meters).instanceId("i7")
            .tool(askCity()).build();
    private final List<OutboundEvent> events = new CopyOnWriteArrayList<>();

    private CompletableFuture<List<OutboundEvent>> start(String stream, String callId) {
        return ex.execute(turn(stream, "t", call(callId, "ask_city", "{}"))).doOnNext(events::add)
                .collectList().toFuture();
    }

    private InputRequestEvent question() {
        return events.stream().filter(e -> e instanceof InputRequestEvent).map(e -> (InputRequestEvent) e)
                .reduce((x, y) -> y).orElseThrow();
    }

    private static ToolResultEvent result(List<OutboundEvent> out) {
        return TestTools.results(out).get(0);
    }

    private ControlOutcome answer(String stream, String id, InputAction action, JsonNode content) {
        return ex.control(new InputResponseEvent(stream, id, action, content)).block();
    }

    @Test
    void acceptAnswersTheQuestionAndASecondAnswerIsUnknown() {
        vts.advanceTimeBy(Duration.ofMillis(1_000));
        var run = start("s", "c1");
        InputRequestEvent q = question();
        assertThat(q.inputId()).isEqualTo(ControlRequest.inputId(CallKey.of(Principal.local(), "s", "t", "c1"), 1));
        assertThat(ControlRequest.isDerivedId(q.inputId())).isTrue();
        assertThat(q.message()).isEqualTo("Which city?");
        assertThat(q.schema()).isEqualTo(SCHEMA);
        assertThat(q.expiresAtMs()).isEqualTo(1_000 + 60_000);
        assertThat(q.toolCallId()).isEqualTo("c1");
        ObjectNode paris = Json.mapper().createObjectNode().put("city", "Paris");
        assertThat(answer("s", q.inputId(), InputAction.ACCEPT, paris)).isEqualTo(ControlOutcome.APPLIED);
        assertThat(result(run.join()).content()).isEqualTo("city Paris");
        assertThat(run.join()).extracting(OutboundEvent::type)
                .containsExactly("input_request", "tool_result", "turn_completed");
        assertThat(answer("s", q.inputId(), InputAction.ACCEPT, paris)).isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(meters.counter(ToolMetrics.CONTROL_INPUTS, "outcome", "asked").count()).isEqualTo(1);
        assertThat(meters.counter(ToolMetrics.CONTROL_INPUTS, "outcome", "accept").count()).isEqualTo(1);
    }

    @Test
    void declineAndCancelGiveNoAnswer() {
        var first = start("s", "c1");
        assertThat(answer("s", question().inputId(), InputAction.DECLINE, null)).isEqualTo(ControlOutcome.APPLIED);
        assertThat(result(first.join()).content()).isEqualTo("no answer (decline)");
        var second = start("s", "c2");
        assertThat(answer("s", question().inputId(), InputAction.CANCEL, null)).isEqualTo(ControlOutcome.APPLIED);
        assertThat(result(second.join()).content()).isEqualTo("no answer (cancel)");
    }

    @Test
    void aQuestionExpiresAfterItsTimeoutAndLateAnswersAreUnknown() {
        var run = start("s", "c1");
        String id = question().inputId();
        vts.advanceTimeBy(Duration.ofMillis(59_999));
        assertThat(run).isNotDone();
        vts.advanceTimeBy(Duration.ofMillis(1));
        assertThat(result(run.join()).content()).isEqualTo("no answer (expired)");
        assertThat(answer("s", id, InputAction.ACCEPT, null)).isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(TestEngines.engine(ex).pendingInputs()).isZero();
    }

    @Test
    void anAskWithItsOwnTimeoutExpiresThen() {
        ToolSpec quick = new ToolSpec(ToolDefinition.builder("quick").description("q").build(),
                (a, c) -> c.ask("Now?", null, Duration.ofSeconds(5)).map(x -> ToolResult.text(x.outcome().name())));
        ToolExecutor ex2 = ToolExecutor.builder().timer(vts).tool(quick).build();
        var run = ex2.execute(turn("s", "t", call("q", "quick", "{}"))).collectList().toFuture();
        vts.advanceTimeBy(Duration.ofSeconds(5));
        assertThat(result(run.join()).content()).isEqualTo("EXPIRED");
    }

    @Test
    void anAnswerWithAnotherStreamIdIsUnknownAndLeavesTheQuestionWaiting() {
        var run = start("A", "c1");
        String id = question().inputId();
        assertThat(answer("B", id, InputAction.ACCEPT, Json.mapper().createObjectNode().put("city", "Rome")))
                .isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(run).isNotDone();
        assertThat(answer("A", id, InputAction.ACCEPT, Json.mapper().createObjectNode().put("city", "Oslo")))
                .isEqualTo(ControlOutcome.APPLIED);
        assertThat(result(run.join()).content()).isEqualTo("city Oslo");
    }

    @Test
    void cancellingTheCallResolvesItsQuestionAsCancelAndEndsItCancelled() {
        AtomicReference<InputAnswer> seen = new AtomicReference<>();
        ToolSpec watcher = new ToolSpec(ToolDefinition.builder("watch").description("w").build(),
                (a, c) -> {
                    c.ask("Sure?", null).subscribe(seen::set);
                    return reactor.core.publisher.Mono.never();
                });
        ToolExecutor ex2 = ToolExecutor.builder().timer(vts).tool(watcher).build();
        var run = ex2.execute(turn("s", "t", call("w", "watch", "{}"))).collectList().toFuture();
        assertThat(TestEngines.engine(ex2).pendingInputs()).isEqualTo(1);
        assertThat(ex2.control(CancelEvent.builder().streamId("s").turnId("t").toolCallId("w")
                .build()).block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(result(run.join()).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(seen.get().outcome()).isEqualTo(InputAnswer.Outcome.CANCEL);
        assertThat(TestEngines.engine(ex2).pendingInputs()).isZero();
    }

    @Test
    void unknownIdsAreAnsweredWithAnUnknownRequestError() {
        List<OutboundEvent> out = ex.handle(new InputResponseEvent("s", "in-i7-99", InputAction.ACCEPT, null))
                .collectList().block();
        assertThat(out).hasSize(1);
        ErrorEvent e = (ErrorEvent) out.get(0);
        assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_REQUEST);
        assertThat(e.streamId()).isEqualTo("s");
        assertThat(e.message()).contains("in-i7-99");
        // without an approval step nobody waits for approvals
        assertThat(ex.control(new ApprovalResponseEvent("s", "ap-i7-1", ApprovalDecision.APPROVE)).block())
                .isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
    }

    @Test
    void onABusTheQuestionIsPublishedLiveTheAnswerComesAsAnEventAndUnknownIdsGetAnError() throws Exception {
        InMemoryBus bus = InMemoryBus.create();
        ToolExecutor busEx = ToolExecutor.builder().tool(askCity()).build();
        var questions = bus.events("s").filter(e -> e instanceof InputRequestEvent).next().toFuture();
        var rest = bus.events("s").filter(e -> !(e instanceof InputRequestEvent)).take(3).collectList().toFuture();
        Disposable d = busEx.attach(bus);
        bus.send(turn("s", "t", call("c", "ask_city", "{}")));
        InputRequestEvent q = (InputRequestEvent) questions.get(10, TimeUnit.SECONDS);
        assertThat(q.inputId()).as("the id names no instance: any instance may take the turn next")
                .isEqualTo(ControlRequest.inputId(CallKey.of(Principal.local(), "s", "t", "c"), 1));
        // the turn holds the stream's lane; the control event still acts at once
        bus.send("{\"type\":\"input_response\",\"stream_id\":\"s\",\"input_id\":\"in-nobody-1\",\"action\":\"accept\"}");
        bus.send(new InputResponseEvent("s", q.inputId(), InputAction.ACCEPT,
                Json.mapper().createObjectNode().put("city", "Paris")));
        List<OutboundEvent> out = rest.get(10, TimeUnit.SECONDS);
        assertThat(out).extracting(OutboundEvent::type).containsExactly("error", "tool_result", "turn_completed");
        assertThat(((ErrorEvent) out.get(0)).code()).isEqualTo(ErrorCode.UNKNOWN_REQUEST);
        assertThat(((ToolResultEvent) out.get(1)).content()).isEqualTo("city Paris");
        d.dispose();
    }
}
