package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.testing.EchoDriver;
import dev.toolbus.bus.testing.FaultProxy;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Faults between toolbus and Redis, injected by an in-test TCP proxy while a flood of turns runs: the
 * connections cut, stalled, slowed; and Redis itself restarted mid-flood. Afterwards every turn
 * completed exactly once, in order per stream, and the group is healthy (nothing pending, lag 0). And
 * one cut at the worst moment: while a read's answer is on the wire.
 */
class RedisFaultsTest {

    static final int TURNS = 1_200;
    static final int STREAMS = 12;

    private RedisTestSupport redis;
    private FaultProxy proxy;
    private RedisStreamsBus bus;
    private ToolExecutor executor;

    @BeforeEach
    void setUp() throws Exception {
        redis = RedisTestSupport.require();
        URI uri = URI.create(redis.url);
        proxy = FaultProxy.start(uri.getHost(), uri.getPort());
    }

    @AfterEach
    void tearDown() {
        if (bus != null) {
            bus.closeGracefully().block(Duration.ofSeconds(20));
        }
        if (executor != null) {
            executor.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    /** per stream, turn numbers of turn_completed in the order written. */
    private Map<String, List<Integer>> completed() {
        Map<String, List<Integer>> out = new HashMap<>();
        for (int s = 0; s < STREAMS; s++) {
            List<Integer> turns = new ArrayList<>();
            for (String e : redis.events(redis.prefix + "results:s" + s)) {
                // a replay (marked) answers a calls entry the test's client wrote twice when its resend
                // crossed the fault; a consumer drops those, and so does this count
                if (e.contains("\"turn_completed\"") && !e.startsWith("{\"replayed\":true")) {
                    turns.add(Integer.parseInt(e.replaceAll(".*\"turn_id\":\"t(\\d+)\".*", "$1")));
                }
            }
            out.put("s" + s, turns);
        }
        return out;
    }

    private int total() {
        return completed().values().stream().mapToInt(List::size).sum();
    }

    @Test
    void cutStalledAndSlowConnections_loseNoTurn_repeatNone_andKeepOrder() {
        executor = ToolExecutor.builder().tool(Tools.function("echo", "Returns its arguments", json -> json)).build();
        bus = RedisStreamsBus.fromUri("redis://127.0.0.1:" + proxy.port(), redis.config().resultsMaxLen(0)
                .claimMinIdle(Duration.ofSeconds(3)).claimInterval(Duration.ofMillis(500)).build());
        executor.attach(bus);
        for (int i = 0; i < TURNS; i++) {
            redis.addCall(EchoDriver.turn("s" + (i % STREAMS), "t" + i, "v" + i));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 5);
        long before = proxy.accepted();
        proxy.cut();
        await().atMost(Duration.ofSeconds(30)).until(() -> proxy.accepted() >= before + 2); // both connections came back
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= 2 * TURNS / 5);
        proxy.stall(true);
        int atStall = total();
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> total() == atStall);
        proxy.stall(false);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= 3 * TURNS / 5);
        proxy.slow(Duration.ofMillis(2));
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= 4 * TURNS / 5);
        proxy.slow(Duration.ZERO);

        assertEveryTurnOnceInOrder();
    }

    private void assertEveryTurnOnceInOrder() {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> total() >= TURNS && redis.pending() == 0);
        Map<String, List<Integer>> byStream = completed();
        byStream.forEach((stream, turns) -> assertThat(turns).as("turns of %s", stream)
                .hasSize(TURNS / STREAMS).doesNotHaveDuplicates().isSorted());
        assertThat(redis.groupHealthy()).as("nothing pending, lag 0").isTrue();
        assertThat(bus.inflight()).isZero();
    }

    /** Redis restarted (SHUTDOWN with its AOF, started again on the same port and data) in the middle of a flood. */
    @Test
    void aBrokerRestartMidFlood_losesNoTurn_repeatsNone_andKeepsOrder() throws Exception {
        String restart = System.getenv("TOOLBUS_REDIS_RESTART");
        org.junit.jupiter.api.Assumptions.assumeTrue(restart != null, "TOOLBUS_REDIS_RESTART is not set");
        executor = ToolExecutor.builder().tool(Tools.function("echo", "Returns its arguments", json -> json)).build();
        bus = RedisStreamsBus.fromUri(redis.url, redis.config().resultsMaxLen(0)
                .claimMinIdle(Duration.ofSeconds(3)).claimInterval(Duration.ofMillis(500)).build());
        executor.attach(bus);
        for (int i = 0; i < TURNS / 2; i++) {
            redis.addCall(EchoDriver.turn("s" + (i % STREAMS), "t" + i, "v" + i));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 4);
        int atStop = total(); // the second half of the flood is not sent yet
        Process p = new ProcessBuilder("bash", restart).inheritIO().start();
        for (int i = TURNS / 2; i < TURNS; i++) { // while Redis stops and starts: a client retries what failed
            String turn = EchoDriver.turn("s" + (i % STREAMS), "t" + i, "v" + i);
            // queued by Lettuce while it reconnects; refused (LOADING) while Redis reads its AOF back
            await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                    .ignoreExceptionsInstanceOf(io.lettuce.core.RedisException.class)
                    .until(() -> {
                        redis.addCall(turn);
                        return true;
                    });
        }
        assertThat(p.waitFor()).isZero();
        System.out.println("redis restarted: %d of %d turns completed when it was stopped, %d when it was back"
                .formatted(atStop, TURNS, total()));
        assertEveryTurnOnceInOrder();
    }

    private List<String> completedOfS() {
        return redis.events(redis.prefix + "results:s").stream()
                .filter(e -> e.contains("\"turn_completed\""))
                .map(e -> e.replaceAll(".*\"turn_id\":\"([^\"]+)\".*", "$1"))
                .toList();
    }

    private boolean readBlockedInRedis() {
        return redis.redis.clientList().lines().anyMatch(l -> l.contains("cmd=xreadgroup") && l.contains("flags=b"));
    }

    /**
     * A blocking read that Redis answered, whose answer a cut connection lost: its entries sit in this
     * consumer's pending list while the client sends the read again after reconnecting. The later turns
     * that read returns must not run before the lost ones of their stream.
     */
    @Test
    void aLostReadAnswer_isReadAgainFromThePendingList_beforeLaterTurnsOfItsStream() {
        executor = ToolExecutor.builder().tool(Tools.function("echo", "Returns its arguments", json -> json)).build();
        // no take-over of idle entries within the test: only the reader itself can find the lost entry
        bus = RedisStreamsBus.fromUri("redis://127.0.0.1:" + proxy.port(), redis.config().resultsMaxLen(0)
                .blockTimeout(Duration.ofSeconds(10))
                .claimMinIdle(Duration.ofSeconds(60)).claimInterval(Duration.ofSeconds(30)).build());
        executor.attach(bus);
        redis.addCall(EchoDriver.turn("s", "warm", "w"));
        await().atMost(Duration.ofSeconds(20)).until(() -> completedOfS().equals(List.of("warm")));
        await().atMost(Duration.ofSeconds(20)).until(this::readBlockedInRedis);

        proxy.stall(true);
        redis.addCall(EchoDriver.turn("s", "first", "1"));
        // Redis delivered it to the blocked read; its answer is held in the stalled proxy
        await().atMost(Duration.ofSeconds(20)).until(() -> redis.pending() == 1);
        long before = proxy.accepted();
        proxy.cut();
        proxy.stall(false);
        await().atMost(Duration.ofSeconds(20)).until(() -> proxy.accepted() >= before + 2);
        redis.addCall(EchoDriver.turn("s", "second", "2"));

        await().atMost(Duration.ofSeconds(30)).until(() -> completedOfS().size() == 3 && redis.pending() == 0);
        assertThat(completedOfS()).containsExactly("warm", "first", "second");
    }

    /**
     * One of two instances stalled (its connections through the proxy) past {@code claimMinIdle} while it
     * runs turns: the other instance takes those entries over and runs them again. When the stalled one
     * comes back, its result writes find the finished-turn records and write nothing, so each turn's
     * events are in its results stream once, and the group is left with nothing pending. (Order per
     * stream is not asserted: two instances of a group share a conversation's turns.)
     */
    @Test
    void anInstanceStalledPastClaimMinIdle_isTakenOver_andItsLateWritesAddNothing() {
        Map<String, String> ranOnStalled = new java.util.concurrent.ConcurrentHashMap<>();
        Map<String, String> ranOnLive = new java.util.concurrent.ConcurrentHashMap<>();
        java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CompletableFuture<Void>> gate =
                new java.util.concurrent.atomic.AtomicReference<>(java.util.concurrent.CompletableFuture.completedFuture(null));
        dev.toolbus.tool.ToolDefinition echo = dev.toolbus.tool.ToolDefinition.builder("echo").description("echo").build();
        executor = ToolExecutor.builder().tool(new dev.toolbus.tool.ToolSpec(echo, (args, ctx) -> reactor.core.publisher.Mono
                .fromFuture(gate.get()).then(reactor.core.publisher.Mono.fromSupplier(() -> {
                    ranOnStalled.put(args.json(), ctx.idempotencyKey());
                    return dev.toolbus.tool.ToolResult.text(args.json());
                })))).build();
        RedisStreamsConfig.Builder config = redis.config().resultsMaxLen(0)
                .claimMinIdle(Duration.ofSeconds(2)).claimInterval(Duration.ofMillis(500));
        bus = RedisStreamsBus.fromUri("redis://127.0.0.1:" + proxy.port(), config.consumer("stalled").build());
        executor.attach(bus);
        ToolExecutor liveExecutor = ToolExecutor.builder().tool(new dev.toolbus.tool.ToolSpec(echo, (args, ctx) ->
                reactor.core.publisher.Mono.fromSupplier(() -> {
                    ranOnLive.put(args.json(), ctx.idempotencyKey());
                    return dev.toolbus.tool.ToolResult.text(args.json());
                }))).build();
        RedisStreamsBus live = RedisStreamsBus.fromUri(redis.url, config.consumer("live").build());
        try {
            liveExecutor.attach(live);
            for (int i = 0; i < TURNS / 4; i++) {
                redis.addCall(EchoDriver.turn("s" + (i % STREAMS), "t" + i, "v" + i));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 4);
            java.util.concurrent.CompletableFuture<Void> held = new java.util.concurrent.CompletableFuture<>();
            gate.set(held); // the stalled instance's next turns wait in its tool
            for (int i = TURNS / 4; i < TURNS; i++) { // sent after the gate: both instances take some of them
                redis.addCall(EchoDriver.turn("s" + (i % STREAMS), "t" + i, "v" + i));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> bus.inflight() > 0);
            proxy.stall(true);
            int inFlight = bus.inflight();
            held.complete(null); // they finish while the instance cannot reach Redis

            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> total() >= TURNS);
            java.util.Set<String> ranTwice = new java.util.HashSet<>(ranOnStalled.keySet());
            ranTwice.retainAll(ranOnLive.keySet());
            System.out.println("stalled an instance with " + inFlight + " turns in flight; " + ranTwice.size()
                    + " turns ran on both instances");
            assertThat(ranTwice).as("turns the stalled instance ran and the live one ran again").isNotEmpty();
            ranTwice.forEach(call -> assertThat(ranOnLive.get(call)).as("key of %s", call).isEqualTo(ranOnStalled.get(call)));
            proxy.stall(false); // its late writes and acknowledgements reach Redis now

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> redis.groupHealthy() && bus.inflight() == 0 && live.inflight() == 0);
            Map<String, List<Integer>> byStream = completed();
            byStream.forEach((stream, turns) -> assertThat(turns).as("turns of %s", stream)
                    .hasSize(TURNS / STREAMS).doesNotHaveDuplicates());
            long events = 0;
            for (int s = 0; s < STREAMS; s++) {
                events += redis.redis.xlen(redis.prefix + "results:s" + s);
            }
            assertThat(events).as("a tool_result and a turn_completed per turn, once").isEqualTo(2L * TURNS);
        } finally {
            live.closeGracefully().block(Duration.ofSeconds(20));
            liveExecutor.close();
        }
    }
}
