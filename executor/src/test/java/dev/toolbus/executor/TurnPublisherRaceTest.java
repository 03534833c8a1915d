package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Sinks;
import reactor.test.util.RaceTestUtils;

/**
 * The turn's subscription takes no lock on its common path: these races (a one-call turn ending on one
 * thread while the subscriber requests or cancels on another) must keep the order of events, complete
 * at most once, and free the stream either way.
 */
class TurnPublisherRaceTest {

    private static final int ROUNDS = 2_000;

    /** A tool whose one result is given by the test, from the thread the test chooses. */
    private static ToolSpec released(AtomicReference<Sinks.One<ToolResult>> current) {
        return new ToolSpec(ToolDefinition.builder("gate").description("Answers when released").build(),
                (a, c) -> {
                    Sinks.One<ToolResult> s = Sinks.one();
                    current.set(s);
                    return s.asMono();
                });
    }

    /** A tool whose result is given by the test, after a progress event from the handler's own context. */
    private static ToolSpec progressThenReleased(AtomicReference<Sinks.One<ToolResult>> current) {
        return new ToolSpec(ToolDefinition.builder("gate").description("Answers when released").build(),
                (a, c) -> {
                    Sinks.One<ToolResult> s = Sinks.one();
                    current.set(s);
                    return c.progress(0.5, 1.0, "half").then(s.asMono());
                });
    }

    /** Records what it gets; requests only what the test asks for. */
    private static final class Recorder extends BaseSubscriber<OutboundEvent> {
        final List<OutboundEvent> events = new CopyOnWriteArrayList<>();
        final AtomicInteger completions = new AtomicInteger();
        final AtomicInteger errors = new AtomicInteger();
        private final long initial;

        Recorder(long initial) {
            this.initial = initial;
        }

        @Override
        protected void hookOnSubscribe(Subscription s) {
            if (initial > 0) {
                request(initial);
            }
        }

        @Override
        protected void hookOnNext(OutboundEvent e) {
            events.add(e);
        }

        @Override
        protected void hookOnComplete() {
            completions.incrementAndGet();
        }

        @Override
        protected void hookOnError(Throwable t) {
            errors.incrementAndGet();
        }
    }

    private static ToolExecutor executor(ToolSpec tool) {
        return ToolExecutor.builder().tool(tool).tool(TestTools.echo())
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
    }

    /** The stream takes its next turn: the one before freed it. */
    private static void nextTurnRuns(ToolExecutor ex, int round) {
        List<OutboundEvent> next = ex.execute(turn("s", "next-" + round, call("n", "echo", "{\"text\":\"n\"}")))
                .collectList().block(Duration.ofSeconds(5));
        assertThat(next).hasSize(2);
    }

    @Test
    void cancelRacingTheEndOfTheOnlyCall() {
        AtomicReference<Sinks.One<ToolResult>> gate = new AtomicReference<>();
        ToolExecutor ex = executor(released(gate));
        int completedRounds = 0;
        for (int i = 0; i < ROUNDS; i++) {
            Recorder r = new Recorder(Long.MAX_VALUE);
            ex.execute(turn("s", "t-" + i, call("a", "gate", "{}"))).subscribe(r);
            Sinks.One<ToolResult> s = gate.get();
            RaceTestUtils.race(() -> s.tryEmitValue(ToolResult.text("done")), r::cancel);
            assertThat(r.errors).hasValue(0);
            assertThat(r.completions.get()).isLessThanOrEqualTo(1);
            if (r.completions.get() == 1) {
                completedRounds++;
                assertThat(r.events).hasSize(2);
                assertThat(r.events.get(0)).isInstanceOf(ToolResultEvent.class);
                assertThat(r.events.get(1)).isInstanceOf(TurnCompletedEvent.class);
            } else {
                // cancelled first: whatever came is a prefix of the turn's events, in order
                assertThat(r.events.size()).isLessThanOrEqualTo(2);
                if (!r.events.isEmpty()) {
                    assertThat(r.events.get(0)).isInstanceOf(ToolResultEvent.class);
                }
            }
            nextTurnRuns(ex, i);
        }
        assertThat(ex.inflight()).isZero();
        assertThat(completedRounds).isBetween(0, ROUNDS);
    }

    @Test
    void requestRacingTheEndOfTheOnlyCall() {
        AtomicReference<Sinks.One<ToolResult>> gate = new AtomicReference<>();
        ToolExecutor ex = executor(released(gate));
        for (int i = 0; i < ROUNDS; i++) {
            // one event of demand at first: the call starts, and the rest of the demand races its end
            Recorder r = new Recorder(1);
            ex.execute(turn("s", "t-" + i, call("a", "gate", "{}"))).subscribe(r);
            Sinks.One<ToolResult> s = gate.get();
            RaceTestUtils.race(() -> s.tryEmitValue(ToolResult.text("done")), () -> r.request(1));
            assertThat(r.events).hasSize(2);
            assertThat(r.events.get(0)).isInstanceOf(ToolResultEvent.class);
            assertThat(r.events.get(1)).isInstanceOf(TurnCompletedEvent.class);
            assertThat(r.completions).hasValue(1);
            assertThat(r.errors).hasValue(0);
            nextTurnRuns(ex, i);
        }
    }

    @Test
    void demandArrivingInStepsFromTwoThreadsKeepsOrderAndCompletesOnce() {
        AtomicReference<Sinks.One<ToolResult>> gate = new AtomicReference<>();
        ToolExecutor ex = executor(progressThenReleased(gate));
        for (int i = 0; i < ROUNDS; i++) {
            Recorder r = new Recorder(1);
            ex.execute(turn("s", "t-" + i, call("a", "gate", "{}"))).subscribe(r);
            Sinks.One<ToolResult> s = gate.get();
            // the progress event waits for demand; the end of the call and more demand race
            RaceTestUtils.race(() -> s.tryEmitValue(ToolResult.text("done")), () -> {
                r.request(1);
                r.request(1);
            });
            assertThat(r.events).hasSize(3);
            assertThat(r.events.get(0)).isInstanceOf(ToolProgressEvent.class);
            assertThat(r.events.get(1)).isInstanceOf(ToolResultEvent.class);
            assertThat(r.events.get(2)).isInstanceOf(TurnCompletedEvent.class);
            assertThat(r.completions).hasValue(1);
            nextTurnRuns(ex, i);
        }
    }

    @Test
    void requestRacingTheEndOfACallWithAFollowUp() {
        AtomicReference<Sinks.One<ToolResult>> gate = new AtomicReference<>();
        ToolExecutor ex = executor(released(gate));
        ToolResult withImage = ToolResult.builder().content("drew")
                .item(ContentItem.image(new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10}, "image/png")).build();
        for (int i = 0; i < ROUNDS; i++) {
            // three events one at a time (the result, its image's user_message, turn_completed): each waits for
            // demand that another thread gives while the call ends
            Recorder r = new Recorder(1);
            ex.execute(turn("s", "t-" + i, call("a", "gate", "{}"))).subscribe(r);
            Sinks.One<ToolResult> s = gate.get();
            RaceTestUtils.race(() -> s.tryEmitValue(withImage), () -> {
                r.request(1);
                r.request(1);
            });
            assertThat(r.events).hasSize(3);
            assertThat(r.events.get(0)).isInstanceOf(ToolResultEvent.class);
            assertThat(r.events.get(1)).isInstanceOf(UserMessageEvent.class);
            assertThat(r.events.get(2)).isInstanceOf(TurnCompletedEvent.class);
            assertThat(r.completions).hasValue(1);
            nextTurnRuns(ex, i);
        }
    }

    @Test
    void cancelFromOnNextStopsTheTurnAtOnce() {
        ToolExecutor ex = executor(TestTools.echo());
        for (int i = 0; i < 100; i++) {
            List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
            AtomicInteger completions = new AtomicInteger();
            ex.execute(turn("s", "t-" + i, call("a", "echo", "{\"text\":\"x\"}"))).subscribe(new BaseSubscriber<>() {
                @Override
                protected void hookOnNext(OutboundEvent e) {
                    seen.add(e);
                    cancel();
                }

                @Override
                protected void hookOnComplete() {
                    completions.incrementAndGet();
                }
            });
            assertThat(seen).hasSize(1);
            assertThat(seen.get(0)).isInstanceOf(ToolResultEvent.class);
            assertThat(completions).hasValue(0);
            nextTurnRuns(ex, i);
        }
    }
}
