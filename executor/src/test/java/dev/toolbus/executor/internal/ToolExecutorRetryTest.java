package dev.toolbus.executor.internal;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.TestTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ToolExecutorRetryTest {

    private static ToolResultEvent runOne(ToolExecutor ex, VirtualTimeScheduler vts, String tool) {
        ToolResultEvent[] out = new ToolResultEvent[1];
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t", call("c", tool, "{}")))
                        .filter(e -> e instanceof ToolResultEvent), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(60))
                .assertNext(e -> out[0] = (ToolResultEvent) e)
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        return out[0];
    }

    @Test
    void exceptionsAreRetriedWithBackoffWhenAllowed() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.flaky("flaky", 2, runs, false))
                .settings(ExecutionSettings.builder().retryOnError(true).maxRetries(2).build()).build();
        ToolResultEvent r = runOne(ex, vts, "flaky");
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).isEqualTo("ok after 3");
        assertThat(r.attempts()).isEqualTo(3);
        assertThat(runs).hasValue(3);
    }

    @Test
    void retriesStopAtMaxRetries() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.flaky("flaky", 10, runs, false))
                .settings(ExecutionSettings.builder().retryOnError(true).maxRetries(2).build()).build();
        ToolResultEvent r = runOne(ex, vts, "flaky");
        assertThat(r.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(r.content()).isEqualTo("boom 3");
        assertThat(r.attempts()).isEqualTo(3);
        assertThat(runs).hasValue(3);
    }

    @Test
    void noRetryWhenRetryOnErrorIsOff() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.flaky("flaky", 1, runs, false))
                .settings(ExecutionSettings.builder().retryOnError(false).build()).build();
        assertThat(runOne(ex, vts, "flaky").error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(runs).hasValue(1);
    }

    @Test
    void sideEffectingToolsAreNeverRetried() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.flaky("send", 1, runs, true))
                .settings(ExecutionSettings.builder().retryOnError(true).maxRetries(5).build()).build();
        assertThat(runOne(ex, vts, "send").error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(runs).hasValue(1);
    }

    @Test
    void errorResultsAreNeverRetried() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolSpec refuses = new ToolSpec(ToolDefinition.builder("refuse").description("r").build(),
                (a, c) -> Mono.fromSupplier(() -> {
                    runs.incrementAndGet();
                    return ToolResult.error("file not found");
                }));
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(refuses)
                .settings(ExecutionSettings.builder().retryOnError(true).maxRetries(5).build()).build();
        ToolResultEvent r = runOne(ex, vts, "refuse");
        assertThat(r.error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
        assertThat(r.content()).isEqualTo("file not found");
        assertThat(runs).hasValue(1);
    }

    @Test
    void validationFailuresAreNeverRetriedAndNeverRunTheHandler() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.counter("count", runs))
                .settings(ExecutionSettings.builder().retryOnError(true).build()).build();
        ToolResultEvent[] out = new ToolResultEvent[1];
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t", call("c", "count", "{\"q\":5}")))
                        .filter(e -> e instanceof ToolResultEvent), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(10))
                .assertNext(e -> out[0] = (ToolResultEvent) e)
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        assertThat(out[0].error().code()).isEqualTo(ErrorCode.INVALID_ARGUMENTS);
        assertThat(out[0].attempts()).isZero();
        assertThat(runs).hasValue(0);
    }

    @Test
    void timeoutsAreRetriedWhenAllowed() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolSpec slowThenFast = new ToolSpec(ToolDefinition.builder("sf").description("s").build(),
                (a, c) -> runs.incrementAndGet() == 1 ? Mono.never() : Mono.just(ToolResult.text("fast")));
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(slowThenFast)
                .settings(ExecutionSettings.builder().retryOnError(true).maxRetries(1).timeoutMs(1000).build())
                .build();
        ToolResultEvent r = runOne(ex, vts, "sf");
        assertThat(r.content()).isEqualTo("fast");
        assertThat(r.attempts()).isEqualTo(2);
    }

    @Test
    void backoffGrowsAndIsCappedAtThreeSeconds() {
        for (int attempt = 1; attempt <= 12; attempt++) {
            long d = CallRun.backoffMs(attempt);
            long base = Math.min(3000, 200L << Math.min(attempt - 1, 10));
            assertThat(d).isBetween(base / 2, Math.min(3000, base));
        }
    }
}
