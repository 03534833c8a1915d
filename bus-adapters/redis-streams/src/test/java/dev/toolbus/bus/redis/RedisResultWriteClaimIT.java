package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The result write's handling of the turn's key, on the real Redis: a write that records the turn writes
 * the record over the running-turn claim the key held, whoever held it; a turn recorded before keeps its
 * record and is not written again; a write Redis refuses leaves no record, deletes the claim only when
 * this instance held it, and puts back another instance's claim, so a turn that instance took over stays
 * claimed by it.
 */
class RedisResultWriteClaimIT {

    private RedisFixture redis;
    private StatefulRedisConnection<String, byte[]> connection;
    private ResultWriter writer;

    @BeforeEach
    void setUp() {
        redis = RedisFixture.require();
        connection = redis.client.connect(RedisStreamsBus.CODEC);
        writer = new ResultWriter(connection.async(), redis.config().consumer("a").build());
    }

    @AfterEach
    void tearDown() {
        if (connection != null) {
            connection.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static List<byte[]> events(String... json) {
        return java.util.Arrays.stream(json).map(s -> s.getBytes(StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aWriteThatRecordsTheTurn_writesTheRecordOverItsClaim_evenOneAnotherInstanceTookOver() {
        String results = redis.prefix + "results:s";
        redis.redis.set(redis.prefix + "done:own", "c:a");
        redis.redis.set(redis.prefix + "done:other", "c:b");
        writer.write(results, redis.prefix + "done:own", events("{\"n\":1}")).block(Duration.ofSeconds(10));
        writer.write(results, redis.prefix + "done:other", events("{\"n\":2}")).block(Duration.ofSeconds(10));
        assertThat(redis.redis.get(redis.prefix + "done:own")).isEqualTo("e:{\"n\":1}");
        assertThat(redis.redis.get(redis.prefix + "done:other")).isEqualTo("e:{\"n\":2}");
        assertThat(redis.redis.pttl(redis.prefix + "done:own")).isPositive(); // the record's TTL, not none
        assertThat(redis.events("s")).containsExactly("{\"n\":1}", "{\"n\":2}");
    }

    @Test
    void aWriteOfATurnAlreadyRecorded_writesNothing_andKeepsTheRecord() {
        String results = redis.prefix + "results:s";
        writer.write(results, redis.prefix + "done:t", events("{\"n\":1}")).block(Duration.ofSeconds(10));
        writer.write(results, redis.prefix + "done:t", events("{\"n\":2}")).block(Duration.ofSeconds(10));
        assertThat(redis.events("s")).containsExactly("{\"n\":1}");
        assertThat(redis.redis.get(redis.prefix + "done:t")).isEqualTo("e:{\"n\":1}");
        assertThat(redis.redis.pttl(redis.prefix + "done:t")).isPositive();
    }

    @Test
    void aWriteRedisRefuses_leavesNoRecord_releasesItsOwnClaim_andPutsBackAnotherInstancesClaim() {
        String results = redis.prefix + "results:w";
        redis.redis.set(results, "not a stream");
        redis.redis.set(redis.prefix + "done:own", "c:a");
        redis.redis.set(redis.prefix + "done:other", "c:b");
        assertThatThrownBy(() -> writer.write(results, redis.prefix + "done:own", events("{\"n\":1}"))
                .block(Duration.ofSeconds(10))).hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> writer.write(results, redis.prefix + "done:other", events("{\"n\":2}"))
                .block(Duration.ofSeconds(10))).hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> writer.write(results, redis.prefix + "done:none", events("{\"n\":3}"))
                .block(Duration.ofSeconds(10))).hasMessageContaining("WRONGTYPE");
        assertThat(redis.redis.exists(redis.prefix + "done:own", redis.prefix + "done:none")).isZero();
        assertThat(redis.redis.get(redis.prefix + "done:other")).isEqualTo("c:b");
        assertThat(redis.redis.pttl(redis.prefix + "done:other")).isPositive(); // a claim's TTL again
    }
}
