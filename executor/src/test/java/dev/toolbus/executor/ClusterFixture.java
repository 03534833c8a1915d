package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ReplayedEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.publisher.Mono;

/** Tools, instances and helpers of the turn-state tests: executors sharing one in-memory state on virtual time. */
abstract class ClusterFixture {


    final Instances cluster = new Instances();
    final AtomicInteger paid = new AtomicInteger();
    final AtomicInteger charged = new AtomicInteger();
    final AtomicInteger looked = new AtomicInteger();
    /** While set, {@code pay} counts its run and then never answers (its instance dies meanwhile). */
    final AtomicBoolean payHangs = new AtomicBoolean();
    /** While set, {@code lookup} counts its run and then never answers. */
    final AtomicBoolean lookupHangs = new AtomicBoolean();
    final AtomicReference<ApprovalSettings> approval = new AtomicReference<>(ApprovalSettings.defaults());
    final List<OutboundEvent> live = new CopyOnWriteArrayList<>();

    /** Side-effecting, not idempotent: goes through the journal. */
    ToolSpec pay() {
        return new ToolSpec(ToolDefinition.builder("pay").description("pays").sideEffecting(true).risk(Risk.HIGH).build(),
                (a, c) -> {
                    int n = paid.incrementAndGet();
                    return payHangs.get() ? Mono.never() : Mono.just(ToolResult.text("paid " + n));
                });
    }

    /** Side-effecting but declared idempotent: retry-safe. */
    ToolSpec charge() {
        return new ToolSpec(ToolDefinition.builder("charge").description("charges once per key").sideEffecting(true)
                .idempotent(true).build(), (a, c) -> Mono.just(ToolResult.text("charged " + charged.incrementAndGet())));
    }

    /** Read-only. */
    ToolSpec lookup() {
        return new ToolSpec(ToolDefinition.builder("lookup").description("reads").risk(Risk.LOW).build(),
                (a, c) -> {
                    int n = looked.incrementAndGet();
                    return lookupHangs.get() ? Mono.never() : Mono.just(ToolResult.text("looked " + n));
                });
    }

    /** A result of 500 characters cut at 100. */
    static ToolSpec longText() {
        return new ToolSpec(ToolDefinition.builder("long_text").description("long").maxResultChars(100).build(),
                (a, c) -> Mono.just(ToolResult.text("0123456789".repeat(50))));
    }

    ToolExecutor instance(String id, Instances.View view) {
        return instance(id, cluster, view);
    }

    ToolExecutor instance(String id, Instances on, Instances.View view) {
        return ToolExecutor.builder().timer(on.vts).instanceId(id).approval(approval::get)
                .turnState(view.state).settings(ExecutionSettings.builder().cacheResults(false).build())
                .tool(pay()).tool(charge()).tool(lookup()).tool(longText()).tool(ToolExecutorAskTest.askCity())
                .build();
    }

    CompletableFuture<List<OutboundEvent>> run(ToolExecutor ex, ToolCallsEvent t) {
        return run(ex, t, Principal.local());
    }

    CompletableFuture<List<OutboundEvent>> run(ToolExecutor ex, ToolCallsEvent t, Principal p) {
        return ex.execute(t, p).doOnNext(live::add).collectList().toFuture();
    }

    static ToolCallsEvent turnOf(String stream, String turnId, String user, ToolCall... calls) {
        return new ToolCallsEvent(stream, turnId, List.of(calls),
                CallContext.builder().userId(user).putAll(Map.of()).build(), null);
    }

    static List<ToolResultEvent> results(List<OutboundEvent> out) {
        return out.stream().map(e -> e instanceof ReplayedEvent r ? r.event() : e)
                .filter(e -> e instanceof ToolResultEvent).map(e -> (ToolResultEvent) e).toList();
    }

    <T> List<T> seen(Class<T> type) {
        return live.stream().filter(type::isInstance).map(type::cast).toList();
    }

}
