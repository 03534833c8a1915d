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
 * The result write's handling of the turn's running-turn claim, on the real Redis: a write that records
 * the turn deletes the claim whoever holds it (the record is read first by every admission and wait, so
 * the claim is never read again); a write Redis refuses leaves no record and releases the claim only
 * when this instance holds it, so a turn another instance took over stays claimed by it.
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
    void aWriteThatRecordsTheTurn_deletesItsClaim_evenOneAnotherInstanceTookOver() {
        String results = redis.prefix + "results:s";
        redis.redis.set(redis.prefix + "running:own", "a");
        redis.redis.set(redis.prefix + "running:other", "b");
        writer.write(results, redis.prefix + "done:own", redis.prefix + "running:own", events("{\"n\":1}"))
                .block(Duration.ofSeconds(10));
        writer.write(results, redis.prefix + "done:other", redis.prefix + "running:other", events("{\"n\":2}"))
                .block(Duration.ofSeconds(10));
        assertThat(redis.redis.exists(redis.prefix + "done:own", redis.prefix + "done:other")).isEqualTo(2);
        assertThat(redis.redis.exists(redis.prefix + "running:own", redis.prefix + "running:other")).isZero();
        assertThat(redis.events("s")).containsExactly("{\"n\":1}", "{\"n\":2}");
    }

    @Test
    void aWriteOfATurnAlreadyRecorded_writesNothing_andDeletesTheClaim() {
        String results = redis.prefix + "results:s";
        writer.write(results, redis.prefix + "done:t", null, events("{\"n\":1}")).block(Duration.ofSeconds(10));
        redis.redis.set(redis.prefix + "running:t", "b");
        writer.write(results, redis.prefix + "done:t", redis.prefix + "running:t", events("{\"n\":2}"))
                .block(Duration.ofSeconds(10));
        assertThat(redis.events("s")).containsExactly("{\"n\":1}");
        assertThat(redis.redis.exists(redis.prefix + "running:t")).isZero();
    }

    @Test
    void aWriteRedisRefuses_leavesNoRecord_andReleasesOnlyItsOwnClaim() {
        String results = redis.prefix + "results:w";
        redis.redis.set(results, "not a stream");
        redis.redis.set(redis.prefix + "running:own", "a");
        redis.redis.set(redis.prefix + "running:other", "b");
        assertThatThrownBy(() -> writer.write(results, redis.prefix + "done:own", redis.prefix + "running:own",
                events("{\"n\":1}")).block(Duration.ofSeconds(10))).hasMessageContaining("WRONGTYPE");
        assertThatThrownBy(() -> writer.write(results, redis.prefix + "done:other", redis.prefix + "running:other",
                events("{\"n\":2}")).block(Duration.ofSeconds(10))).hasMessageContaining("WRONGTYPE");
        assertThat(redis.redis.exists(redis.prefix + "done:own", redis.prefix + "done:other")).isZero();
        assertThat(redis.redis.exists(redis.prefix + "running:own")).isZero();
        assertThat(redis.redis.get(redis.prefix + "running:other")).isEqualTo("b");
    }
}
