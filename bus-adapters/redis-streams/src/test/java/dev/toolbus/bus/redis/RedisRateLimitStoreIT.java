package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.limits.LimitRule;
import dev.toolbus.executor.limits.Limits;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Issue 11.2: one token bucket on a real Redis, shared by two executors; an unreachable Redis fails closed. */
class RedisRateLimitStoreIT {

    private static ToolSpec ping(AtomicInteger runs) {
        return new ToolSpec(ToolDefinition.builder("ping").description("ping").cacheScope(CacheScope.NONE).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("pong " + runs.incrementAndGet())));
    }

    private static ToolExecutor executor(RedisRateLimitStore store, AtomicInteger runs, int rate) {
        return ToolExecutor.builder().tool(ping(runs)).rateLimitStore(store)
                .limits(Limits.builder().store("redis").rule(LimitRule.builder("ping-rate").tools(List.of("ping"))
                        .rate(rate).periodMs(600_000).per(LimitRule.Per.USER)).build())
                .build();
    }

    private static ToolCallsEvent turn(String id, String user, int calls) {
        List<ToolCall> list = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            list.add(ToolCall.ofJson(id + "-" + i, "ping", "{}"));
        }
        return new ToolCallsEvent("s-" + id, id, list, dev.toolbus.protocol.CallContext.builder().userId(user).build(),
                null);
    }

    private static List<ToolResultEvent> results(ToolExecutor ex, ToolCallsEvent t) {
        List<ToolResultEvent> out = new ArrayList<>();
        for (OutboundEvent e : ex.execute(t).collectList().block(Duration.ofSeconds(20))) {
            if (e instanceof ToolResultEvent r) {
                out.add(r);
            }
        }
        return out;
    }

    @Test
    void twoExecutorsDrawOnOneBucketSoTheLimitHoldsForBoth() {
        try (RedisFixture redis = RedisFixture.require();
             RedisRateLimitStore storeA = RedisRateLimitStore.create(redis.url, redis.prefix + "limits:");
             RedisRateLimitStore storeB = RedisRateLimitStore.create(redis.url, redis.prefix + "limits:")) {
            AtomicInteger runsA = new AtomicInteger();
            AtomicInteger runsB = new AtomicInteger();
            ToolExecutor a = executor(storeA, runsA, 5);
            ToolExecutor b = executor(storeB, runsB, 5);
            // one after the other: instance a takes 3 of the 5 tokens, b finds only 2 left, a none
            assertThat(results(a, turn("a1", "alice", 3))).noneMatch(ToolResultEvent::isError);
            List<ToolResultEvent> fromB = results(b, turn("b1", "alice", 4));
            assertThat(fromB).filteredOn(r -> !r.isError()).hasSize(2);
            assertThat(results(a, turn("a2", "alice", 1))).allMatch(ToolResultEvent::isError);
            assertThat(runsA).hasValue(3);
            assertThat(runsB).hasValue(2);
            // at once: 2 x 8 calls from both instances for another user, exactly 5 tokens in the shared bucket
            runsA.set(0);
            runsB.set(0);
            List<ToolResultEvent> all = Flux.merge(
                            Flux.range(0, 4).flatMap(i -> Mono.fromCallable(() -> results(a, turn("ca" + i, "carol", 2)))
                                    .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic())),
                            Flux.range(0, 4).flatMap(i -> Mono.fromCallable(() -> results(b, turn("cb" + i, "carol", 2)))
                                    .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic())))
                    .flatMapIterable(l -> l).collectList().block(Duration.ofSeconds(30));
            assertThat(all).hasSize(16);
            assertThat(all).filteredOn(r -> !r.isError()).hasSize(5);
            assertThat(all).filteredOn(ToolResultEvent::isError).allSatisfy(r -> {
                assertThat(r.error().code()).isEqualTo(ErrorCode.RATE_LIMITED);
                // one token per 120 s: the wait is at most that, and positive
                assertThat(r.error().retryAfterMs()).isBetween(1L, 120_000L);
            });
            assertThat(runsA.get() + runsB.get()).isEqualTo(5);
            // another user has a bucket of their own, seen by both instances
            assertThat(results(b, turn("c", "bob", 1)).get(0).isError()).isFalse();
            String key = redis.prefix + "limits:ping-rate|user|alice";
            assertThat(redis.redis.hget(key, "tokens")).isNotNull();
            assertThat(redis.redis.pttl(key)).as("the bucket expires once full again").isBetween(1L, 601_000L);
            a.close();
            b.close();
        }
    }

    @Test
    void afterARedisRestartTheStoreTakesAgainAndReloadsItsScript() throws Exception {
        String restart = System.getenv("TOOLBUS_REDIS_RESTART");
        org.junit.jupiter.api.Assumptions.assumeTrue(restart != null, "TOOLBUS_REDIS_RESTART is not set");
        try (RedisFixture redis = RedisFixture.require();
             RedisRateLimitStore store = RedisRateLimitStore.create(redis.url, redis.prefix + "limits:")) {
            assertThat(store.take("k", 100, 1000, 100).block(Duration.ofSeconds(5))).isZero();
            Process p = new ProcessBuilder("bash", restart).inheritIO().start();
            assertThat(p.waitFor()).isZero();
            // the script cache is empty after a restart: EVALSHA answers NOSCRIPT and the store falls back to EVAL
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> store.take("k2", 100, 1000, 100).block(Duration.ofSeconds(5)) == 0L);
            assertThat(redis.redis.hget(redis.prefix + "limits:k2", "tokens")).isEqualTo("99");
        }
    }

    @Test
    void anUnreachableRedisRefusesTheCallPromptly() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try (RedisRateLimitStore store = RedisRateLimitStore.create("redis://127.0.0.1:" + port, "x:")) {
            AtomicInteger runs = new AtomicInteger();
            ToolExecutor ex = executor(store, runs, 5);
            long start = System.nanoTime();
            ToolResultEvent r = results(ex, turn("t", "alice", 1)).get(0);
            assertThat(r.error().code()).isEqualTo(ErrorCode.RATE_LIMITED);
            assertThat(r.content()).contains("shared store of rule ping-rate cannot be reached");
            assertThat(r.error().retryAfterMs()).isEqualTo(1000L);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            assertThat(runs).hasValue(0);
            ex.close();
        }
    }
}
