package dev.toolbus.benchmarks.load;

import io.lettuce.core.RedisClient;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Redis side of the harness. Turns go to {@code toolbus:calls} (field {@code event}) with XADD on one
 * pipelined connection. Results are read from the per-conversation streams
 * {@code toolbus:results:{stream_id}} by a few reader threads, each owning a slice of the streams and
 * looping on one blocking {@code XREAD COUNT .. BLOCK .. STREAMS k1..kn} for its whole slice, so reading
 * costs one round trip per batch, not per stream.
 */
final class RedisBroker implements Broker {

    static final String CALLS = "toolbus:calls";
    static final String RESULTS_PREFIX = "toolbus:results:";
    static final RedisCodec<String, byte[]> CODEC = RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE);
    private static final int STREAMS_PER_READER = 100;

    private final String uri;
    private final int streams;
    private final RedisClient client;
    private final StatefulRedisConnection<String, byte[]> publishConnection;
    private final RedisAsyncCommands<String, byte[]> publishing;
    private final StatefulRedisConnection<String, String> adminConnection;
    private final RedisCommands<String, String> admin;
    private final List<Thread> readers = new ArrayList<>();
    private final List<StatefulRedisConnection<String, byte[]>> readConnections = new ArrayList<>();
    private volatile ClosedLoop loop;
    private volatile boolean reading;

    RedisBroker(String uri, int streams) {
        this.uri = uri;
        this.streams = streams;
        this.client = RedisClient.create(uri);
        this.publishConnection = client.connect(CODEC);
        this.publishing = publishConnection.async();
        this.adminConnection = client.connect(StringCodec.UTF8);
        this.admin = adminConnection.sync();
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String busUri() {
        return uri;
    }

    @Override
    public Map<String, Long> commandCounts() {
        Map<String, Long> counts = new java.util.TreeMap<>();
        // cmdstat_xadd:calls=12,usec=...
        for (String line : admin.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                int colon = line.indexOf(':');
                int comma = line.indexOf(',', colon);
                counts.put(line.substring(8, colon), Long.parseLong(line.substring(colon + 7, comma)));
            }
        }
        return counts;
    }

    @Override
    public String prepare(String scenario) {
        admin.flushall(); // the broker is the harness's own: every scenario starts from nothing
        reading = true;
        for (int from = 0; from < streams; from += STREAMS_PER_READER) {
            int first = from;
            int to = Math.min(streams, from + STREAMS_PER_READER);
            StatefulRedisConnection<String, byte[]> c = client.connect(CODEC);
            readConnections.add(c);
            Thread t = new Thread(() -> readLoop(c.sync(), first, to), "load-redis-reader-" + from);
            t.setDaemon(true);
            readers.add(t);
            t.start();
        }
        return "toolbus";
    }

    private void readLoop(RedisCommands<String, byte[]> redis, int from, int to) {
        int n = to - from;
        String[] keys = new String[n];
        String[] last = new String[n];
        for (int i = 0; i < n; i++) {
            keys[i] = RESULTS_PREFIX + EchoEvents.streamId(from + i);
            last[i] = "0-0";
        }
        XReadArgs args = XReadArgs.Builder.count(1000).block(Duration.ofMillis(200));
        while (reading) {
            @SuppressWarnings("unchecked")
            XReadArgs.StreamOffset<String>[] offsets = new XReadArgs.StreamOffset[n];
            for (int i = 0; i < n; i++) {
                offsets[i] = XReadArgs.StreamOffset.from(keys[i], last[i]);
            }
            List<StreamMessage<String, byte[]>> got;
            try {
                got = redis.xread(args, offsets);
            } catch (RuntimeException e) {
                if (reading) {
                    System.err.println("redis reader: " + e);
                }
                continue;
            }
            ClosedLoop l = loop;
            for (StreamMessage<String, byte[]> m : got) {
                int i = Integer.parseInt(m.getStream(), RESULTS_PREFIX.length() + "load:s".length(),
                        m.getStream().length(), 10) - from;
                last[i] = m.getId();
                byte[] event = m.getBody().get("event");
                if (l != null && event != null) {
                    l.onEvent(EchoEvents.parse(event));
                }
            }
        }
    }

    @Override
    public void follow(ClosedLoop loop) {
        this.loop = loop;
    }

    @Override
    public void publish(String streamId, byte[] event) {
        publishing.xadd(CALLS, Map.of("event", event));
    }

    @Override
    public void awaitConsumers(String group, int instances, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (admin.xinfoConsumers(CALLS, group).size() >= instances) {
                    return;
                }
            } catch (RuntimeException noGroupYet) {
                // the first worker creates the group
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(instances + " consumers did not join group " + group + " within " + timeout);
    }

    @Override
    public List<String> rawWorker(String group, String instance) {
        return List.of(RawRedisWorker.class.getName(), uri, group, instance);
    }

    @Override
    public void finish() throws InterruptedException {
        reading = false;
        for (Thread t : readers) {
            t.join(5_000);
        }
        readers.clear();
        readConnections.forEach(StatefulRedisConnection::close);
        readConnections.clear();
        loop = null;
    }

    @Override
    public void close() throws Exception {
        finish();
        publishConnection.close();
        adminConnection.close();
        client.shutdown();
    }
}
