package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.spi.CallGate;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.GatedCall;
import dev.toolbus.spi.GatedTurn;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** The CallGate hook the approval step plugs into: a stand-in gate that holds "echo" calls until answered. */
class ToolExecutorGateTest {

    /** Holds every call of tool "echo"; one bundled request per turn; approve runs them, deny fails them. */
    static final class HoldingGate implements CallGate {
        final Map<GatedTurn, List<GatedCall>> waiting = new ConcurrentHashMap<>();
        final Map<String, Sinks.One<ErrorInfo>> verdicts = new ConcurrentHashMap<>();
        final Map<String, String> streams = new ConcurrentHashMap<>();
        final AtomicInteger admittedTurns = new AtomicInteger();
        final AtomicInteger disposed = new AtomicInteger();

        @Override
        public Mono<ErrorInfo> admit(GatedCall call) {
            if (!call.definition().name().equals("echo")) {
                return null;
            }
            waiting.computeIfAbsent(call.turn(), t -> new ArrayList<>()).add(call);
            Sinks.One<ErrorInfo> v = Sinks.one();
            verdicts.put(call.call().toolCallId(), v);
            return v.asMono().doOnCancel(disposed::incrementAndGet);
        }

        @Override
        public void turnAdmitted(GatedTurn turn) {
            admittedTurns.incrementAndGet();
            List<GatedCall> calls = waiting.remove(turn);
            if (calls == null) {
                return;
            }
            String id = "ap-" + turn.instanceId() + "-" + admittedTurns.get();
            streams.put(id, turn.event().streamId());
            List<ApprovalRequestEvent.Call> list = calls.stream().map(c -> new ApprovalRequestEvent.Call(
                    c.call().toolCallId(), c.definition().name(), Risk.MEDIUM, c.arguments().toString())).toList();
            turn.publish(ApprovalRequestEvent.builder().streamId(turn.event().streamId())
                    .turnId(turn.event().turnId()).approvalId(id).expiresAtMs(0).calls(list).text("ok?").build())
                    .subscribe();
        }

        @Override
        public ControlOutcome answer(ApprovalResponseEvent r) {
            if (!r.streamId().equals(streams.remove(r.approvalId()))) {
                return ControlOutcome.UNKNOWN_REQUEST;
            }
            verdicts.values().forEach(v -> {
                if (r.decision() == ApprovalDecision.DENY) {
                    v.tryEmitValue(new ErrorInfo(ErrorCode.NOT_APPROVED, "denied"));
                } else {
                    v.tryEmitEmpty();
                }
            });
            return ControlOutcome.APPLIED;
        }
    }

    @Test
    void gatedCallsHoldNoSlotTheirTurnIsBundledOnceAndTheAnswerReachesTheGate() {
        HoldingGate gate = new HoldingGate();
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().callGate(gate).instanceId("g1")
                .tool(TestTools.echo()).tool(TestTools.counter("count", runs))
                .settings(ExecutionSettings.builder().maxParallel(1).cacheResults(false).build()).build();
        List<OutboundEvent> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        var run = ex.execute(turn("s", "t", call("a", "echo", "{\"text\":\"x\"}"), call("b", "count", "{}"),
                call("c", "echo", "{\"text\":\"y\"}"))).doOnNext(seen::add).collectList().toFuture();
        // one bundled request; the ungated call ran meanwhile on the only slot
        assertThat(seen).singleElement().isInstanceOf(ApprovalRequestEvent.class);
        ApprovalRequestEvent req = (ApprovalRequestEvent) seen.get(0);
        assertThat(req.calls()).extracting(ApprovalRequestEvent.Call::toolCallId).containsExactly("a", "c");
        assertThat(runs).hasValue(1);
        assertThat(gate.admittedTurns).hasValue(1);
        assertThat(ex.control(new ApprovalResponseEvent("other", req.approvalId(), ApprovalDecision.APPROVE)).block())
                .isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        gate.streams.put(req.approvalId(), "s");
        assertThat(ex.control(new ApprovalResponseEvent("s", req.approvalId(), ApprovalDecision.APPROVE)).block())
                .isEqualTo(ControlOutcome.APPLIED);
        assertThat(TestTools.results(run.join())).extracting(r -> r.content()).containsExactly("x", "n=1:", "y");
        assertThat(run.join()).extracting(OutboundEvent::type).containsExactly("approval_request", "tool_result",
                "tool_result", "tool_result", "turn_completed");
    }

    @Test
    void aGateErrorEndsTheCallWithItsCodeAndACancelDisposesTheWait() {
        HoldingGate gate = new HoldingGate();
        ToolExecutor ex = ToolExecutor.builder().callGate(gate).tool(TestTools.echo()).build();
        var denied = ex.execute(turn("s", "t1", call("a", "echo", "{\"text\":\"x\"}"))).collectList().toFuture();
        String id = gate.streams.keySet().iterator().next();
        ex.control(new ApprovalResponseEvent("s", id, ApprovalDecision.DENY)).block();
        assertThat(TestTools.results(denied.join()).get(0).error().code()).isEqualTo(ErrorCode.NOT_APPROVED);

        var cancelled = ex.execute(turn("s", "t2", call("b", "echo", "{\"text\":\"x\"}"))).collectList().toFuture();
        assertThat(ex.control(CancelEvent.ofTurn("s", "t2")).block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(TestTools.results(cancelled.join()).get(0).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(gate.disposed).hasValue(1);
    }
}
