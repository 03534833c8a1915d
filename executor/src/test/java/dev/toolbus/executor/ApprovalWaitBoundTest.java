package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Issue 21 M8: turns waiting for approval kept their whole event (up to 1 MiB) with no byte bound, so
 * one token with 8 WebSockets brought a 512 MiB server down. Waiting turns are now weighed; a turn that
 * would pass {@code approval.maxWaitingBytes} is not asked: its calls end {@code REJECTED} at once.
 */
class ApprovalWaitBoundTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<OutboundEvent> events = new CopyOnWriteArrayList<>();
    private final ToolExecutor ex = ToolExecutor.builder().timer(vts).meterRegistry(meters)
            .approval(ApprovalSettings.builder().mode(ApprovalMode.AUTO).maxWaitingBytes(256 * 1024).build())
            .tool(new ToolSpec(ToolDefinition.builder("wipe").description("w").risk(Risk.HIGH)
                    .parameter(ToolParameter.of("target", ToolParamType.STRING, "t")).build(),
                    (a, c) -> Mono.just(ToolResult.text("wiped")))).build();

    /** A turn (on a stream of its own) of one wipe whose argument is {@code chars} characters (about twice as many bytes held). */
    private CompletableFuture<List<OutboundEvent>> wipe(String turn, int chars) {
        return ex.execute(TestTools.turn("s-" + turn, turn, call("c", "wipe", "{\"target\":\"" + "x".repeat(chars) + "\"}")))
                .doOnNext(events::add).collectList().toFuture();
    }

    private List<ApprovalRequestEvent> requests() {
        return events.stream().filter(e -> e instanceof ApprovalRequestEvent).map(e -> (ApprovalRequestEvent) e)
                .toList();
    }

    private static ToolResultEvent result(CompletableFuture<List<OutboundEvent>> turn) {
        return TestTools.results(turn.join()).get(0);
    }

    @Test
    void aTurnThatWouldPassTheBoundIsRefusedAtOnceAndTheBoundFreesWithTheAnswer() {
        var first = wipe("t1", 60_000);   // ~120 KB held while it waits
        var second = wipe("t2", 60_000);  // ~240 KB: still within 256 KiB
        assertThat(requests()).hasSize(2);
        var third = wipe("t3", 60_000);   // would pass it
        assertThat(third).isDone();
        ToolResultEvent refused = result(third);
        assertThat(refused.error().code()).isEqualTo(ErrorCode.REJECTED);
        assertThat(refused.content()).startsWith("Tool not executed: too many calls wait for approval now (")
                .endsWith(" of at most 262144 bytes of their turns are held); try again once some are answered.");
        assertThat(requests()).as("the refused turn was never asked").hasSize(2);
        assertThat(meters.counter(ToolMetrics.CONTROL_APPROVALS, "outcome", "rejected").count()).isEqualTo(1);

        ex.control(new ApprovalResponseEvent("s-t1", requests().get(0).approvalId(), ApprovalDecision.APPROVE)).block();
        assertThat(result(first).content()).isEqualTo("wiped");
        var fourth = wipe("t4", 60_000);
        assertThat(requests()).as("answering gave its bytes back").hasSize(3);
        ex.control(new ApprovalResponseEvent("s-t2", requests().get(1).approvalId(), ApprovalDecision.DENY)).block();
        assertThat(result(second).error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
        vts.advanceTimeBy(ApprovalSettings.builder().build().timeout());
        assertThat(result(fourth).error().code()).as("expired").isEqualTo(ErrorCode.NOT_APPROVED);
        var fifth = wipe("t5", 100_000);
        var sixth = wipe("t6", 10_000);
        assertThat(requests()).as("an expired request gave its bytes back too").hasSize(5);
        fifth.cancel(true);
        sixth.cancel(true);
    }

    @Test
    void aTurnBiggerThanTheWholeBoundIsNeverAsked() {
        var big = wipe("t1", 200_000);
        assertThat(result(big).error().code()).isEqualTo(ErrorCode.REJECTED);
        assertThat(requests()).isEmpty();
        var small = wipe("t2", 100);
        assertThat(requests()).hasSize(1);
        small.cancel(true);
    }

    @Test
    void turnsOfTheProcesssOwnIdentityCountUnderTheTotalAlone() {
        // every turn given to execute() (as every turn of a broker bus or stdio) has one shared principal:
        // a per-principal bound there would only be a second, smaller total
        try (ToolExecutor local = ToolExecutor.builder().timer(vts)
                .approval(ApprovalSettings.builder().mode(ApprovalMode.AUTO).maxWaitingBytes(256 * 1024)
                        .maxWaitingBytesPerPrincipal(64 * 1024).build())
                .tool(new ToolSpec(ToolDefinition.builder("wipe").description("w").risk(Risk.HIGH)
                        .parameter(ToolParameter.of("target", ToolParamType.STRING, "t")).build(),
                        (a, c) -> Mono.just(ToolResult.text("wiped")))).build()) {
            List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
            List<reactor.core.Disposable> turns = new java.util.ArrayList<>();
            for (String t : List.of("t1", "t2")) { // ~120 KB each: past 64 KiB together, within 256 KiB
                turns.add(local.execute(TestTools.turn("s-" + t, t,
                                call("c", "wipe", "{\"target\":\"" + "x".repeat(60_000) + "\"}")))
                        .doOnNext(seen::add).subscribe());
            }
            assertThat(seen).filteredOn(e -> e instanceof ApprovalRequestEvent).hasSize(2);
            assertThat(seen).filteredOn(e -> e instanceof ToolResultEvent).isEmpty();
            turns.forEach(reactor.core.Disposable::dispose); // the waiting turns end, so close() need not wait
        }
    }

    @Test
    void theBoundsAreSettingsWithStrictBuilders() {
        assertThat(ApprovalSettings.defaults().maxWaitingBytes()).isEqualTo(64L << 20);
        assertThat(ApprovalSettings.defaults().maxWaitingBytesPerPrincipal()).isEqualTo(16L << 20);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ApprovalSettings.builder().maxWaitingBytes(1000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxWaitingBytes");
    }
}
