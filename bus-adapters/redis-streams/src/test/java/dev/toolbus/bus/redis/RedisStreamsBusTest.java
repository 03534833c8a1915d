package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.testing.EchoDriver;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.BusMessage;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;

/** Against the real Redis started by scripts/services/redis.sh; skipped without it. */
class RedisStreamsBusTest {

    private RedisTestSupport redis;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void setUp() {
        redis = RedisTestSupport.require();
    }

    @AfterEach
    void tearDown() throws Exception {
        Collections.reverse(closeables);
        for (AutoCloseable c : closeables) {
            c.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private RedisStreamsBus bus(RedisStreamsConfig config) {
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, config);
        closeables.add(() -> bus.closeGracefully().block(Duration.ofSeconds(10)));
        return bus;
    }

    private void attach(EchoDriver driver, RedisStreamsBus bus) {
        Disposable d = driver.attach(bus);
        closeables.add(d::dispose);
    }

    @Test
    void backlogPublishedBeforeAnyInstance_isExecutedInOrder() {
        for (int i = 0; i < 60; i++) {
            redis.addCall(EchoDriver.turn("s" + (i % 3), "t" + i, "x" + i));
        }
        EchoDriver driver = new EchoDriver();
        attach(driver, bus(redis.config().build()));

        await().atMost(Duration.ofSeconds(20)).until(() -> driver.turns.get() == 60);
        for (int s = 0; s < 3; s++) {
            List<String> completed = redis.events(redis.prefix + "results:s" + s).stream()
                    .filter(e -> e.contains("\"turn_completed\"")).toList();
            assertThat(completed).hasSize(20);
            for (int k = 0; k < 20; k++) {
                assertThat(completed.get(k)).contains("\"turn_id\":\"t" + (s + 3 * k) + "\"");
            }
        }
        assertThat(redis.pending()).isZero();
    }

    @Test
    void entryIsAcknowledgedOnlyAfterPublishAndMarkerIsWritten() {
        RedisStreamsBus bus = bus(redis.config().build());
        redis.addCall(EchoDriver.turn("s", "t1", "a"));
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        bus.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 1);

        assertThat(redis.pending()).isEqualTo(1);
        assertThat(bus.isTurnDone("s", "t1").block()).isFalse();
        bus.publish(List.of(new TurnCompletedEvent("s", "t1", List.of("c"), 0, 1))).block();
        assertThat(redis.events(redis.prefix + "results:s")).hasSize(1);
        assertThat(bus.isTurnDone("s", "t1").block()).isTrue();
        assertThat(redis.pending()).isEqualTo(1);

        got.get(0).ack().block();
        assertThat(redis.pending()).isZero();
        assertThat(bus.inflight()).isZero();
    }

    @Test
    void receive_readsNoMoreThanRequested() {
        for (int i = 0; i < 10; i++) {
            redis.addCall(EchoDriver.turn("s", "t" + i, "x"));
        }
        RedisStreamsBus bus = bus(redis.config().build());
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        BaseSubscriber<BusMessage> sub = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                s.request(3);
            }

            @Override
            protected void hookOnNext(BusMessage m) {
                got.add(m);
            }
        };
        bus.receive().subscribe(sub);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 3);
        // nothing beyond the demand was taken from the stream
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> redis.pending() == 3);
        assertThat(got).hasSize(3);
        sub.request(7);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 10);
        sub.dispose();
    }

    @Test
    void poisonEntries_goToTheDeadLetterStreamWithAReason_andTheBusKeepsWorking() {
        RedisStreamsBus bus = bus(redis.config().maxEventBytes(2048).build());
        redis.addCall("this is not json");
        redis.redis.xadd(redis.prefix + "calls", Map.of("payload", "no event field"));
        redis.addCall("{\"type\":\"tool_calls\",\"stream_id\":\"big\",\"turn_id\":\"t-big\",\"pad\":\""
                + "x".repeat(4000) + "\"}");
        redis.addCall("{\"type\":\"nonsense\",\"stream_id\":\"s\",\"turn_id\":\"t-bad\"}");
        redis.addCall(EchoDriver.turn("s", "t-ok", "fine"));
        EchoDriver driver = new EchoDriver();
        attach(driver, bus);

        await().atMost(Duration.ofSeconds(15)).until(() -> redis.pending() == 0
                && redis.events(redis.prefix + "results:s").size() == 3);
        List<Map<String, String>> dead = redis.entries(redis.prefix + "dead");
        List<String> reasons = dead.stream().map(e -> e.get("reason")).toList();
        assertThat(reasons).hasSize(3).contains("entry has no 'event' field",
                "event of 4066 bytes is above the 2048-byte limit");
        assertThat(reasons).anySatisfy(r -> assertThat(r).startsWith("malformed JSON"));
        assertThat(dead).allSatisfy(e -> assertThat(e).containsKeys("source_id", "consumer", "source_stream"));
        // the oversized turn also answers its conversation
        assertThat(redis.events(redis.prefix + "results:big")).singleElement().asString()
                .contains("\"type\":\"error\"", "\"code\":\"BAD_EVENT\"", "\"turn_id\":\"t-big\"");
        List<String> s = redis.events(redis.prefix + "results:s");
        assertThat(s.get(0)).contains("\"type\":\"error\"", "t-bad");
        assertThat(s.get(1)).contains("\"tool_result\"", "echo:{\\\"text\\\":\\\"fine\\\"}");
    }

    @Test
    void entriesOfADeadConsumer_areTakenOver_andFinishedTurnsAreNotRunAgain() {
        for (int i = 0; i < 5; i++) {
            redis.addCall(EchoDriver.turn("s", "t" + i, "x"));
        }
        // instance A takes all five, finishes the events of t0 but dies before acknowledging anything
        RedisStreamsBus a = bus(redis.config().consumer("a").shutdownTimeout(Duration.ZERO).build());
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        Disposable sub = a.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 5);
        a.publish(List.of(new TurnCompletedEvent("s", "t0", List.of("t0-c1"), 0, 1))).block();
        sub.dispose();
        a.closeGracefully().block();
        assertThat(redis.pending()).isEqualTo(5);

        RedisStreamsBus b = bus(redis.config().consumer("b").claimMinIdle(Duration.ofMillis(300))
                .claimInterval(Duration.ofMillis(100)).build());
        EchoDriver driver = new EchoDriver();
        attach(driver, b);
        await().atMost(Duration.ofSeconds(15)).until(() -> redis.pending() == 0);
        assertThat(driver.turns.get()).isEqualTo(4);
        List<String> completed = redis.events(redis.prefix + "results:s").stream()
                .filter(e -> e.contains("turn_completed")).toList();
        assertThat(completed).hasSize(5);
    }

    @Test
    void aRestartedConsumerWithTheSameName_firstRunsWhatItLeftPending() {
        for (int i = 0; i < 3; i++) {
            redis.addCall(EchoDriver.turn("s", "t" + i, "x"));
        }
        RedisStreamsBus first = bus(redis.config().consumer("fixed").shutdownTimeout(Duration.ZERO).build());
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        Disposable sub = first.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 3);
        sub.dispose();
        first.closeGracefully().block();

        EchoDriver driver = new EchoDriver();
        attach(driver, bus(redis.config().consumer("fixed").build()));
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.pending() == 0);
        assertThat(driver.turns.get()).isEqualTo(3);
    }

    @Test
    void closeGracefully_waitsForDeliveredTurnsToBeAcknowledged() {
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, redis.config().build());
        redis.addCall(EchoDriver.turn("s", "t1", "a"));
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        bus.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 1);

        var closed = bus.closeGracefully().toFuture();
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(1)).until(() -> !closed.isDone());
        got.get(0).ack().block();
        await().atMost(Duration.ofSeconds(5)).until(closed::isDone);
        assertThat(redis.pending()).isZero();
    }

    @Test
    void gauges_reportPendingAndLag() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RedisStreamsBus bus = RedisStreamsBus.builder().uri(redis.url)
                .config(redis.config().claimInterval(Duration.ofMillis(100)).build())
                .meterRegistry(registry).build();
        closeables.add(() -> bus.closeGracefully().block(Duration.ofSeconds(10)));
        for (int i = 0; i < 4; i++) {
            redis.addCall(EchoDriver.turn("s", "t" + i, "x"));
        }
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        BaseSubscriber<BusMessage> sub = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
                s.request(1);
            }

            @Override
            protected void hookOnNext(BusMessage m) {
                got.add(m);
            }
        };
        bus.receive().subscribe(sub);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                registry.get("toolbus.bus.pending").gauge().value() == 1
                        && registry.get("toolbus.bus.lag").gauge().value() == 3
                        && registry.get("toolbus.bus.inflight").gauge().value() == 1);
        sub.dispose();
    }

    @Test
    void aBrokerRestartMidRun_losesNoTurn() throws Exception {
        String restart = System.getenv("TOOLBUS_REDIS_RESTART");
        org.junit.jupiter.api.Assumptions.assumeTrue(restart != null, "TOOLBUS_REDIS_RESTART is not set");
        EchoDriver driver = new EchoDriver();
        attach(driver, bus(redis.config().claimMinIdle(Duration.ofSeconds(2)).claimInterval(Duration.ofMillis(500)).build()));
        for (int i = 0; i < 100; i++) {
            redis.addCall(EchoDriver.turn("s" + (i % 4), "t" + i, "x"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> driver.turns.get() >= 100);
        Process p = new ProcessBuilder("bash", restart).inheritIO().start();
        assertThat(p.waitFor()).isZero();
        for (int i = 100; i < 200; i++) {
            redis.addCall(EchoDriver.turn("s" + (i % 4), "t" + i, "x"));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> redis.pending() == 0 && completedTurns() == 200);
    }

    private long completedTurns() {
        long n = 0;
        for (int s = 0; s < 4; s++) {
            n += redis.events(redis.prefix + "results:s" + s).stream()
                    .filter(e -> e.contains("turn_completed")).map(e -> e.replaceAll(".*\"turn_id\":\"(t\\d+)\".*", "$1"))
                    .distinct().count();
        }
        return n;
    }
}
