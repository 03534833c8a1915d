package dev.toolbus.executor.internal;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.results;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.TestTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.internal.Trampoline;
import dev.toolbus.metrics.ExecutorHealth;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Issue 9, High 1: an {@code Error} anywhere in a call ends it TOOL_FAILED and frees its slot and lane. */
class ErrorReleaseTest {

    private static ToolSpec tool(String name, ToolHandler handler) {
        return new ToolSpec(ToolDefinition.builder(name).description(name).cacheScope(CacheScope.NONE).build(),
                handler);
    }

    /** Runs the failing call, then (one slot, same stream) an echo that only runs if the slot and lane were freed. */
    private static void assertFailsAndReleases(ToolSpec failing) {
        ToolExecutor ex = ToolExecutor.builder().tool(failing).tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxParallel(1).cacheResults(false).build()).build();
        List<OutboundEvent> first = ex.execute(turn("s", "t1", call("c1", failing.definition().name(), "{}")))
                .collectList().block(Duration.ofSeconds(10));
        ToolResultEvent r = results(first).get(0);
        assertThat(r.isError()).isTrue();
        assertThat(r.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(r.content()).contains("Error");
        List<OutboundEvent> second = ex.execute(turn("s", "t2", call("c2", "echo", "{\"text\":\"after\"}")))
                .collectList().block(Duration.ofSeconds(10));
        assertThat(results(second).get(0).content()).isEqualTo("after");
        // a blocking handler's thread frees the slot just after the result is out
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            ExecutorHealth h = ex.health();
            assertThat(h.slotsInUse()).isZero();
            assertThat(h.runningCalls()).isZero();
            assertThat(h.healthy()).isTrue();
            assertThat(ex.inflight()).isZero();
        });
    }

    @Test
    void anOutOfMemoryErrorThrownByTheHandlerBecomesToolFailed() {
        assertFailsAndReleases(tool("oom", (a, c) -> {
            throw new OutOfMemoryError("simulated");
        }));
    }

    @Test
    void aFatalErrorThrownWhileSubscribingToTheToolsMonoBecomesToolFailed() {
        // Reactor rethrows JVM-fatal errors out of subscribe(): they reach the slot task
        assertFailsAndReleases(tool("oomMono", (a, c) -> Mono.fromCallable(() -> {
            throw new OutOfMemoryError("simulated");
        })));
    }

    @Test
    void anErrorSignalledByTheToolsMonoBecomesToolFailed() {
        assertFailsAndReleases(tool("soMono", (a, c) -> Mono.error(new StackOverflowError("simulated"))));
    }

    @Test
    void anAssertionErrorThrownByTheHandlerBecomesToolFailed() {
        assertFailsAndReleases(tool("assert", (a, c) -> {
            throw new AssertionError("simulated");
        }));
    }

    @Test
    void aBlockingHandlerThrowingAnOutOfMemoryErrorBecomesToolFailedAtOnce() {
        ToolSpec spec = new ToolSpec(ToolDefinition.builder("oomBlocking").description("b")
                .cacheScope(CacheScope.NONE).build(),
                ToolHandler.blocking((a, c) -> {
                    throw new OutOfMemoryError("simulated");
                }));
        assertFailsAndReleases(spec);
    }

    @Test
    void identicalCachedCallsOfAToolThrowingAnErrorAllFailAndTheKeyIsNotPoisoned() {
        AtomicInteger runs = new AtomicInteger();
        Sinks.Empty<Void> gate = Sinks.empty();
        ToolSpec spec = new ToolSpec(ToolDefinition.builder("cachedOom").description("c").build(), (a, c) -> {
            if (runs.incrementAndGet() == 1) {
                // the leader is still running when the identical call joins its flight
                return gate.asMono().then(Mono.error(new AssertionError("simulated")));
            }
            return Mono.just(ToolResult.text("ok"));
        });
        ToolExecutor ex = ToolExecutor.builder().tool(spec)
                .settings(ExecutionSettings.builder().maxParallel(1).build()).build();
        Mono<List<OutboundEvent>> firstTurn = ex.execute(turn("s", "t1", call("a", "cachedOom", "{}"),
                call("b", "cachedOom", "{}"))).collectList().cache();
        firstTurn.subscribe();
        assertThat(runs).hasValue(1);
        gate.tryEmitEmpty();
        List<OutboundEvent> first = firstTurn.block(Duration.ofSeconds(10));
        assertThat(results(first)).extracting(e -> e.error().code())
                .containsExactly(ErrorCode.TOOL_FAILED, ErrorCode.TOOL_FAILED);
        List<OutboundEvent> again = ex.execute(turn("s", "t2", call("c", "cachedOom", "{}")))
                .collectList().block(Duration.ofSeconds(10));
        assertThat(results(again).get(0).content()).isEqualTo("ok");
    }

    @Test
    void aSlotTaskThrowingAnErrorFreesItsSlotAndLaterTasksStillRun() {
        Slots slots = new Slots(1);
        List<String> ran = new ArrayList<>();
        try {
            slots.submit(() -> {
                throw new OutOfMemoryError("simulated");
            }, 10);
        } catch (Throwable t) {
            // the old code let it out; either way the slot must be free now
        }
        assertThat(slots.inUse()).isZero();
        slots.submit(() -> ran.add("one"), 10);
        assertThat(ran).containsExactly("one");
        // a queued task that throws in the drain loop: the tasks behind it still run
        slots.submit(() -> {
            throw new OutOfMemoryError("queued");
        }, 10);
        slots.submit(() -> {
            ran.add("two");
            slots.release();
        }, 10);
        slots.release(); // frees the slot of "one": runs the throwing task, then "two"
        assertThat(ran).containsExactly("one", "two");
        assertThat(slots.inUse()).isZero();
        assertThat(slots.queued()).isZero();
    }

    @Test
    void anErrorInAQueuedTrampolineTaskDoesNotLoseTheTasksBehindIt() {
        List<String> ran = new ArrayList<>();
        Trampoline.run(() -> {
            Trampoline.run(() -> {
                throw new OutOfMemoryError("simulated");
            });
            Trampoline.run(() -> ran.add("after"));
        });
        assertThat(ran).containsExactly("after");
    }

    @Test
    void aFatalErrorSignalledLaterOnAnotherThreadEndsTheCallAtItsTimeoutAndFreesTheSlot() {
        // Reactor throws JVM-fatal signals up the emitting thread: the run never hears of it, its timer ends it
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        Sinks.Empty<Void> gate = Sinks.empty();
        ToolSpec spec = tool("lateOom", (a, c) -> gate.asMono().then(Mono.error(new OutOfMemoryError("simulated"))));
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(spec).tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxParallel(1).timeoutMs(2000).build()).build();
        Mono<List<OutboundEvent>> first = ex.execute(turn("s", "t1", call("c1", "lateOom", "{}"))).collectList().cache();
        first.subscribe();
        try {
            gate.tryEmitEmpty();
        } catch (OutOfMemoryError expected) {
            // thrown to the emitter, as Reactor does
        }
        assertThat(ex.health().slotsInUse()).isEqualTo(1);
        vts.advanceTimeBy(Duration.ofMillis(2000));
        assertThat(results(first.block(Duration.ofSeconds(10))).get(0).error().code()).isEqualTo(ErrorCode.TIMEOUT);
        assertThat(ex.health().slotsInUse()).isZero();
        List<OutboundEvent> second = ex.execute(turn("s", "t2", call("c2", "echo", "{\"text\":\"after\"}")))
                .collectList().block(Duration.ofSeconds(10));
        assertThat(results(second).get(0).content()).isEqualTo("after");
    }

    @Test
    void aSubscriberThrowingAnErrorOnAResultFreesTheStreamForItsNextTurn() {
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo()).build();
        try {
            ex.execute(turn("s", "t1", call("c1", "echo", "{\"text\":\"a\"}"))).subscribe(e -> {
                throw new OutOfMemoryError("simulated");
            });
        } catch (Throwable t) {
            // Reactor may rethrow the fatal error to the subscriber's caller
        }
        List<OutboundEvent> next = ex.execute(turn("s", "t2", call("c2", "echo", "{\"text\":\"after\"}")))
                .collectList().block(Duration.ofSeconds(10));
        assertThat(results(next).get(0).content()).isEqualTo("after");
    }

    /** Two slots, the {@code hang} tool, a 2 s timeout on a timer that never fires, nanos from {@code clock}. */
    private static ToolExecutor hangingOnFrozenTimer(AtomicLong clock) {
        return ToolExecutor.builder().timer(VirtualTimeScheduler.create()).nanoClock(clock::get)
                .tool(TestTools.hang(new AtomicInteger(), new AtomicInteger()))
                .settings(ExecutionSettings.builder().maxParallel(2).timeoutMs(2000).build()).build();
    }

    @Test
    void healthReportsACallHoldingItsSlotPastItsTimeoutAsStuck() {
        // a timer that never fires stands for a release path that did not run; the clock moves on
        AtomicLong clock = new AtomicLong();
        ToolExecutor ex = hangingOnFrozenTimer(clock);
        Flux<OutboundEvent> turn = ex.execute(turn("s", "t", call("h", "hang", "{}")));
        var sub = turn.subscribe();
        clock.addAndGet(Duration.ofMillis(1500).toNanos());
        ExecutorHealth busy = ex.health();
        assertThat(busy.slots()).isEqualTo(2);
        assertThat(busy.slotsInUse()).isEqualTo(1);
        assertThat(busy.runningCalls()).isEqualTo(1);
        assertThat(busy.oldestCallMs()).isEqualTo(1500);
        assertThat(busy.stuckCalls()).isZero();
        assertThat(busy.status()).isEqualTo("UP");
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        ExecutorHealth stuck = ex.health();
        assertThat(stuck.stuckCalls()).isEqualTo(1);
        assertThat(stuck.healthy()).isFalse();
        assertThat(stuck.status()).isEqualTo("STUCK");
        sub.dispose();
        assertThat(ex.health().runningCalls()).isZero();
        assertThat(ex.health().healthy()).isTrue();
    }

    @Test
    void aCallOfATurnThatWaitedForItsStreamIsAsOldAsItsHandlerNotItsTurn() {
        // the handler of a turn started at submission takes the turn's start for its own; one that waited
        // behind its stream's earlier turn must read the clock when it starts
        AtomicLong clock = new AtomicLong();
        ToolExecutor ex = hangingOnFrozenTimer(clock);
        var first = ex.execute(turn("s", "t1", call("h1", "hang", "{}"))).subscribe();
        var second = ex.execute(turn("s", "t2", call("h2", "hang", "{}"))).subscribe();
        clock.addAndGet(Duration.ofMillis(3000).toNanos());
        assertThat(ex.health().runningCalls()).isEqualTo(1);
        assertThat(ex.health().oldestCallMs()).isEqualTo(3000);
        first.dispose();
        clock.addAndGet(Duration.ofMillis(500).toNanos());
        ExecutorHealth after = ex.health();
        assertThat(after.runningCalls()).as("the second turn's call runs now").isEqualTo(1);
        assertThat(after.oldestCallMs()).as("since its handler started, not since its turn came").isEqualTo(500);
        second.dispose();
    }
}
