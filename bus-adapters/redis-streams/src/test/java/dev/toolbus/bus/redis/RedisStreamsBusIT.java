package dev.toolbus.bus.redis;

import dev.toolbus.bus.tck.EchoDriver;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.spi.BusMessage;
import dev.toolbus.protocol.TurnCompletedEvent;
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

/**
 * Redis-specific behaviour of the bus, against the Redis the test command started (the shared delivery
 * contract: {@link RedisDeliveryIT}).
 */
class RedisStreamsBusIT {

    private RedisFixture redis;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @BeforeEach
    void setUp() {
        redis = RedisFixture.require();
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
    void entryIsAcknowledgedOnlyAfterPublishAndMarkerIsWritten() {
        RedisStreamsBus bus = bus(redis.config().build());
        redis.addCall(EchoDriver.turn("s", "t1", "a"));
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        bus.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 1);

        assertThat(redis.pending()).isEqualTo(1);
        assertThat(bus.isTurnDone("s", "t1").block()).isFalse();
        bus.publish(List.of(new TurnCompletedEvent("s", "t1", List.of("c"), 0, 1))).block();
        assertThat(redis.eventsAt(redis.prefix + "results:s")).hasSize(1);
        assertThat(bus.isTurnDone("s", "t1").block()).isTrue();
        assertThat(redis.pending()).isEqualTo(1);

        got.get(0).ack().block();
        assertThat(redis.pending()).isZero();
        assertThat(bus.inflight()).isZero();
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
        List<String> completed = redis.eventsAt(redis.prefix + "results:s").stream()
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

}
