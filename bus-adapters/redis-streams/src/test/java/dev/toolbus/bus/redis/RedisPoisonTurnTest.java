package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.testing.EchoDriver;
import dev.toolbus.spi.BusMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** A turn that kills every instance taking it is dead-lettered after maxDeliveries, with an error event. */
class RedisPoisonTurnTest {

    private RedisTestSupport redis;

    @BeforeEach
    void setUp() {
        redis = RedisTestSupport.require();
    }

    @AfterEach
    void tearDown() {
        if (redis != null) {
            redis.close();
        }
    }

    /** An instance that takes what it is given and dies without settling anything. */
    private void takeAndDie(RedisStreamsConfig config, int expected) {
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, config);
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        Disposable sub = bus.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == expected);
        sub.dispose();
        bus.closeGracefully().block(Duration.ofSeconds(10));
    }

    @Test
    void aTurnDeliveredMoreThanMaxDeliveries_isDeadLetteredWithItsCount_andItsStreamGetsAnError() {
        RedisStreamsConfig config = redis.config().consumer("fixed").maxDeliveries(2).shutdownTimeout(Duration.ZERO).build();
        redis.addCall(EchoDriver.turn("s", "t-poison", "boom"));
        takeAndDie(config, 1); // delivery 1
        takeAndDie(config, 1); // delivery 2 (this consumer's own pending entry, read again)

        redis.addCall(EchoDriver.turn("s", "t-ok", "fine"));
        EchoDriver driver = new EchoDriver();
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, config);
        Disposable d = driver.attach(bus);
        try {
            await().atMost(Duration.ofSeconds(15)).until(() -> redis.pending() == 0 && driver.turns.get() == 1);
            List<Map<String, String>> dead = redis.entries(redis.prefix + "dead");
            assertThat(dead).hasSize(1);
            assertThat(dead.get(0)).containsEntry("deliveries", "3")
                    .containsEntry("source_stream", redis.prefix + "calls");
            assertThat(dead.get(0).get("reason")).isEqualTo("delivered 3 times without being settled (maxDeliveries 2)");
            assertThat(dead.get(0).get("event")).contains("t-poison");
            List<String> events = redis.events(redis.prefix + "results:s");
            assertThat(events).hasSize(3); // the error, then t-ok's result and turn_completed
            assertThat(events.get(0)).contains("\"type\":\"error\"", "\"turn_id\":\"t-poison\"", "\"code\":\"REJECTED\"",
                    "maxDeliveries 2");
            assertThat(events.get(2)).contains("turn_completed", "t-ok");
        } finally {
            d.dispose();
            bus.closeGracefully().block(Duration.ofSeconds(10));
        }
    }
}
