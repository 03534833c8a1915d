package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class TurnPublisherTest {

    private final ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo())
            .settings(ExecutionSettings.builder().cacheResults(false).build()).build();

    @Test
    void honoursDemandOneEventAtATime() {
        StepVerifier.create(ex.execute(turn("s", "t", call("a", "echo", "{\"text\":\"1\"}"),
                        call("b", "echo", "{\"text\":\"2\"}"))), 0)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(20))
                .thenRequest(1)
                .assertNext(e -> assertThat(((ToolResultEvent) e).content()).isEqualTo("1"))
                .expectNoEvent(Duration.ofMillis(20))
                .thenRequest(1)
                .assertNext(e -> assertThat(((ToolResultEvent) e).content()).isEqualTo("2"))
                .thenRequest(1)
                .assertNext(e -> assertThat(e).isInstanceOf(TurnCompletedEvent.class))
                .expectComplete()
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void nothingRunsBeforeTheFirstRequest() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor counting = ToolExecutor.builder().tool(TestTools.counter("count", runs)).build();
        Flux<OutboundEvent> turn = counting.execute(turn("s", "t", call("a", "count", "{}")));
        StepVerifier.create(turn, 0)
                .expectSubscription()
                .then(() -> assertThat(runs).hasValue(0))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertThat(runs).hasValue(0);
    }

    @Test
    void cancellingMidTurnCancelsTheCallsAndFreesTheStream() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        ToolExecutor hanging = ToolExecutor.builder().timer(vts).tool(TestTools.hang(started, cancelled))
                .tool(TestTools.echo()).build();
        StepVerifier.withVirtualTime(() -> hanging.execute(turn("s", "t1", call("a", "hang", "{}")))
                        .take(Duration.ofSeconds(1), vts)
                        .thenMany(hanging.execute(turn("s", "t2", call("b", "echo", "{\"text\":\"next\"}")))),
                        () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(1))
                .assertNext(e -> assertThat(((ToolResultEvent) e).content()).isEqualTo("next"))
                .expectNextCount(1)
                .expectComplete()
                .verify(Duration.ofSeconds(5));
        assertThat(started).hasValue(1);
        assertThat(cancelled).hasValue(1);
        assertThat(hanging.inflight()).isZero();
    }

    @Test
    void aNonPositiveRequestIsAnError() {
        java.util.concurrent.atomic.AtomicReference<Throwable> error = new java.util.concurrent.atomic.AtomicReference<>();
        ex.execute(turn("s", "t", call("a", "echo", "{\"text\":\"1\"}")))
                .subscribe(new reactor.core.publisher.BaseSubscriber<OutboundEvent>() {
                    @Override
                    protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                        s.request(0);
                    }

                    @Override
                    protected void hookOnError(Throwable t) {
                        error.set(t);
                    }
                });
        assertThat(error.get()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("§3.9");
    }

    @Test
    void resubscribingRunsTheTurnAgain() {
        Flux<OutboundEvent> turn = ex.execute(turn("s", "t", call("a", "echo", "{\"text\":\"x\"}")));
        assertThat(turn.collectList().block(Duration.ofSeconds(5))).hasSize(2);
        assertThat(turn.collectList().block(Duration.ofSeconds(5))).hasSize(2);
    }
}
