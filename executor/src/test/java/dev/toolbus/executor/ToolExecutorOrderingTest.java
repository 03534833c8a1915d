package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ToolExecutorOrderingTest {

    @Test
    void resultsComeInCallOrderWhenLaterCallsFinishFirst() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.sleep(vts))
                .settings(ExecutionSettings.builder().maxParallel(5).cacheResults(false).build()).build();
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s1", "t1",
                        call("a", "sleep", "{\"ms\":300}"),
                        call("b", "sleep", "{\"ms\":100}"),
                        call("c", "sleep", "{\"ms\":200}"))), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofMillis(250))
                .expectNoEvent(Duration.ofMillis(49))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(e -> assertThat(((ToolResultEvent) e).toolCallId()).isEqualTo("a"))
                .assertNext(e -> assertThat(((ToolResultEvent) e).toolCallId()).isEqualTo("b"))
                .assertNext(e -> assertThat(((ToolResultEvent) e).toolCallId()).isEqualTo("c"))
                .assertNext(e -> {
                    TurnCompletedEvent t = (TurnCompletedEvent) e;
                    assertThat(t.toolCallIds()).containsExactly("a", "b", "c");
                    assertThat(t.errorCount()).isZero();
                    assertThat(t.elapsedMs()).isEqualTo(300);
                })
                .expectComplete()
                .verify(Duration.ofSeconds(30));
    }

    @Test
    void callsOfOneTurnRunInParallelUpToTheBound() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.sleep(vts))
                .settings(ExecutionSettings.builder().maxParallel(2).cacheResults(false).build()).build();
        // four 100 ms calls, two at a time: done at 200 ms, not 100 and not 400
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s1", "t1",
                        call("a", "sleep", "{\"ms\":100}"), call("b", "sleep", "{\"ms\":100}"),
                        call("c", "sleep", "{\"ms\":100}"), call("d", "sleep", "{\"ms\":100}")))
                        .filter(e -> e instanceof TurnCompletedEvent), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(199))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(e -> assertThat(((TurnCompletedEvent) e).elapsedMs()).isEqualTo(200))
                .expectComplete()
                .verify(Duration.ofSeconds(30));
    }

    @Test
    void turnsOfOneStreamRunInArrivalOrderWhileAnotherStreamGoesOn() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.sleep(vts))
                .settings(ExecutionSettings.builder().maxParallel(5).cacheResults(false).build()).build();
        List<String> completions = Collections.synchronizedList(new ArrayList<>());
        StepVerifier.withVirtualTime(() -> Flux.merge(
                                ex.execute(turn("slow", "t1", call("a", "sleep", "{\"ms\":1000}"))),
                                ex.execute(turn("slow", "t2", call("b", "sleep", "{\"ms\":10}"))),
                                ex.execute(turn("fast", "t3", call("c", "sleep", "{\"ms\":10}"))))
                        .filter(e -> e instanceof TurnCompletedEvent)
                        .doOnNext(e -> completions.add(((TurnCompletedEvent) e).turnId() + "@" + vts.now(
                                java.util.concurrent.TimeUnit.MILLISECONDS))),
                        () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(2))
                .expectNextCount(3)
                .expectComplete()
                .verify(Duration.ofSeconds(30));
        // the fast stream does not wait for the slow one; t2 waits for t1 of its own stream
        assertThat(completions).containsExactly("t3@10", "t1@1000", "t2@1010");
    }

    @Test
    void aTurnWithNoCallsCompletesAtOnce() {
        ToolExecutor ex = ToolExecutor.builder().build();
        List<OutboundEvent> events = ex.execute(turn("s", "t")).collectList().block(Duration.ofSeconds(5));
        assertThat(events).hasSize(1).first().isInstanceOf(TurnCompletedEvent.class);
    }

    @Test
    void tenThousandStreamsWithOneSlotAllFinish() {
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxParallel(1).cacheResults(false).build()).build();
        int n = 10_000;
        Long completed = Flux.range(0, n)
                .flatMap(i -> ex.execute(turn("stream-" + i, "t" + i, call("c" + i, "echo", "{\"text\":\"x\"}"))),
                        Integer.MAX_VALUE)
                .filter(e -> e instanceof TurnCompletedEvent)
                .count()
                .block(Duration.ofSeconds(60));
        assertThat(completed).isEqualTo(n);
    }

    @Test
    void tenThousandStreamsWithAsynchronousCallsAndOneSlotAllFinish() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.sleep(vts))
                .settings(ExecutionSettings.builder().maxParallel(1).cacheResults(false).build()).build();
        int n = 10_000;
        StepVerifier.withVirtualTime(() -> Flux.range(0, n)
                        .flatMap(i -> ex.execute(turn("stream-" + i, "t", call("c", "sleep", "{\"ms\":1}"))),
                                Integer.MAX_VALUE)
                        .filter(e -> e instanceof TurnCompletedEvent)
                        .count(), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofMillis(n))
                .expectNext((long) n)
                .expectComplete()
                .verify(Duration.ofSeconds(30));
    }
}
