package dev.toolbus.executor.internal;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.executor.TestTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ToolExecutorLiveEventsTest {

    /** progress(steps, ms): progress i of steps every ms, then "done <steps>". */
    static ToolSpec progress(Scheduler timer) {
        return new ToolSpec(ToolDefinition.builder("progress").description("p")
                .parameter(ToolParameter.of("steps", ToolParamType.INTEGER, "steps"))
                .parameter(ToolParameter.of("ms", ToolParamType.INTEGER, "ms")).build(),
                (a, c) -> {
                    long steps = a.integer("steps", 1);
                    return Flux.interval(Duration.ofMillis(a.integer("ms", 10)), timer).take(steps)
                            // progress acts when called; its Mono only tells when it was published
                            .doOnNext(i -> c.progress(i + 1, (double) steps, "step " + (i + 1)))
                            .then(Mono.fromSupplier(() -> ToolResult.text("done " + steps)));
                });
    }

    static ToolSpec greet() {
        return new ToolSpec(ToolDefinition.builder("greet").description("g")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "text")).build(),
                (a, c) -> c.send(a.string("text")).then(c.send(List.of(ContentPart.text("again"))))
                        .thenReturn(ToolResult.text("greeted")));
    }

    @Test
    void progressIsRateLimitedPerCallKeepsTheNewestAndNeverLosesTheLastBeforeTheResult() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).meterRegistry(meters).tool(progress(vts))
                .settings(ExecutionSettings.builder().progressIntervalMs(100).build()).build();
        List<Long> at = new ArrayList<>();
        List<ToolProgressEvent> progress = new ArrayList<>();
        // steps at 30, 60, ... 300 ms: 30 goes at once; 120 at 130; 210 at 230; 300 is flushed before the result
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t", call("c1", "progress",
                                "{\"steps\":10,\"ms\":30}")))
                        .doOnNext(e -> {
                            if (e instanceof ToolProgressEvent p) {
                                progress.add(p);
                                at.add(vts.now(TimeUnit.MILLISECONDS));
                            }
                        }), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(1))
                .expectNextCount(4)
                .assertNext(e -> assertThat(((ToolResultEvent) e).content()).isEqualTo("done 10"))
                .expectNextMatches(e -> e.type().equals("turn_completed"))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        assertThat(progress).extracting(ToolProgressEvent::progress).containsExactly(1.0, 4.0, 7.0, 10.0);
        assertThat(progress).allSatisfy(p -> {
            assertThat(p.total()).isEqualTo(10.0);
            assertThat(p.name()).isEqualTo("progress");
            assertThat(p.toolCallId()).isEqualTo("c1");
        });
        assertThat(at).containsExactly(30L, 130L, 230L, 300L);
        for (int i = 1; i < at.size() - 1; i++) {
            assertThat(at.get(i) - at.get(i - 1)).isGreaterThanOrEqualTo(100);
        }
        assertThat(meters.counter(ToolMetrics.CONTROL_PROGRESS, "result", "published").count()).isEqualTo(4);
        assertThat(meters.counter(ToolMetrics.CONTROL_PROGRESS, "result", "dropped").count()).isEqualTo(6);
    }

    @Test
    void withoutARateLimitEveryProgressIsPublishedInOrder() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(progress(vts))
                .settings(ExecutionSettings.builder().progressIntervalMs(0).build()).build();
        StepVerifier.withVirtualTime(() -> ex.execute(turn("s", "t", call("c1", "progress",
                                "{\"steps\":5,\"ms\":10}"))).map(e -> e instanceof ToolProgressEvent p
                                ? "p" + (int) p.progress() : e.type()),
                        () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(1))
                .expectNext("p1", "p2", "p3", "p4", "p5", "tool_result", "turn_completed")
                .expectComplete()
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void sendPublishesMessagesWithPerCallIdsBeforeTheResult() {
        ToolExecutor ex = ToolExecutor.builder().tool(greet()).build();
        List<OutboundEvent> out = ex.execute(turn("s", "t", call("g1", "greet", "{\"text\":\"你好！\"}")))
                .collectList().block(Duration.ofSeconds(5));
        assertThat(out).extracting(OutboundEvent::type)
                .containsExactly("send_message", "send_message", "tool_result", "turn_completed");
        SendMessageEvent m = (SendMessageEvent) out.get(0);
        assertThat(m.messageId()).isEqualTo("g1:msg:1");
        assertThat(m.content()).containsExactly(ContentPart.text("你好！"));
        assertThat(((SendMessageEvent) out.get(1)).messageId()).isEqualTo("g1:msg:2");
        assertThat(((ToolResultEvent) out.get(2)).content()).isEqualTo("greeted");
    }

    @Test
    void onABusLiveEventsArePublishedAtOnceInOrderAndTheTurnsBatchAfterThem() throws Exception {
        InMemoryBus bus = InMemoryBus.create();
        ToolSpec chatty = new ToolSpec(ToolDefinition.builder("chatty").description("c").build(),
                ToolHandler.blocking((a, c) -> {
                    for (int i = 1; i <= 3; i++) {
                        c.progress(i, 3.0, null).block();
                    }
                    c.send("hello").block();
                    return ToolResult.text("ok");
                }));
        ToolExecutor ex = ToolExecutor.builder().tool(chatty).tool(TestTools.echo())
                .settings(ExecutionSettings.builder().progressIntervalMs(0).build()).build();
        var events = bus.events("s").take(7).collectList().toFuture();
        Disposable d = ex.attach(bus);
        bus.send(turn("s", "t", call("e", "echo", "{\"text\":\"x\"}"), call("c", "chatty", "{}")));
        List<OutboundEvent> out = events.get(10, TimeUnit.SECONDS);
        assertThat(out).extracting(OutboundEvent::type).containsExactly("tool_progress", "tool_progress",
                "tool_progress", "send_message", "tool_result", "tool_result", "turn_completed");
        d.dispose();
    }

    @Test
    void sendsBeyondTheTurnsBoundOfUndeliveredEventsFailAndProgressIsDropped() {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        int[] failed = new int[1];
        ToolSpec flood = new ToolSpec(ToolDefinition.builder("flood").description("f").build(),
                (a, c) -> {
                    for (int i = 0; i < TurnLiveEvents.MAX_PENDING + 10; i++) {
                        c.send("m" + i).subscribe(null, e -> failed[0]++);
                    }
                    c.progress(1, null, null);
                    return Mono.just(ToolResult.text("sent"));
                });
        ToolExecutor ex = ToolExecutor.builder().meterRegistry(meters).tool(flood)
                .settings(ExecutionSettings.builder().progressIntervalMs(0).build()).build();
        // the subscriber asks for one event only: the rest waits in the turn's buffer
        StepVerifier.create(ex.execute(turn("s", "t", call("f", "flood", "{}"))), 1)
                .expectNextCount(1)
                // one delivered, MAX_PENDING buffered, the other 9 refused
                .then(() -> assertThat(failed[0]).isEqualTo(9))
                .thenRequest(Long.MAX_VALUE)
                .expectNextCount(TurnLiveEvents.MAX_PENDING)
                .assertNext(e -> assertThat(((ToolResultEvent) e).content()).isEqualTo("sent"))
                .expectNextCount(1)
                .verifyComplete();
        assertThat(meters.counter(ToolMetrics.CONTROL_PROGRESS, "result", "dropped").count()).isEqualTo(1);
        assertThat(meters.counter(ToolMetrics.CONTROL_MESSAGES).count()).isEqualTo(TurnLiveEvents.MAX_PENDING + 1);
    }

    @Test
    void aContextWithoutConversationCompletesProgressAndSendEmptyAndFailsAsk() {
        var ctx = dev.toolbus.tool.ToolContext.builder().streamId("s").build();
        StepVerifier.create(ctx.progress(1, null, null)).verifyComplete();
        StepVerifier.create(ctx.send("x")).verifyComplete();
        StepVerifier.create(ctx.ask("q?", null)).verifyError(IllegalStateException.class);
    }

    @Test
    void sendAfterTheCallEndedFailsAndProgressIsIgnored() {
        dev.toolbus.tool.ToolContext[] kept = new dev.toolbus.tool.ToolContext[1];
        ToolSpec keep = new ToolSpec(ToolDefinition.builder("keep").description("k").build(),
                (a, c) -> {
                    kept[0] = c;
                    return Mono.just(ToolResult.text("ok"));
                });
        ToolExecutor ex = ToolExecutor.builder().tool(keep).build();
        ex.execute(turn("s", "t", call("k", "keep", "{}"))).blockLast(Duration.ofSeconds(5));
        StepVerifier.create(kept[0].send("late")).verifyError(IllegalStateException.class);
        StepVerifier.create(kept[0].progress(1, null, "late")).verifyComplete();
        StepVerifier.create(kept[0].ask("late?", null)).verifyError(IllegalStateException.class);
    }
}
