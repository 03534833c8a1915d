package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

class ToolExecutorCacheTest {

    private static ToolResultEvent first(ToolExecutor ex, ToolCallsEvent turn) {
        return TestTools.results(ex.execute(turn).collectList().block(Duration.ofSeconds(5))).get(0);
    }

    @Test
    void identicalCallsHitTheCacheRegardlessOfKeyOrder() {
        AtomicInteger runs = new AtomicInteger();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        ToolSpec two = new ToolSpec(ToolDefinition.builder("two").description("t").build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("run " + runs.incrementAndGet())));
        ToolExecutor ex = ToolExecutor.builder().tool(two).meterRegistry(meters).build();
        ToolResultEvent a = first(ex, turn("s", "t1", call("c1", "two", "{\"x\":1,\"y\":[1,2]}")));
        ToolResultEvent b = first(ex, turn("s", "t2", call("c2", "two", "{\"y\":[1,2],\"x\":1.0}")));
        assertThat(a.cached()).isFalse();
        assertThat(a.attempts()).isEqualTo(1);
        assertThat(b.cached()).isTrue();
        assertThat(b.attempts()).isZero();
        assertThat(b.content()).isEqualTo("run 1");
        assertThat(b.toolCallId()).isEqualTo("c2");
        assertThat(runs).hasValue(1);
        assertThat(meters.get(ToolMetrics.CACHE_REQUESTS).tag("result", "hit").counter().count()).isEqualTo(1);
        assertThat(meters.get(ToolMetrics.CACHE_REQUESTS).tag("result", "miss").counter().count()).isEqualTo(1);
        assertThat(meters.get(ToolMetrics.CALLS).tag("tool", "two").tag("outcome", "ok").counter().count())
                .isEqualTo(2);
        assertThat(ex.callLog().recent()).extracting(r -> r.cached()).containsExactly(true, false);
        // run in process: for the local principal, which the call log names
        assertThat(ex.callLog().recent()).extracting(r -> r.principal()).containsOnly("local:local");
    }

    @Test
    void cacheIsScopedToStreamAndUserUnlessGlobal() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.counter("count", runs)).build();
        first(ex, turn("s1", "t", call("c", "count", "{\"q\":\"a\"}")));
        first(ex, turn("s2", "t", call("c", "count", "{\"q\":\"a\"}")));
        assertThat(runs).hasValue(2);

        AtomicInteger globalRuns = new AtomicInteger();
        ToolSpec global = new ToolSpec(ToolDefinition.builder("g").description("g").cacheScope(CacheScope.GLOBAL)
                .build(), (a, c) -> Mono.fromSupplier(() -> ToolResult.text("g" + globalRuns.incrementAndGet())));
        ex.registry().register(global, dev.toolbus.tool.ToolSource.PLUGIN);
        first(ex, turn("s1", "t", call("c", "g", "{}")));
        assertThat(first(ex, turn("s2", "t", call("c", "g", "{}"))).cached()).isTrue();
        assertThat(globalRuns).hasValue(1);
    }

    @Test
    void entriesExpireAfterTheTtl() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(TestTools.counter("count", runs))
                .settings(ExecutionSettings.builder().cacheTtlMs(60_000).build()).build();
        ToolCallsEvent t = turn("s", "t", call("c", "count", "{\"q\":\"a\"}"));
        StepVerifier.withVirtualTime(() -> Flux.concat(
                                ex.execute(t),
                                Mono.delay(Duration.ofSeconds(59), vts).thenMany(ex.execute(t)),
                                Mono.delay(Duration.ofSeconds(2), vts).thenMany(ex.execute(t)))
                        .ofType(ToolResultEvent.class)
                        .map(r -> r.content() + (r.cached() ? " (cached)" : "")), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofSeconds(120))
                .expectNext("n=1:a", "n=1:a (cached)", "n=2:a")
                .expectComplete()
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void identicalConcurrentCallsRunOnce() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("s").build(),
                (a, c) -> Mono.delay(Duration.ofMillis(100), vts)
                        .map(x -> ToolResult.text("r" + runs.incrementAndGet())));
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(slow).build();
        StepVerifier.withVirtualTime(() -> Flux.merge(
                                ex.execute(turn("s", "t1", call("a", "slow", "{}"))),
                                ex.execute(turn("s2", "t2", call("b", "slow", "{}"))),
                                ex.execute(turn("s", "t3", call("c", "slow", "{}"))))
                        .ofType(ToolResultEvent.class), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofMillis(100))
                .expectNextCount(3)
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        // stream "s" runs once for t1; t3 (same stream, queued behind t1) is a hit; the other stream runs itself
        assertThat(runs).hasValue(2);
    }

    @Test
    void concurrentFollowersShareTheLeadersRun() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("s").cacheScope(CacheScope.GLOBAL)
                .build(), (a, c) -> Mono.delay(Duration.ofMillis(100), vts)
                .map(x -> ToolResult.text("r" + runs.incrementAndGet())));
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(slow).build();
        List<ToolResultEvent>[] out = new List[1];
        StepVerifier.withVirtualTime(() -> Flux.merge(
                                ex.execute(turn("s1", "t", call("a", "slow", "{}"))),
                                ex.execute(turn("s2", "t", call("b", "slow", "{}"))),
                                ex.execute(turn("s3", "t", call("c", "slow", "{}"))))
                        .ofType(ToolResultEvent.class).collectList(), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofMillis(100))
                .assertNext(l -> out[0] = l)
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        assertThat(runs).hasValue(1);
        assertThat(out[0]).extracting(ToolResultEvent::content).containsOnly("r1");
        assertThat(out[0]).filteredOn(ToolResultEvent::cached).hasSize(2);
    }

    @Test
    void errorsSideEffectingAndDangerousToolsAreNeverCached() {
        AtomicInteger errRuns = new AtomicInteger();
        AtomicInteger sideRuns = new AtomicInteger();
        AtomicInteger dangerRuns = new AtomicInteger();
        ToolSpec err = new ToolSpec(ToolDefinition.builder("err").description("e").build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.error("no " + errRuns.incrementAndGet())));
        ToolSpec side = new ToolSpec(ToolDefinition.builder("send").description("s").sideEffecting(true).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("sent " + sideRuns.incrementAndGet())));
        ToolSpec danger = new ToolSpec(ToolDefinition.builder("kick").description("k").dangerous(true).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("kicked " + dangerRuns.incrementAndGet())));
        ToolExecutor ex = ToolExecutor.builder().tool(err).tool(side).tool(danger).build();
        for (int i = 0; i < 2; i++) {
            // a new turn each time: the same turn again would replay the side-effecting call from the journal
            first(ex, turn("s", "t" + i, call("c", "err", "{}")));
            first(ex, turn("s", "t" + i, call("c", "send", "{}")));
            first(ex, turn("s", "t" + i, call("c", "kick", "{}")));
        }
        assertThat(errRuns).hasValue(2);
        assertThat(sideRuns).hasValue(2);
        assertThat(dangerRuns).hasValue(2);
    }

    @Test
    void cacheTtlZeroDisablesTheCache() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.counter("count", runs))
                .settings(ExecutionSettings.builder().cacheTtlMs(0).build()).build();
        first(ex, turn("s", "t", call("c", "count", "{}")));
        first(ex, turn("s", "t", call("c", "count", "{}")));
        assertThat(runs).hasValue(2);
    }

    @Test
    void aFollowerDoesNotInheritTheCancellationOfTheLeadersTurn() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        AtomicInteger runs = new AtomicInteger();
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("s").cacheScope(CacheScope.GLOBAL)
                .build(), (a, c) -> Mono.delay(Duration.ofMillis(100), vts)
                .map(x -> ToolResult.text("r" + runs.incrementAndGet())));
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(slow).build();
        StepVerifier.withVirtualTime(() -> {
                    reactor.core.Disposable leader = ex.execute(turn("s1", "t", call("a", "slow", "{}"))).subscribe();
                    Flux<ToolResultEvent> follower = ex.execute(turn("s2", "t", call("b", "slow", "{}")))
                            .ofType(ToolResultEvent.class);
                    return follower.doOnSubscribe(s -> vts.schedule(leader::dispose, 50,
                            java.util.concurrent.TimeUnit.MILLISECONDS));
                }, () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .thenAwait(Duration.ofMillis(200))
                .assertNext(r -> {
                    assertThat(r.isError()).isFalse();
                    assertThat(r.content()).isEqualTo("r1");
                })
                .expectComplete()
                .verify(Duration.ofSeconds(10));
    }
}
