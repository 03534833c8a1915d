package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.tck.AbstractBusIdempotentTurnTests;
import dev.toolbus.bus.tck.BrokerFixture;
import dev.toolbus.bus.tck.EchoDriver;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Idempotent turns on Redis: the finished-turn records live in Redis, so every instance sees them; a
 * duplicate of a running turn is handed over, and its result write finds the turn recorded. Also:
 * the records outlive lost scripts and expire after {@code doneMarkerTtl}.
 */
class RedisIdempotentTurnIT extends AbstractBusIdempotentTurnTests {

    private RedisFixture redis;

    @Override
    protected BrokerFixture openBroker() {
        return redis = RedisFixture.require();
    }

    @Override
    protected boolean busJoinsARunningDuplicate() {
        return false;
    }

    private List<String> events() {
        return redis.events("s");
    }

    @Test
    void afterTheBrokerLostItsScripts_turnsStillRunAndRepeatsAreStillReplayed() {
        ToolExecutor executor = closeLater(ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).build());
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, redis.config().build());
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(10)));
        closeLater(executor.attach(bus)::dispose);
        redis.addCall(EchoDriver.turn("s", "t1", "a"));
        await().atMost(Duration.ofSeconds(10)).until(() -> events().size() == 2);
        // as after a broker restart without persistence of scripts: every EVALSHA now fails with NOSCRIPT
        redis.redis.scriptFlush();
        redis.addCall(EchoDriver.turn("s", "t2", "b")); // admission, result write: loaded again with EVAL
        await().atMost(Duration.ofSeconds(10)).until(() -> events().size() == 4);
        redis.redis.scriptFlush();
        redis.addCall(EchoDriver.turn("s", "t1", "a")); // the finished-turn check and the replay too
        await().atMost(Duration.ofSeconds(10)).until(() -> events().size() == 6 && redis.pending() == 0);
        List<String> events = events();
        assertThat(events.subList(2, 4)).allMatch(e -> e.contains("\"turn_id\":\"t2\"") && !e.contains("replayed"));
        assertThat(events.get(4)).isEqualTo("{\"replayed\":true," + events.get(0).substring(1));
        assertThat(events.get(5)).isEqualTo("{\"replayed\":true," + events.get(1).substring(1));
    }

    @Test
    void aRepeatAfterDoneMarkerTtl_runsAgain_theRecordIsBoundedInTime() {
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, redis.config().doneMarkerTtl(Duration.ofMillis(300)).build());
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(10)));
        EchoDriver driver = attach(bus);
        redis.addCall(EchoDriver.turn("s", "t6", "f"));
        await().atMost(Duration.ofSeconds(10)).until(() -> events().size() == 2);
        assertThat(redis.redis.keys(redis.prefix + "done:*")).isNotEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.redis.keys(redis.prefix + "done:*").isEmpty()); // expired
        redis.addCall(EchoDriver.turn("s", "t6", "f"));
        await().atMost(Duration.ofSeconds(10)).until(() -> events().size() == 4 && redis.pending() == 0);
        assertThat(driver.turns.get()).isEqualTo(2);
        assertThat(events()).noneMatch(e -> e.contains("replayed"));
    }

    /**
     * A result write Redis refuses (the conversation's results key holds a string) takes its finished-turn
     * record back: the record is set before the events are appended, and a turn recorded without its
     * events would be settled on its redelivery without ever being answered. The entry stays pending;
     * once the key is mended, the redelivered turn runs and is written once, with its record.
     */
    @Test
    void aResultWriteRedisRefuses_leavesNoRecord_soTheRedeliveredTurnIsWritten() {
        ToolExecutor executor = closeLater(ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).build());
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, redis.config()
                .claimMinIdle(Duration.ofMillis(500)).claimInterval(Duration.ofMillis(200)).build());
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(10)));
        String results = redis.prefix + "results:w";
        redis.redis.set(results, "not a stream");
        long refusedBefore = wrongTypeErrors();
        closeLater(executor.attach(bus)::dispose);
        redis.addCall(EchoDriver.turn("w", "t1", "a"));
        redis.addCall(EchoDriver.turn("s", "t2", "b"));
        await().atMost(Duration.ofSeconds(10)).until(() -> wrongTypeErrors() > refusedBefore && events().size() == 2);
        assertThat(records()).hasSize(1); // t2's only
        redis.redis.del(results);
        await().atMost(Duration.ofSeconds(20)).until(() -> redis.events("w").size() == 2 && redis.pending() == 0);
        assertThat(redis.events("w")).allMatch(e -> e.contains("\"turn_id\":\"t1\"") && !e.contains("replayed"));
        assertThat(records()).hasSize(2);
    }

    /** The turn keys that hold a finished-turn record (not a running turn's claim, {@code c:...}). */
    private List<String> records() {
        return redis.redis.keys(redis.prefix + "done:*").stream()
                .filter(k -> {
                    String v = redis.redis.get(k);
                    return v != null && !v.startsWith("c:");
                })
                .toList();
    }

    private long wrongTypeErrors() {
        for (String line : redis.redis.info("errorstats").split("\r?\n")) {
            if (line.startsWith("errorstat_WRONGTYPE:count=")) {
                return Long.parseLong(line.substring("errorstat_WRONGTYPE:count=".length()).trim());
            }
        }
        return 0;
    }
}
