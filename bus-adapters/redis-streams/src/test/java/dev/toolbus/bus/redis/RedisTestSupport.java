package dev.toolbus.bus.redis;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The Redis the test harness started (scripts/services/redis.sh), and a plain client to look at it. */
final class RedisTestSupport implements AutoCloseable {

    static final String URL_ENV = "TOOLBUS_REDIS_URL";

    final String url;
    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;
    final RedisCommands<String, String> redis;
    /** A prefix that keeps this test's keys apart from every other test's. */
    final String prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + ":";

    private RedisTestSupport(String url) {
        this.url = url;
        this.client = RedisClient.create(url);
        this.connection = client.connect(StringCodec.UTF8);
        this.redis = connection.sync();
    }

    /** Skips the test when no Redis was started for it. */
    static RedisTestSupport require() {
        String url = System.getenv(URL_ENV);
        assumeTrue(url != null && !url.isBlank(), URL_ENV + " is not set, so this Redis test is skipped. "
                + "Run scripts/test.sh, or `source scripts/lib/services.sh && start_services` before mvn.");
        return new RedisTestSupport(url);
    }

    /** Settings whose keys all carry this test's prefix. */
    RedisStreamsConfig.Builder config() {
        return configFor(prefix);
    }

    /** Settings whose keys all carry this prefix (also used by {@link RedisWorkerMain}). */
    static RedisStreamsConfig.Builder configFor(String prefix) {
        return RedisStreamsConfig.builder()
                .callsStream(prefix + "calls")
                .group("toolbus")
                .resultsKeyTemplate(prefix + "results:{stream_id}")
                .deadLetterStream(prefix + "dead")
                .doneMarkerPrefix(prefix + "done:")
                .blockTimeout(java.time.Duration.ofMillis(200))
                .shutdownTimeout(java.time.Duration.ofSeconds(2));
    }

    String addCall(String json) {
        return redis.xadd(prefix + "calls", Map.of("event", json));
    }

    List<Map<String, String>> entries(String key) {
        List<Map<String, String>> out = new ArrayList<>();
        for (StreamMessage<String, String> m : redis.xrange(key, io.lettuce.core.Range.create("-", "+"))) {
            out.add(m.getBody());
        }
        return out;
    }

    List<String> events(String key) {
        return entries(key).stream().map(e -> e.get("event")).toList();
    }

    long pending() {
        return redis.xpending(prefix + "calls", "toolbus").getCount();
    }

    /** The group's lag (entries of the calls stream not yet delivered to it; Redis 7+), -1 if unknown. */
    long groupLag() {
        for (Object g : redis.xinfoGroups(prefix + "calls")) {
            List<?> fields = (List<?>) g;
            if ("toolbus".equals(String.valueOf(fields.get(fields.indexOf("name") + 1)))) {
                int at = fields.indexOf("lag");
                return at < 0 || !(fields.get(at + 1) instanceof Number n) ? -1 : n.longValue();
            }
        }
        return -1;
    }

    /**
     * The consumer group is healthy: nothing pending (every delivered entry acknowledged) and nothing
     * undelivered (lag 0).
     */
    boolean groupHealthy() {
        return pending() == 0 && groupLag() == 0;
    }

    @SuppressWarnings("unused")
    private static XReadArgs.StreamOffset<String> from(String key) {
        return XReadArgs.StreamOffset.from(key, "0");
    }

    @Override
    public void close() {
        List<String> keys = redis.keys(prefix + "*");
        if (!keys.isEmpty()) {
            redis.del(keys.toArray(String[]::new));
        }
        connection.close();
        client.shutdown();
    }
}
