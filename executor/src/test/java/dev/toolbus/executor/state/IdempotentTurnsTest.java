package dev.toolbus.executor.state;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.executor.TestEngines;
import dev.toolbus.executor.TestTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.internal.EncodedHandOver;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ReplayedEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/** Idempotent turns in the executor: the in-memory ledger on a manual clock, on a bus and through handle(). */
class IdempotentTurnsTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicInteger runs = new AtomicInteger();
    private final io.micrometer.core.instrument.simple.SimpleMeterRegistry meters =
            new io.micrometer.core.instrument.simple.SimpleMeterRegistry();

    private double repeated(String outcome) {
        return meters.get(dev.toolbus.metrics.ToolMetrics.TURNS_REPEATED).tag("outcome", outcome).counter().count();
    }

    private ToolExecutor executor(TurnLedgerSettings settings, ToolSpec... tools) {
        ToolExecutor.Builder b = ToolExecutor.builder().nanoClock(nanos::get).idempotency(settings).meterRegistry(meters)
                .settings(ExecutionSettings.builder().cacheResults(false).build())
                .tool(TestTools.counter("count", runs));
        for (ToolSpec t : tools) {
            b.tool(t);
        }
        return b.build();
    }

    private static ToolCallsEvent counted(String turnId) {
        return turn("s1", turnId, call("c1", "count", "{}"));
    }

    @Test
    void aRepeatWithinTheWindowIsNotRunAndItsEventsComeBackReplayed() {
        InMemoryBus bus = InMemoryBus.create();
        ToolExecutor ex = executor(TurnLedgerSettings.DEFAULTS.withWindow(Duration.ofMinutes(10)));
        List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
        bus.events("s1").subscribe(seen::add);
        Disposable loop = ex.attach(bus);
        bus.send(counted("t1"));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 2);
        nanos.addAndGet(Duration.ofMinutes(9).toNanos());
        bus.send(counted("t1"));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 4);
        assertThat(runs).hasValue(1);
        assertThat(seen.subList(0, 2)).noneMatch(e -> e instanceof ReplayedEvent);
        assertThat(seen.subList(2, 4)).allMatch(e -> e instanceof ReplayedEvent);
        assertThat(((ReplayedEvent) seen.get(2)).event()).isEqualTo(seen.get(0));
        assertThat(((ReplayedEvent) seen.get(3)).event()).isInstanceOf(TurnCompletedEvent.class);
        String wire = EventCodec.defaults().encode(seen.get(2));
        assertThat(wire).startsWith("{\"replayed\":true,\"type\":\"tool_result\",\"stream_id\":\"s1\"");
        assertThat(EventCodec.defaults().decodeOutbound(wire)).isEqualTo(seen.get(2));
        assertThat(repeated("replayed")).isEqualTo(1.0);
        assertThat(repeated("joined")).isZero();
        loop.dispose();
    }

    @Test
    void aRepeatAfterTheWindowRunsAgain() {
        InMemoryBus bus = InMemoryBus.create();
        ToolExecutor ex = executor(TurnLedgerSettings.DEFAULTS.withWindow(Duration.ofMinutes(10)));
        List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
        bus.events("s1").subscribe(seen::add);
        Disposable loop = ex.attach(bus);
        bus.send(counted("t1"));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 2);
        nanos.addAndGet(Duration.ofMinutes(10).plusMillis(1).toNanos());
        bus.send(counted("t1"));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 4);
        assertThat(runs).hasValue(2);
        assertThat(seen).noneMatch(e -> e instanceof ReplayedEvent);
        loop.dispose();
    }

    @Test
    void aRepeatArrivingWhileTheTurnRunsJoinsItAndPublishesNothingOfItsOwn() {
        Sinks.Empty<Void> gate = Sinks.empty();
        AtomicInteger slowRuns = new AtomicInteger();
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("waits for the test").build(),
                (a, c) -> gate.asMono().then(Mono.fromSupplier(() -> ToolResult.text("ran " + slowRuns.incrementAndGet()))));
        InMemoryBus bus = InMemoryBus.create();
        ToolExecutor ex = executor(TurnLedgerSettings.DEFAULTS, slow);
        List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
        bus.events("s1").subscribe(seen::add);
        var done = ex.run(bus).toFuture();
        ToolCallsEvent t = turn("s1", "t1", call("c1", "slow", "{}"));
        bus.send(t);
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> ex.inflight() == 1);
        bus.send(t);
        // a later turn of the stream waits behind t1: its admission comes after the joined copy's (AdmissionOrder)
        bus.send(turn("s1", "t2", call("c2", "count", "{}")));
        assertThat(((MemoryTurnLedger) TestEngines.engine(ex).turnLedger()).running()).isEqualTo(1);
        gate.tryEmitEmpty();
        bus.complete();
        done.join(); // every message settled: the joined one too
        assertThat(slowRuns).hasValue(1);
        assertThat(seen).extracting(OutboundEvent::type)
                .containsExactly("tool_result", "turn_completed", "tool_result", "turn_completed");
        assertThat(((ToolResultEvent) seen.get(0)).content()).isEqualTo("ran 1");
        assertThat(seen).noneMatch(e -> e instanceof ReplayedEvent);
        assertThat(repeated("joined")).isEqualTo(1.0);
    }

    @Test
    void throughHandleARepeatIsReplayedAndAConcurrentDuplicateGetsTheEventsOfTheRunItJoined() {
        // the in-memory ledger: admitted and recorded on the calling thread
        replayedAndJoinedThroughHandle(slow -> executor(TurnLedgerSettings.DEFAULTS, slow));
    }

    @Test
    void throughHandleALedgerOfItsOwnReplaysAndJoinsTheSame() {
        // any other ledger: admitted and recorded through its Monos
        MemoryTurnLedger memory = new MemoryTurnLedger(TurnLedgerSettings.DEFAULTS, nanos::get);
        TurnLedger own = new DelegatingLedger(memory); // not the in-memory class: the Mono path
        replayedAndJoinedThroughHandle(slow -> ToolExecutor.builder().turnState(TurnState.builder().ledger(own).build())
                .nanoClock(nanos::get).settings(ExecutionSettings.builder().cacheResults(false).build())
                .tool(TestTools.counter("count", runs)).tool(slow).build());
        assertThat(memory.running()).isZero();
        assertThat(memory.size()).isEqualTo(1);
    }

    private void replayedAndJoinedThroughHandle(java.util.function.Function<ToolSpec, ToolExecutor> executorWith) {
        Sinks.Empty<Void> gate = Sinks.empty();
        AtomicInteger slowRuns = new AtomicInteger();
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("waits for the test").build(),
                (a, c) -> gate.asMono().then(Mono.fromSupplier(() -> ToolResult.text("ran " + slowRuns.incrementAndGet()))));
        ToolExecutor ex = executorWith.apply(slow);
        ToolCallsEvent t = turn("s1", "t1", call("c1", "slow", "{}"));
        var first = ex.handle(t).collectList().toFuture();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> ex.inflight() == 1);
        var joined = ex.handle(t).collectList().toFuture();
        gate.tryEmitEmpty();
        List<OutboundEvent> one = first.join();
        List<OutboundEvent> two = joined.join();
        assertThat(one).extracting(OutboundEvent::type).containsExactly("tool_result", "turn_completed");
        assertThat(two).allMatch(e -> e instanceof ReplayedEvent);
        assertThat(two).extracting(e -> ((ReplayedEvent) e).event()).containsExactlyElementsOf(one);
        StepVerifier.create(ex.handle(t))
                .assertNext(e -> assertThat(((ReplayedEvent) e).event()).isEqualTo(one.get(0)))
                .assertNext(e -> assertThat(((ReplayedEvent) e).event()).isEqualTo(one.get(1)))
                .verifyComplete();
        assertThat(slowRuns).hasValue(1);
    }

    @Test
    void theOldestFinishedTurnsAreEvictedByBytes() {
        TurnLedgerSettings small = TurnLedgerSettings.builder().window(Duration.ofHours(1)).maxBytes(20_000).maxEntries(1_000)
                .maxRecordedBytes(64 * 1024).build();
        MemoryTurnLedger ledger = new MemoryTurnLedger(small, nanos::get);
        String text = "x".repeat(2_000); // about 2.2 KB per record in the ring (its key and encoded event)
        for (int i = 0; i < 50; i++) {
            String turnId = "t" + i;
            StepVerifier.create(ledger.admit(TurnKey.of(Principal.local(), "s", turnId))).expectNext(TurnLedger.Admission.run()).verifyComplete();
            ledger.complete(TurnKey.of(Principal.local(), "s", turnId), List.of(result("s", turnId, text))).block();
        }
        assertThat(ledger.weight()).isLessThanOrEqualTo(20_000).isGreaterThan(15_000);
        assertThat(ledger.size()).isBetween(6L, 9L);
        int replayed = 0;
        for (int i = 0; i < 50; i++) {
            TurnLedger.Admission a = ledger.admit(TurnKey.of(Principal.local(), "s", "t" + i)).block();
            if (a instanceof TurnLedger.Admission.Replay r) {
                assertThat(r.events()).hasSize(1);
                replayed++;
            } else {
                ledger.release(TurnKey.of(Principal.local(), "s", "t" + i)); // evicted: it would run again
            }
        }
        assertThat(replayed).isEqualTo(ledger.size());
        assertThat(ledger.running()).isZero();
    }

    /**
     * The ledger's encoding of a turn's events is handed to the bus's encode that follows on the same
     * thread (once, and never shared: the ring keeps its own copy), so a turn is encoded once.
     */
    @Test
    void theRecordedEncodingIsHandedToTheNextEncodeOfTheSameEvent_onceAndUnshared() {
        MemoryTurnLedger ledger = new MemoryTurnLedger(TurnLedgerSettings.DEFAULTS, nanos::get);
        TurnKey k = TurnKey.of(Principal.local(), "s", "handed");
        ToolResultEvent r = result("s", "handed", "sunny");
        TurnCompletedEvent done = new TurnCompletedEvent("s", "handed", List.of("c1"), 0, 3);
        EventCodec codec = EventCodec.create(EventCodec.DEFAULT_MAX_EVENT_BYTES, () -> "t");
        byte[] fresh = codec.encodeToBytes(r);
        ledger.admit(k).block();
        ledger.complete(k, List.of(r, done)).block();

        byte[] handed = codec.encodeToBytes(r);
        assertThat(handed).isEqualTo(fresh);
        assertThat(EncodedHandOver.take(r)).as("taken by the encode").isNull();
        assertThat(EncodedHandOver.take(done)).as("offered by the ledger")
                .isEqualTo(EventCodec.defaults().encodeToBytes(done));
        byte[] again = codec.encodeToBytes(r);
        assertThat(again).isEqualTo(fresh).isNotSameAs(handed);

        java.util.Arrays.fill(handed, (byte) 'x'); // the bus owns what it was handed
        TurnLedger.Admission a = ledger.admit(k).block();
        assertThat(((TurnLedger.Admission.Replay) a).events()).containsExactly(r, done);
    }

    @Test
    void aTurnTooLargeToKeepIsRememberedWithoutItsEventsAndEntriesAreBoundedByCount() {
        TurnLedgerSettings s = TurnLedgerSettings.builder().window(Duration.ofHours(1)).maxBytes(1_000_000).maxEntries(10)
                .maxRecordedBytes(1_000).build();
        MemoryTurnLedger ledger = new MemoryTurnLedger(s, nanos::get);
        ledger.admit(TurnKey.of(Principal.local(), "s", "big")).block();
        ledger.complete(TurnKey.of(Principal.local(), "s", "big"), List.of(result("s", "big", "y".repeat(5_000)))).block();
        StepVerifier.create(ledger.admit(TurnKey.of(Principal.local(), "s", "big")))
                .assertNext(a -> assertThat(((TurnLedger.Admission.Replay) a).events()).isEmpty())
                .verifyComplete();
        for (int i = 0; i < 100; i++) {
            ledger.admit(TurnKey.of(Principal.local(), "s", "n" + i)).block();
            ledger.complete(TurnKey.of(Principal.local(), "s", "n" + i), List.of()).block();
        }
        assertThat(ledger.size()).isLessThanOrEqualTo(10);
    }

    @Test
    void anErrorOfTheRunReleasesTheRunningMarkAndTheJoinedTurnThenRunsItself() {
        MemoryTurnLedger ledger = new MemoryTurnLedger(TurnLedgerSettings.DEFAULTS, nanos::get);
        ToolCallsEvent t = counted("t1");
        List<List<OutboundEvent>> published = new CopyOnWriteArrayList<>();
        Sinks.Empty<Void> firstMayFail = Sinks.empty();
        AtomicInteger attempts = new AtomicInteger();
        var first = IdempotentTurns.forBus(ledger, t, batch -> Mono.fromRunnable(() -> published.add(batch)),
                p -> firstMayFail.asMono().then(Mono.error(new AssertionError("test: an Error while publishing"))))
                .doOnSubscribe(s -> attempts.incrementAndGet());
        StepVerifier first2 = StepVerifier.create(first).expectError(AssertionError.class).verifyLater();
        assertThat(ledger.running()).isEqualTo(1);
        var joined = IdempotentTurns.forBus(ledger, t, batch -> Mono.fromRunnable(() -> published.add(batch)),
                p -> p.apply(List.of(result("s1", "t1", "second"))));
        var second = joined.toFuture();
        assertThat(second).isNotDone();
        firstMayFail.tryEmitEmpty();
        first2.verify(Duration.ofSeconds(5));
        second.join();
        assertThat(attempts).hasValue(1);
        // the joined turn admitted again, ran and was recorded
        assertThat(published).hasSize(1);
        assertThat(ledger.running()).isZero();
        StepVerifier.create(ledger.admit(TurnKey.of(Principal.local(), "s1", "t1")))
                .assertNext(a -> assertThat(((TurnLedger.Admission.Replay) a).events()).hasSize(1))
                .verifyComplete();
    }

    /**
     * A bot core that sends a turn again once it has seen the turn's {@code turn_completed} (it lost its
     * own state meanwhile) gets the recorded events again, marked replayed: the in-memory ledger records
     * the turn before its last batch goes out, so the repeat cannot find it still running and join a run
     * whose events are already out (it would publish nothing). A full test run's
     * {@code SidecarIdempotencyIT} waited 30 s for such a replay on the stdio bus.
     */
    @Test
    void aRepeatSentOnceTheTurnCompletedWasSeen_isReplayed_notJoined() {
        MemoryTurnLedger ledger = new MemoryTurnLedger(TurnLedgerSettings.DEFAULTS, nanos::get);
        ToolCallsEvent t = counted("t1");
        List<OutboundEvent> out = new CopyOnWriteArrayList<>();
        List<reactor.core.publisher.Mono<Void>> repeats = new CopyOnWriteArrayList<>();
        java.util.function.Function<List<OutboundEvent>, Mono<Void>> publish = batch -> Mono.fromRunnable(() -> {
            out.addAll(batch);
            if (batch.stream().anyMatch(e -> e instanceof TurnCompletedEvent) && repeats.isEmpty()) {
                // the bot core saw the turn end, and sends it again before the run has returned
                repeats.add(IdempotentTurns.forBus(ledger, t, b -> Mono.fromRunnable(() -> out.addAll(b)),
                        p -> Mono.error(new AssertionError("the repeat must not run"))).cache());
                repeats.get(0).subscribe();
            }
        });
        StepVerifier.create(IdempotentTurns.forBus(ledger, t, publish,
                        p -> p.apply(List.of(result("s1", "t1", "first"),
                                new TurnCompletedEvent("s1", "t1", List.of("c1"), 0, 1)))))
                .verifyComplete();
        StepVerifier.create(repeats.get(0)).verifyComplete();
        assertThat(out).hasSize(4);
        assertThat(out.subList(0, 2)).noneMatch(e -> e instanceof ReplayedEvent);
        assertThat(out.subList(2, 4)).allMatch(e -> e instanceof ReplayedEvent);
        assertThat(((ReplayedEvent) out.get(2)).event()).isEqualTo(out.get(0));
        assertThat(ledger.running()).isZero();
    }

    /** Through handle() too: a caller that sends the turn again from its {@code turn_completed} gets a replay. */
    @Test
    void throughHandleARepeatSentFromTheTurnCompletedIsReplayed() {
        ToolExecutor ex = executor(TurnLedgerSettings.DEFAULTS);
        List<OutboundEvent> again = new CopyOnWriteArrayList<>();
        List<OutboundEvent> first = ex.handle(counted("t1"))
                .doOnNext(e -> {
                    if (e instanceof TurnCompletedEvent) {
                        ex.handle(counted("t1")).subscribe(again::add);
                    }
                })
                .collectList().block(Duration.ofSeconds(5));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> again.size() == 2);
        assertThat(first).hasSize(2).noneMatch(e -> e instanceof ReplayedEvent);
        assertThat(again).allMatch(e -> e instanceof ReplayedEvent);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aThrownErrorAndACancelledCallerReleaseTheMarkToo() {
        MemoryTurnLedger ledger = new MemoryTurnLedger(TurnLedgerSettings.DEFAULTS, nanos::get);
        ToolCallsEvent t = counted("t1");
        StepVerifier.create(IdempotentTurns.forBus(ledger, t, batch -> {
                    throw new ExceptionInInitializerError("test");
                }, p -> p.apply(List.of(result("s1", "t1", "x")))))
                .expectError(ExceptionInInitializerError.class).verify(Duration.ofSeconds(5));
        assertThat(ledger.running()).isZero();
        Sinks.Empty<Void> never = Sinks.empty();
        StepVerifier.create(IdempotentTurns.forCaller(ledger, t, () -> never.asMono().thenMany(reactor.core.publisher.Flux.<OutboundEvent>empty())))
                .thenAwait(Duration.ofMillis(10))
                .then(() -> assertThat(ledger.running()).isEqualTo(1))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertThat(ledger.running()).isZero();
        StepVerifier.create(ledger.admit(TurnKey.of(Principal.local(), "s1", "t1"))).expectNext(TurnLedger.Admission.run()).verifyComplete();
    }

    @Test
    void aLedgerThatFailsLetsTheTurnRun() {
        TurnLedger broken = new TurnLedger() {
            @Override
            public Mono<Admission> admit(TurnKey turn) {
                return Mono.error(new IllegalStateException("ledger down"));
            }

            @Override
            public Mono<Void> complete(TurnKey turn, List<OutboundEvent> events) {
                throw new IllegalStateException("ledger down");
            }

            @Override
            public void release(TurnKey turn) {
            }
        };
        ToolExecutor ex = ToolExecutor.builder().turnState(TurnState.builder().ledger(broken).build())
                .tool(TestTools.counter("count", runs))
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
        for (int i = 0; i < 2; i++) {
            assertThat(ex.handle(counted("t1")).collectList().block(Duration.ofSeconds(5)))
                    .extracting(OutboundEvent::type).containsExactly("tool_result", "turn_completed");
        }
        assertThat(runs).hasValue(2);
    }

    @Test
    void offRunsEveryRepeat() {
        ToolExecutor ex = executor(TurnLedgerSettings.OFF);
        for (int i = 0; i < 3; i++) {
            List<OutboundEvent> out = ex.handle(counted("t1")).collectList().block(Duration.ofSeconds(5));
            assertThat(out).noneMatch(e -> e instanceof ReplayedEvent);
        }
        assertThat(runs).hasValue(3);
    }

    private static ToolResultEvent result(String stream, String turnId, String content) {
        return ToolResultEvent.builder().streamId(stream).turnId(turnId).toolCallId("c1").name("count")
                .content(content).attempts(1).build();
    }
}
