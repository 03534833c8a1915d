package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Why a call was stopped reaches its handler: {@code ToolContext.cancelReason()} and the
 * {@code onCancel(Consumer)} callback see {@code timeout}, the cancel event's reason, {@code cancelled}
 * and {@code shutdown}.
 */
class CancelReasonTest {

    /** A tool that never answers and records the reason its onCancel callback got. */
    private static ToolSpec waiter(List<String> reasons, AtomicReference<ToolContext> seen) {
        return new ToolSpec(ToolDefinition.builder("wait").description("Waits").build(), (a, c) -> {
            seen.set(c);
            c.onCancel(reasons::add);
            return Mono.<ToolResult>never();
        });
    }

    private static ToolResultEvent result(OutboundEvent e) {
        return (ToolResultEvent) e;
    }

    @Test
    void aTimeoutIsReportedAsTimeout() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        List<String> reasons = new CopyOnWriteArrayList<>();
        AtomicReference<ToolContext> seen = new AtomicReference<>();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(waiter(reasons, seen))
                .settings(ExecutionSettings.builder().timeoutMs(1000).build()).build();
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t", call("a", "wait", "{}"))), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(2))
                .assertNext(e -> assertThat(result(e).error().code()).isEqualTo(ErrorCode.TIMEOUT))
                .expectNextCount(1)
                .verifyComplete();
        assertThat(reasons).containsExactly(ToolContext.TIMEOUT);
        assertThat(seen.get().cancelReason()).isEqualTo("timeout");
        assertThat(seen.get().isCancelled()).isTrue();
    }

    @Test
    void aCancelEventBringsItsReason_andOneWithoutAReasonIsCancelled() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        List<String> reasons = new CopyOnWriteArrayList<>();
        AtomicReference<ToolContext> seen = new AtomicReference<>();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(waiter(reasons, seen)).build();
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t1", call("a", "wait", "{}"))), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .expectNoEvent(Duration.ofSeconds(1))
                .then(() -> ex.control(CancelEvent.builder().streamId("s").turnId("t1").toolCallId("a")
                        .reason("the user pressed stop").build()).block())
                .assertNext(e -> assertThat(result(e).error().code()).isEqualTo(ErrorCode.CANCELLED))
                .expectNextCount(1)
                .verifyComplete();
        assertThat(reasons).containsExactly("the user pressed stop");

        // withVirtualTime disposes its scheduler at the end: a fresh one, and an executor on it
        VirtualTimeScheduler vts2 = VirtualTimeScheduler.create();
        ToolExecutor ex2 = ToolExecutor.builder().timer(vts2).tool(waiter(reasons, seen)).build();
        StepVerifier.withVirtualTime(() -> ex2.execute(turn("s2", "t2", call("b", "wait", "{}"))), () -> vts2, Long.MAX_VALUE)
                .expectSubscription()
                .expectNoEvent(Duration.ofSeconds(1))
                .then(() -> ex2.control(CancelEvent.ofTurn("s2", "t2")).block())
                .expectNextCount(2)
                .verifyComplete();
        assertThat(reasons).containsExactly("the user pressed stop", ToolContext.CANCELLED);
    }

    @Test
    void aCallerThatGoesAwayCancels_andOneGoneWhileTheExecutorClosesIsShutdown() {
        List<String> reasons = new CopyOnWriteArrayList<>();
        AtomicReference<ToolContext> seen = new AtomicReference<>();
        ToolExecutor ex = ToolExecutor.builder().tool(waiter(reasons, seen)).build();
        Disposable first = ex.execute(turn("s1", "t1", call("a", "wait", "{}"))).subscribe();
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.get() != null);
        first.dispose();
        await().atMost(Duration.ofSeconds(5)).until(() -> reasons.size() == 1);
        assertThat(reasons).containsExactly(ToolContext.CANCELLED);

        seen.set(null);
        Disposable second = ex.execute(turn("s2", "t2", call("b", "wait", "{}"))).subscribe();
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.get() != null);
        Disposable closing = ex.closeGracefully().subscribe();
        second.dispose();
        await().atMost(Duration.ofSeconds(5)).until(() -> reasons.size() == 2);
        assertThat(reasons.get(1)).isEqualTo(ToolContext.SHUTDOWN);
        closing.dispose();
    }

    @Test
    void onCancelRunsAtOnceWhenAlreadyCancelled_onlyOnce_andNotAfterDispose_andSurvivesAThrowingCallback() {
        ToolContext.Handle handle = ToolContext.builder().toolName("t").handle();
        ToolContext ctx = handle.context();
        List<String> got = new CopyOnWriteArrayList<>();
        AtomicInteger disposedRuns = new AtomicInteger();
        ctx.onCancel(r -> {
            throw new IllegalStateException("callback bug");
        });
        ctx.onCancel(got::add);
        Disposable gone = ctx.onCancel(r -> disposedRuns.incrementAndGet());
        gone.dispose();
        assertThat(ctx.cancelReason()).isNull();
        handle.cancel("first");
        handle.cancel("second");
        handle.cancel(null);
        assertThat(ctx.cancelReason()).isEqualTo("first");
        assertThat(got).containsExactly("first");
        assertThat(disposedRuns).hasValue(0);
        ctx.onCancel(got::add);
        assertThat(got).containsExactly("first", "first");

        ToolContext.Handle plain = ToolContext.builder().handle();
        plain.cancel(null);
        assertThat(plain.context().cancelReason()).isEqualTo(ToolContext.CANCELLED);
        ToolContext.Handle blank = ToolContext.builder().handle();
        blank.cancel("  ");
        assertThat(blank.context().cancelReason()).isEqualTo(ToolContext.CANCELLED);
    }

    @Test
    void aHandlerCannotCancelItsOwnContext_onlyTheHandleOfWhoeverRunsTheCallCan() {
        assertThat(java.util.Arrays.stream(ToolContext.class.getMethods()).map(java.lang.reflect.Method::getName))
                .doesNotContain("cancel");
        ToolContext.Handle handle = ToolContext.builder().handle();
        assertThat(handle.context().isCancelled()).isFalse();
        handle.cancel(ToolContext.TIMEOUT);
        assertThat(handle.context().isCancelled()).isTrue();
        assertThat(handle.context().cancelReason()).isEqualTo(ToolContext.TIMEOUT);
        assertThat(ToolContext.builder().build().isCancelled()).as("a built context is never cancelled").isFalse();
    }
}
