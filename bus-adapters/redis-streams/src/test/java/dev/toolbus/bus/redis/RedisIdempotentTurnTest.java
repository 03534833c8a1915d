package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.testing.EchoDriver;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.spi.BusMessage;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/** A turn sent again within the marker's lifetime is not run again: its recorded events are replayed. */
class RedisIdempotentTurnTest {

    private RedisTestSupport redis;
    private RedisStreamsBus bus;
    private Disposable driving;

    @BeforeEach
    void setUp() {
        redis = RedisTestSupport.require();
    }

    @AfterEach
    void tearDown() {
        if (driving != null) {
            driving.dispose();
        }
        if (bus != null) {
            bus.closeGracefully().block(Duration.ofSeconds(10));
        }
        if (redis != null) {
            redis.close();
        }
    }

    private EchoDriver start(RedisStreamsConfig config) {
        bus = RedisStreamsBus.fromUri(redis.url, config);
        EchoDriver driver = new EchoDriver();
        driving = driver.attach(bus);
        return driver;
    }

    @Test
    void aFinishedTurnSentAgain_isNotRun_andItsEventsArePublishedAgainMarkedReplayed() {
        EchoDriver driver = start(redis.config().build());
        redis.addCall(EchoDriver.turn("s", "t1", "a"));
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 2);
        redis.addCall(EchoDriver.turn("s", "t1", "a")); // the client retried
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 4
                && redis.pending() == 0);
        List<String> events = redis.events(redis.prefix + "results:s");
        assertThat(driver.turns.get()).isEqualTo(1);
        assertThat(events.get(2)).isEqualTo("{\"replayed\":true," + events.get(0).substring(1));
        assertThat(events.get(3)).isEqualTo("{\"replayed\":true," + events.get(1).substring(1));
        assertThat(events.get(0)).doesNotContain("replayed");
    }

    @Test
    void aDuplicateThatRunsBeforeTheFirstFinished_writesNoSecondSetOfEvents() {
        // both entries are taken before either is finished: both run, only one set of events is written
        redis.addCall(EchoDriver.turn("s", "t2", "b"));
        redis.addCall(EchoDriver.turn("s", "t2", "b"));
        bus = RedisStreamsBus.fromUri(redis.url, redis.config().build());
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        driving = bus.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> got.size() == 2);
        EchoDriver driver = new EchoDriver();
        Flux.fromIterable(got).flatMap(m -> driver.handle(bus, m), 2).blockLast(Duration.ofSeconds(10));
        assertThat(driver.turns.get()).isEqualTo(2);
        assertThat(redis.pending()).isZero();
        assertThat(redis.events(redis.prefix + "results:s")).hasSize(2).noneMatch(e -> e.contains("replayed"));
    }

    @Test
    void eventsAboveMaxRecordedBytes_areNotKept_andTheRepeatIsSettledWithoutRunning() {
        EchoDriver driver = start(redis.config().maxRecordedBytes(0).build());
        redis.addCall(EchoDriver.turn("s", "t3", "c"));
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 2);
        redis.addCall(EchoDriver.turn("s", "t3", "c"));
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.pending() == 0 && redis.redis.xlen(redis.prefix + "calls") == 2);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                .until(() -> redis.events(redis.prefix + "results:s").size() == 2);
        assertThat(driver.turns.get()).isEqualTo(1);
    }

    @Test
    void afterTheBrokerLostItsScripts_turnsStillRunAndRepeatsAreStillReplayed() {
        ToolExecutor executor = ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).build();
        try {
            bus = RedisStreamsBus.fromUri(redis.url, redis.config().build());
            driving = executor.attach(bus);
            redis.addCall(EchoDriver.turn("s", "t1", "a"));
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 2);
            // as after a broker restart without persistence of scripts: every EVALSHA now fails with NOSCRIPT
            redis.redis.scriptFlush();
            redis.addCall(EchoDriver.turn("s", "t2", "b")); // admission, result write: loaded again with EVAL
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 4);
            redis.redis.scriptFlush();
            redis.addCall(EchoDriver.turn("s", "t1", "a")); // the finished-turn check and the replay too
            await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 6
                    && redis.pending() == 0);
            List<String> events = redis.events(redis.prefix + "results:s");
            assertThat(events.subList(2, 4)).allMatch(e -> e.contains("\"turn_id\":\"t2\"") && !e.contains("replayed"));
            assertThat(events.get(4)).isEqualTo("{\"replayed\":true," + events.get(0).substring(1));
            assertThat(events.get(5)).isEqualTo("{\"replayed\":true," + events.get(1).substring(1));
        } finally {
            if (driving != null) {
                driving.dispose();
                driving = null;
            }
            executor.close();
        }
    }

    @Test
    void aTurnFinishedByOneInstance_isReplayedByAnother_theRecordIsSharedInRedis() {
        EchoDriver first = start(redis.config().consumer("one").build());
        redis.addCall(EchoDriver.turn("s", "t5", "e"));
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 2
                && redis.pending() == 0);
        driving.dispose();
        bus.closeGracefully().block(Duration.ofSeconds(10));

        EchoDriver second = start(redis.config().consumer("two").build());
        redis.addCall(EchoDriver.turn("s", "t5", "e")); // the client retried; another instance takes it
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 4
                && redis.pending() == 0);
        List<String> events = redis.events(redis.prefix + "results:s");
        assertThat(first.turns.get()).isEqualTo(1);
        assertThat(second.turns.get()).isZero();
        assertThat(events.get(2)).isEqualTo("{\"replayed\":true," + events.get(0).substring(1));
        assertThat(events.get(3)).isEqualTo("{\"replayed\":true," + events.get(1).substring(1));
    }

    @Test
    void aRepeatAfterDoneMarkerTtl_runsAgain_theRecordIsBoundedInTime() {
        EchoDriver driver = start(redis.config().doneMarkerTtl(Duration.ofMillis(300)).build());
        redis.addCall(EchoDriver.turn("s", "t6", "f"));
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 2);
        assertThat(redis.redis.keys(redis.prefix + "done:*")).isNotEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis.keys(redis.prefix + "done:*").isEmpty()); // expired
        redis.addCall(EchoDriver.turn("s", "t6", "f"));
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.events(redis.prefix + "results:s").size() == 4
                && redis.pending() == 0);
        assertThat(driver.turns.get()).isEqualTo(2);
        assertThat(redis.events(redis.prefix + "results:s")).noneMatch(e -> e.contains("replayed"));
    }
}
