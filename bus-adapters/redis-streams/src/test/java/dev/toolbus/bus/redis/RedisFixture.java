package dev.toolbus.bus.redis;

import static org.awaitility.Awaitility.await;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.bus.tck.BrokerFixture;
import dev.toolbus.bus.tck.Brokers;
import dev.toolbus.bus.tck.BusOptions;
import dev.toolbus.bus.tck.DeadLetter;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The Redis the test command started (scripts/services/redis.sh) as the contract suites see it, and a
 * plain client to look at it. Every key of a test carries its own prefix; {@link #close()} deletes them.
 */
final class RedisFixture implements BrokerFixture {

    final String url;
    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;
    final RedisCommands<String, String> redis;
    /** A prefix that keeps this test's keys apart from every other test's. */
    final String prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final List<RedisStreamsBus> buses = new ArrayList<>();
    private final ConcurrentLinkedQueue<CompletableFuture<?>> sending = new ConcurrentLinkedQueue<>();

    private RedisFixture(String url) {
        this.url = url;
        this.client = RedisClient.create(url);
        this.connection = client.connect(StringCodec.UTF8);
        this.redis = connection.sync();
    }

    /** The Redis of the test command; fails the test when none was started (skips it with -Dtoolbus.brokers=off). */
    static RedisFixture require() {
        return new RedisFixture(Brokers.redisUrl());
    }

    /** Settings whose keys all carry this test's prefix. */
    RedisStreamsConfig.Builder config() {
        return configFor(prefix);
    }

    /** Settings whose keys all carry this prefix (also used by {@link RedisWorkerBus}). */
    static RedisStreamsConfig.Builder configFor(String prefix) {
        return RedisStreamsConfig.builder()
                .callsStream(prefix + "calls")
                .group("toolbus")
                .resultsKeyTemplate(prefix + "results:{stream_id}")
                .deadLetterStream(prefix + "dead")
                .doneMarkerPrefix(prefix + "done:")
                .blockTimeout(Duration.ofMillis(200))
                .shutdownTimeout(Duration.ofSeconds(2));
    }

    // ---- BrokerFixture ----

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String callsName() {
        return prefix + "calls";
    }

    @Override
    public ToolBus bus(BusOptions o) {
        RedisStreamsConfig.Builder c = config().consumer(o.name()).resultsMaxLen(0);
        if (o.instanceId() != null) {
            c.instanceId(o.instanceId()).controlChannel(prefix + "control");
        }
        if (o.maxEventBytes() > 0) {
            c.maxEventBytes(o.maxEventBytes());
        }
        if (o.maxDeliveries() > 0) {
            c.maxDeliveries(o.maxDeliveries());
        }
        if (o.maxRecordedBytes() >= 0) {
            c.maxRecordedBytes(o.maxRecordedBytes());
        }
        if (o.takeOverAfter() != null) {
            c.claimMinIdle(o.takeOverAfter()).claimInterval(Duration.ofMillis(500));
        }
        if (o.giveUpAtOnce()) {
            c.shutdownTimeout(Duration.ZERO);
        }
        String uri = o.proxy() != null ? "redis://127.0.0.1:" + o.proxy().port() : url;
        RedisStreamsBus bus = RedisStreamsBus.fromUri(uri, c.build());
        synchronized (buses) {
            buses.add(bus);
        }
        bus.start().block(Duration.ofSeconds(30));
        return bus;
    }

    @Override
    public void send(String streamId, String json) {
        addCall(json);
    }

    @Override
    public void sendAsync(String streamId, String json) {
        sending.add(connection.async().xadd(prefix + "calls", Map.of("event", json)).toCompletableFuture());
    }

    @Override
    public void flush() {
        CompletableFuture<?> f;
        while ((f = sending.poll()) != null) {
            f.join();
        }
    }

    /** Queued by Lettuce while it reconnects; refused (LOADING) while Redis reads its AOF back: tried again. */
    @Override
    public void sendDuringRestart(String streamId, String json) {
        await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
                .ignoreExceptionsInstanceOf(RedisException.class)
                .until(() -> {
                    addCall(json);
                    return true;
                });
    }

    @Override
    public void sendWithoutEvent(String streamId) {
        redis.xadd(prefix + "calls", Map.of("payload", "no event field"));
    }

    @Override
    public List<String> events(String streamId) {
        return eventsAt(prefix + "results:" + streamId);
    }

    /** XLEN of each results stream, pipelined. */
    @Override
    public long eventCount(Collection<String> streamIds) {
        List<CompletableFuture<Long>> lengths = new ArrayList<>();
        for (String s : streamIds) {
            lengths.add(connection.async().xlen(prefix + "results:" + s).toCompletableFuture());
        }
        return lengths.stream().mapToLong(CompletableFuture::join).sum();
    }

    @Override
    public Map<String, List<String>> events(Collection<String> streamIds) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (String s : streamIds) {
            List<String> events = events(s);
            if (!events.isEmpty()) {
                out.put(s, events);
            }
        }
        return out;
    }

    @Override
    public List<DeadLetter> deadLetters() {
        return entries(prefix + "dead").stream().map(e -> new DeadLetter(e.get("event"), e.get("reason"),
                e.get("source_stream") != null && e.get("source_id") != null ? e.get("source_stream") + "/" + e.get("source_id") : null,
                e.get("consumer"), e.get("deliveries"))).toList();
    }

    /** Nothing pending (every delivered entry acknowledged) and nothing undelivered (lag 0). */
    @Override
    public boolean settled() {
        try {
            return groupHealthy();
        } catch (RedisException e) {
            return false; // no group yet
        }
    }

    @Override
    public void awaitGroupHealthy(int members) {
        await().atMost(Duration.ofSeconds(60)).until(this::settled);
    }

    /** A consumer group has no membership to wait for: a new consumer reads at once. */
    @Override
    public void awaitMembers(int members) {
    }

    @Override
    public int inflight(ToolBus bus) {
        return ((RedisStreamsBus) bus).inflight();
    }

    @Override
    public Process restartBroker() throws Exception {
        return new ProcessBuilder("bash", Brokers.require("TOOLBUS_REDIS_RESTART")).inheritIO().start();
    }

    // ---- Redis-specific looks ----

    String addCall(String json) {
        return redis.xadd(prefix + "calls", Map.of("event", json));
    }

    List<Map<String, String>> entries(String key) {
        List<Map<String, String>> out = new ArrayList<>();
        for (StreamMessage<String, String> m : redis.xrange(key, Range.create("-", "+"))) {
            out.add(m.getBody());
        }
        return out;
    }

    /** The events of the stream at this full key. */
    List<String> eventsAt(String key) {
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

    /** The consumer group is healthy: nothing pending and nothing undelivered (lag 0). */
    boolean groupHealthy() {
        return pending() == 0 && groupLag() == 0;
    }

    @Override
    public void close() {
        List<RedisStreamsBus> open;
        synchronized (buses) {
            open = new ArrayList<>(buses);
        }
        for (RedisStreamsBus bus : open) {
            bus.closeGracefully().block(Duration.ofSeconds(30));
        }
        List<String> keys = redis.keys(prefix + "*");
        if (!keys.isEmpty()) {
            redis.del(keys.toArray(String[]::new));
        }
        connection.close();
        client.shutdown();
    }
}
