package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ToolExecutorTimeoutTest {

    @Test
    void hangingToolIsCancelledAtItsTimeoutAndItsSlotIsFreed() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts)
                .tool(TestTools.hang(started, cancelled)).tool(TestTools.echo())
                .settings(ExecutionSettings.builder().maxParallel(1).timeoutMs(2000).cacheResults(false).build())
                .build();
        // one slot: the echo turn can only run once the hanging call's slot is freed by its timeout
        StepVerifier.withVirtualTime(() -> Flux.concat(
                                ex.execute(turn("a", "t1", call("h", "hang", "{}"))),
                                ex.execute(turn("b", "t2", call("e", "echo", "{\"text\":\"after\"}"))))
                        .filter(e -> e instanceof ToolResultEvent), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(1999))
                .then(() -> assertThat(cancelled).hasValue(0))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(e -> {
                    ToolResultEvent r = (ToolResultEvent) e;
                    assertThat(r.isError()).isTrue();
                    assertThat(r.error().code()).isEqualTo(ErrorCode.TIMEOUT);
                    assertThat(r.content()).contains("hang").contains("2000 ms");
                    assertThat(r.elapsedMs()).isEqualTo(2000);
                })
                .assertNext(e -> assertThat(((ToolResultEvent) e).content()).isEqualTo("after"))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        assertThat(started).hasValue(1);
        assertThat(cancelled).hasValue(1);
        assertThat(ex.inflight()).isZero();
    }

    @Test
    void aToolsOwnTimeoutOverridesTheExecutorsTimeout() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("slow")
                .timeout(Duration.ofMillis(50)).build(),
                (a, c) -> Mono.delay(Duration.ofSeconds(1), vts).map(x -> ToolResult.text("late")));
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(slow)
                .settings(ExecutionSettings.builder().timeoutMs(30_000).build()).build();
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t", call("c", "slow", "{}"))).take(1),
                        () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofMillis(50))
                .assertNext(e -> assertThat(((ToolResultEvent) e).error().code()).isEqualTo(ErrorCode.TIMEOUT))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void cancellationSignalReachesTheToolContext() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicBoolean sawCancel = new AtomicBoolean();
        ToolSpec watcher = new ToolSpec(ToolDefinition.builder("watch").description("w").build(),
                (a, c) -> {
                    c.onCancel().subscribe(null, null, () -> sawCancel.set(true));
                    return Mono.never();
                });
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(watcher)
                .settings(ExecutionSettings.builder().timeoutMs(1000).build()).build();
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t", call("c", "watch", "{}"))).take(1),
                        () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(1))
                .expectNextCount(1)
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        assertThat(sawCancel).isTrue();
    }

    @Test
    void blockingToolRunsOffTheCallerThreadAndIsInterruptedOnTimeout() throws Exception {
        CountDownLatch running = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AtomicReference<String> thread = new AtomicReference<>();
        ToolSpec sleeper = TestTools.blocking("block", (a, c) -> {
            thread.set(Thread.currentThread().getName());
            running.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.set(true);
                throw e;
            }
            return ToolResult.text("woke");
        });
        ToolExecutor ex = ToolExecutor.builder().tool(sleeper)
                .settings(ExecutionSettings.builder().timeoutMs(1000).build()).build();
        List<OutboundEvent> events = ex.execute(turn("s", "t", call("c", "block", "{}")))
                .collectList().block(Duration.ofSeconds(20));
        ToolResultEvent r = TestTools.results(events).get(0);
        assertThat(r.error().code()).isEqualTo(ErrorCode.TIMEOUT);
        assertThat(thread.get()).startsWith("toolbus-blocking");
        await().atMost(Duration.ofSeconds(5)).untilTrue(interrupted);
        ex.close();
    }

    @Test
    void handlerThatThrowsSynchronouslyIsAToolFailure() {
        ToolSpec thrower = new ToolSpec(ToolDefinition.builder("boom").description("b").build(),
                (ToolHandler) (a, c) -> {
                    throw new ArithmeticException("division by zero");
                });
        ToolExecutor ex = ToolExecutor.builder().tool(thrower).build();
        ToolResultEvent r = TestTools.results(ex.execute(turn("s", "t", call("c", "boom", "{}")))
                .collectList().block(Duration.ofSeconds(5))).get(0);
        assertThat(r.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(r.content()).isEqualTo("division by zero");
        assertThat(r.attempts()).isEqualTo(1);
    }
}
