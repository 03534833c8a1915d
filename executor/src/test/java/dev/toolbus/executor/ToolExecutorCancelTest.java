package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ToolExecutorCancelTest {

    private static ToolResultEvent result(OutboundEvent e) {
        assertThat(e).isInstanceOf(ToolResultEvent.class);
        return (ToolResultEvent) e;
    }

    @Test
    void inflightAndItsGaugeCountTheHandlersRunningNowAndDropToZeroWhenTheyAreCancelled() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).meterRegistry(meters)
                .tool(TestTools.hang(started, cancelled)).tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxParallel(3).cacheResults(false).build()).build();
        assertThat(ex.inflight()).isZero();
        List<reactor.core.Disposable> turns = new java.util.ArrayList<>();
        for (int i = 0; i < 2; i++) {
            turns.add(ex.execute(turn("s" + i, "t", call("h", "hang", "{}"))).subscribe());
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> started.get() == 2);
        assertThat(ex.inflight()).isEqualTo(2);
        assertThat(meters.get(ToolMetrics.INFLIGHT).gauge().value()).isEqualTo(2.0);
        // a call that ends at once is not counted after it ended
        assertThat(ex.execute(turn("s9", "t", call("e", "echo", "{\"text\":\"x\"}"))).collectList()
                .block(Duration.ofSeconds(5))).hasSize(2);
        assertThat(ex.inflight()).isEqualTo(2);
        turns.get(0).dispose();
        await().atMost(Duration.ofSeconds(5)).until(() -> ex.inflight() == 1);
        assertThat(meters.get(ToolMetrics.INFLIGHT).gauge().value()).isEqualTo(1.0);
        turns.get(1).dispose();
        await().atMost(Duration.ofSeconds(5)).until(() -> ex.inflight() == 0);
        assertThat(meters.get(ToolMetrics.INFLIGHT).gauge().value()).isZero();
        assertThat(cancelled).hasValue(2);
    }

    @Test
    void cancelOfOneNonBlockingCallEndsItCancelledKeepsTheOthersInOrderAndFreesTheSlot() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts)
                .tool(TestTools.hang(started, cancelled)).tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxParallel(1).cacheResults(false).build()).build();
        // one slot: "c" can only run once the cancelled "b" gave its slot back
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t1", call("a", "echo", "{\"text\":\"one\"}"),
                                call("b", "hang", "{}"), call("c", "echo", "{\"text\":\"two\"}"))),
                        () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .assertNext(e -> assertThat(result(e).content()).isEqualTo("one"))
                .expectNoEvent(Duration.ofSeconds(5))
                .then(() -> assertThat(ex.control(CancelEvent.builder().streamId("s").turnId("t1").toolCallId("b")
                        .reason("stop").build()).block())
                        .isEqualTo(ControlOutcome.APPLIED))
                .assertNext(e -> {
                    assertThat(result(e).toolCallId()).isEqualTo("b");
                    assertThat(result(e).error().code()).isEqualTo(ErrorCode.CANCELLED);
                })
                .assertNext(e -> assertThat(result(e).content()).isEqualTo("two"))
                .assertNext(e -> {
                    TurnCompletedEvent t = (TurnCompletedEvent) e;
                    assertThat(t.toolCallIds()).containsExactly("a", "b", "c");
                    assertThat(t.errorCount()).isEqualTo(1);
                })
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        assertThat(cancelled).hasValue(1);
        assertThat(ex.inflight()).isZero();
        assertThat(TestEngines.engine(ex).queued()).isZero();
        assertThat(ex.callLog().recent(r -> r.toolCallId().equals("b"), 1)).singleElement().satisfies(r -> {
            assertThat(r.outcome()).isEqualTo("cancelled");
            assertThat(r.detail()).isEqualTo("cancel event: stop");
        });
        assertThat(ex.callLog().recent(r -> r.toolCallId().equals("a"), 1).get(0).detail()).isEmpty();
        // finished: a second cancel of the same call is a no-op
        assertThat(ex.control(CancelEvent.builder().streamId("s").turnId("t1").toolCallId("b")
                .build()).block()).isEqualTo(ControlOutcome.NOTHING_TO_DO);
    }

    @Test
    void cancelOfABlockingCallSleeping30sInterruptsItPromptlyAndFiresTheContextCancel() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicBoolean contextCancelled = new AtomicBoolean();
        ToolSpec sleeper = TestTools.blocking("sleep", (a, c) -> {
            c.onCancel().subscribe(null, null, () -> contextCancelled.set(true));
            running.countDown();
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                interrupted.set(true);
                throw e;
            }
            return ToolResult.text("woke");
        });
        ToolExecutor ex = ToolExecutor.builder().tool(sleeper).tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxParallel(1).timeoutMs(60_000).build()).build();
        CompletableFuture<List<OutboundEvent>> events = ex.execute(turn("s", "t", call("z", "sleep", "{}"),
                call("e", "echo", "{\"text\":\"after\"}"))).collectList().toFuture();
        assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ex.control(CancelEvent.builder().streamId("s").turnId("t").toolCallId("z").reason("user said stop")
                .build()).block())
                .isEqualTo(ControlOutcome.APPLIED);
        // the issue allows one second; a generous bound for a loaded machine
        List<OutboundEvent> out = events.get(5, TimeUnit.SECONDS);
        assertThat(out).extracting(OutboundEvent::type).containsExactly("tool_result", "tool_result", "turn_completed");
        assertThat(result(out.get(0)).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(result(out.get(1)).content()).isEqualTo("after");
        await().atMost(Duration.ofSeconds(5)).untilTrue(interrupted);
        assertThat(contextCancelled).isTrue();
        assertThat(ex.inflight()).isZero();
        ex.close();
    }

    @Test
    void cancelWithoutCallIdEndsEveryUnfinishedCallOfTheTurn() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger cancelled = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts)
                .tool(TestTools.hang(new AtomicInteger(), cancelled)).tool(TestTools.echo()).build();
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t1", call("a", "hang", "{}"),
                                call("b", "echo", "{\"text\":\"kept\"}"), call("c", "hang", "{}"))),
                        () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .expectNoEvent(Duration.ofSeconds(1))
                .then(() -> assertThat(ex.control(CancelEvent.ofTurn("s", "t1")).block())
                        .isEqualTo(ControlOutcome.APPLIED))
                .assertNext(e -> assertThat(result(e).error().code()).isEqualTo(ErrorCode.CANCELLED))
                .assertNext(e -> assertThat(result(e).content()).isEqualTo("kept"))
                .assertNext(e -> assertThat(result(e).error().code()).isEqualTo(ErrorCode.CANCELLED))
                .assertNext(e -> assertThat(e).isInstanceOf(TurnCompletedEvent.class))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        assertThat(cancelled).hasValue(2);
    }

    @Test
    void cancelOfAStreamEndsItsRunningAndQueuedTurnsAndNeverTouchesAnotherStream() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).meterRegistry(meters)
                .tool(TestTools.hang(new AtomicInteger(), cancelled)).tool(TestTools.counter("count", runs))
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
        var a1 = ex.execute(turn("A", "t1", call("h", "hang", "{}"))).collectList().toFuture();
        var a2 = ex.execute(turn("A", "t2", call("n", "count", "{}"))).collectList().toFuture();
        var b1 = ex.execute(turn("B", "t1", call("h", "hang", "{}"))).collectList().toFuture();
        assertThat(ex.control(CancelEvent.builder().streamId("A").reason("stop all")
                .build()).block()).isEqualTo(ControlOutcome.APPLIED);
        List<OutboundEvent> first = a1.join();
        List<OutboundEvent> second = a2.join();
        assertThat(result(first.get(0)).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(first.get(1)).isInstanceOf(TurnCompletedEvent.class);
        // the queued turn's call was answered CANCELLED when it reached the front: it never ran
        assertThat(result(second.get(0)).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(second.get(1)).isInstanceOf(TurnCompletedEvent.class);
        assertThat(runs).hasValue(0);
        assertThat(b1).isNotDone();
        assertThat(cancelled).hasValue(1);
        // stream B is untouched until its own cancel
        assertThat(ex.control(CancelEvent.builder().streamId("B").turnId("t1").toolCallId("h")
                .build()).block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(result(b1.join().get(0)).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(ex.control(CancelEvent.ofStream("A")).block()).isEqualTo(ControlOutcome.NOTHING_TO_DO);
        assertThat(meters.counter(ToolMetrics.CONTROL_CANCELS, "source", "event", "outcome", "applied").count())
                .isEqualTo(2);
        assertThat(meters.counter(ToolMetrics.CONTROL_CANCELS, "source", "event", "outcome", "nothing_to_do")
                .count()).isEqualTo(1);
    }

    @Test
    void cancelOfAQueuedTurnByItsIdLeavesTheRunningTurnAlone() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts)
                .tool(TestTools.sleep(vts)).tool(TestTools.counter("count", runs))
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
        var t1 = ex.execute(turn("s", "t1", call("z", "sleep", "{\"ms\":1000}"))).collectList().toFuture();
        var t2 = ex.execute(turn("s", "t2", call("n", "count", "{}"), call("m", "count", "{}")))
                .collectList().toFuture();
        assertThat(ex.control(CancelEvent.builder().streamId("s").turnId("t2").toolCallId("m")
                .build()).block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(ex.control(CancelEvent.builder().streamId("s").turnId("t2").toolCallId("nope").build()).block())
                .isEqualTo(ControlOutcome.NOTHING_TO_DO);
        vts.advanceTimeBy(Duration.ofSeconds(1));
        assertThat(result(t1.join().get(0)).content()).isEqualTo("slept 1000");
        List<OutboundEvent> second = t2.join();
        assertThat(result(second.get(0)).content()).isEqualTo("n=1:");
        assertThat(result(second.get(1)).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aControlCancelRacingTheStartOfAOneCallTurnIsNeverLost() throws Exception {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.hang(started, cancelled))
                .settings(ExecutionSettings.builder().maxParallel(4).cacheResults(false).build()).build();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < 300; i++) {
                String s = "s" + i;
                // "b" waits behind "a"; cancelling "a" starts "b" on that thread while the other cancels b's call:
                // the cancel finds the call made, or leaves its note for the start; either way the call, which
                // never answers by itself, ends CANCELLED
                var a = ex.execute(turn(s, "a", call("x", "hang", "{}"))).collectList().toFuture();
                var b = ex.execute(turn(s, "b", call("y", "hang", "{}"))).collectList().toFuture();
                java.util.concurrent.CyclicBarrier go = new java.util.concurrent.CyclicBarrier(2);
                var release = pool.submit(() -> {
                    go.await();
                    return ex.control(CancelEvent.builder().streamId(s).turnId("a").build()).block();
                });
                var stop = pool.submit(() -> {
                    go.await();
                    return ex.control(CancelEvent.builder().streamId(s).turnId("b").toolCallId("y").build()).block();
                });
                assertThat(release.get(10, TimeUnit.SECONDS)).isEqualTo(ControlOutcome.APPLIED);
                assertThat(stop.get(10, TimeUnit.SECONDS)).as("round %d", i).isEqualTo(ControlOutcome.APPLIED);
                assertThat(result(a.get(10, TimeUnit.SECONDS).get(0)).error().code()).isEqualTo(ErrorCode.CANCELLED);
                List<OutboundEvent> events = b.get(10, TimeUnit.SECONDS);
                assertThat(result(events.get(0)).error().code()).as("round %d", i).isEqualTo(ErrorCode.CANCELLED);
                assertThat(events.get(1)).isInstanceOf(TurnCompletedEvent.class);
            }
        } finally {
            pool.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> ex.inflight() == 0);
        assertThat(cancelled.get()).isEqualTo(started.get());
    }

    @Test
    void cancelOfACallWaitingForASlotAnswersItAtOnce() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        ToolExecutor ex = ToolExecutor.builder().timer(vts)
                .tool(TestTools.hang(new AtomicInteger(), new AtomicInteger())).tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxParallel(1).build()).build();
        var a = ex.execute(turn("A", "t", call("h", "hang", "{}"))).collectList().toFuture();
        var b = ex.execute(turn("B", "t", call("w", "echo", "{\"text\":\"x\"}"))).collectList().toFuture();
        assertThat(b).isNotDone();
        assertThat(ex.control(CancelEvent.builder().streamId("B").turnId("t").toolCallId("w")
                .build()).block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(result(b.join().get(0)).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(a).isNotDone();
        ex.control(CancelEvent.ofStream("A")).block();
        assertThat(result(a.join().get(0)).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(ex.inflight()).isZero();
    }

    @Test
    void onABusACancelActsAtOnceWhileTheStreamsLaneIsBusy() throws Exception {
        dev.toolbus.bus.InMemoryBus bus = dev.toolbus.bus.InMemoryBus.create();
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.hang(new AtomicInteger(), new AtomicInteger()))
                .tool(TestTools.echo()).build();
        var events = bus.events("s").take(4).collectList().toFuture();
        var d = ex.attach(bus);
        bus.send(turn("s", "t1", call("h", "hang", "{}")));
        // queued behind t1 on the same stream; the cancel must not wait behind it
        bus.send(turn("s", "t2", call("e", "echo", "{\"text\":\"next\"}")));
        bus.send(CancelEvent.builder().streamId("s").turnId("t1").toolCallId("h").reason("stop").build());
        List<OutboundEvent> out = events.get(10, TimeUnit.SECONDS);
        assertThat(out).extracting(OutboundEvent::type)
                .containsExactly("tool_result", "turn_completed", "tool_result", "turn_completed");
        assertThat(result(out.get(0)).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(result(out.get(2)).content()).isEqualTo("next");
        d.dispose();
    }

    @Test
    void cancelForNothingUnfinishedIsANoOp() {
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo()).build();
        assertThat(ex.control(CancelEvent.ofStream("nobody")).block())
                .isEqualTo(ControlOutcome.NOTHING_TO_DO);
        assertThat(ex.handle(CancelEvent.builder().streamId("nobody").turnId("t").toolCallId("c")
                .build()).collectList().block()).isEmpty();
    }
}
