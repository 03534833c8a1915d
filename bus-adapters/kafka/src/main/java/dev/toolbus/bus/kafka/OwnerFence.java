package dev.toolbus.bus.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Fences a stalled owner. On assignment an owner writes a marker (key {@code o:}, its token) to each of
 * its state partitions before it restores them; from there this thread reads those partitions on
 * ({@code read_uncommitted}: markers and started records are not transactional). A write of this
 * instance counts as made while it owned the partition only once this reader passed its offset without
 * meeting another owner's marker first ({@link #passed}): the new owner restored everything before its
 * marker, so a started call it does not know cannot be this one's. A marker of another owner means the
 * partition moved while this instance did not notice (it was stalled, or cut off): the partition is
 * dropped here and its turns are told ({@code onFenced}), so this instance neither starts nor publishes
 * their calls. The same thread runs the state's sweep about once a second.
 */
final class OwnerFence implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OwnerFence.class);

    /** Thrown to a writer whose partition has another owner now. */
    static final class FencedException extends IllegalStateException {
        FencedException(String message) {
            super(message);
        }
    }

    private static final class Watch {
        final String token;
        final long marker;
        long position;
        boolean seeked;
        final TreeMap<Long, List<MonoSink<Void>>> waiters = new TreeMap<>();

        Watch(String token, long marker) {
            this.token = token;
            this.marker = marker;
            this.position = marker + 1;
        }
    }

    private final KafkaBusConfig config;
    private final String topic;
    private final StateCodec codec;
    private final IntConsumer onFenced;
    private final Runnable sweep;
    private final Map<Integer, Watch> watches = new HashMap<>();
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile KafkaConsumer<String, byte[]> consumer;
    private volatile boolean closed;

    /**
     * @param onFenced told (on this thread) of a partition another owner took
     * @param sweep run about once a second on this thread
     */
    OwnerFence(KafkaBusConfig config, String topic, StateCodec codec, IntConsumer onFenced, Runnable sweep) {
        this.config = config;
        this.topic = topic;
        this.codec = codec;
        this.onFenced = onFenced;
        this.sweep = sweep;
        this.thread = new Thread(this::run, "toolbus-kafka-state-" + config.clientId());
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Starts reading a partition after this owner's marker. */
    void watch(int partition, String token, long markerOffset) {
        synchronized (this) {
            Watch old = watches.put(partition, new Watch(token, markerOffset));
            if (old != null) {
                fail(old, "the partition was assigned again");
            }
        }
        command(this::reassign);
    }

    /** Stops reading partitions (revoked or lost); their writers waiting here fail. */
    void unwatch(Collection<Integer> partitions) {
        synchronized (this) {
            for (Integer p : partitions) {
                Watch w = watches.remove(p);
                if (w != null) {
                    fail(w, "partition " + p + " of " + topic + " moved to another instance");
                }
            }
        }
        command(this::reassign);
    }

    /**
     * Completes once this reader passed {@code offset} of the partition with no other owner's marker
     * before it; fails with {@link FencedException} when it met one, or when the partition is not watched.
     */
    Mono<Void> passed(int partition, long offset) {
        return Mono.create(sink -> {
            synchronized (this) {
                Watch w = watches.get(partition);
                if (w == null) {
                    sink.error(new FencedException("partition " + partition + " of " + topic
                            + " is not owned by this instance (any more)"));
                } else if (w.position > offset) {
                    sink.success();
                } else {
                    w.waiters.computeIfAbsent(offset, o -> new ArrayList<>(1)).add(sink);
                }
            }
        });
    }

    private void command(Runnable r) {
        commands.add(r);
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        LockSupport.unpark(thread);
    }

    private void run() {
        long nextSweep = System.nanoTime() + 1_000_000_000L;
        long backoff = 100;
        try {
            consumer = new KafkaConsumer<>(properties(), new StringDeserializer(), new ByteArrayDeserializer());
            while (!closed) {
                try {
                    Runnable r;
                    while ((r = commands.poll()) != null) {
                        r.run();
                    }
                    if (consumer.assignment().isEmpty()) {
                        LockSupport.parkNanos(100_000_000L);
                    } else {
                        read(consumer.poll(Duration.ofMillis(100)));
                    }
                    if (System.nanoTime() - nextSweep >= 0) {
                        nextSweep = System.nanoTime() + 1_000_000_000L;
                        sweep.run();
                    }
                    backoff = 100;
                } catch (WakeupException e) {
                    // a command arrived
                } catch (KafkaException e) {
                    log.warn("turn state {}: reading the owners of its partitions failed, retrying in {} ms: {}", topic,
                            backoff, e.toString());
                    PollLoop.sleep(backoff);
                    backoff = Math.min(5_000, backoff * 2);
                } catch (RuntimeException e) {
                    log.error("turn state {}: fence thread error", topic, e);
                    PollLoop.sleep(backoff);
                    backoff = Math.min(5_000, backoff * 2);
                }
            }
        } finally {
            synchronized (this) {
                watches.values().forEach(w -> fail(w, "the turn state is closed"));
                watches.clear();
            }
            KafkaConsumer<String, byte[]> c = consumer;
            if (c != null) {
                try {
                    c.close(CloseOptions.timeout(Duration.ofSeconds(5)));
                } catch (RuntimeException ignored) {
                    // closing
                }
            }
        }
    }

    /** Assigns the watched partitions, new ones from after their marker (fence thread). */
    private void reassign() {
        Map<TopicPartition, Watch> wanted = new HashMap<>();
        synchronized (this) {
            watches.forEach((p, w) -> wanted.put(new TopicPartition(topic, p), w));
            consumer.assign(wanted.keySet());
            wanted.forEach((tp, w) -> {
                if (!w.seeked) {
                    consumer.seek(tp, w.position);
                    w.seeked = true;
                }
            });
        }
    }

    private void read(Iterable<ConsumerRecord<String, byte[]>> records) {
        List<Integer> fenced = new ArrayList<>(1);
        synchronized (this) {
            for (ConsumerRecord<String, byte[]> r : records) {
                Watch w = watches.get(r.partition());
                if (w == null || r.offset() < w.position || !StateKeys.OWNER.equals(r.key()) || r.value() == null) {
                    continue;
                }
                String token;
                try {
                    token = codec.read(r.value()).path("o").asText();
                } catch (RuntimeException e) {
                    continue;
                }
                if (!token.equals(w.token)) {
                    release(w, r.offset() - 1);
                    watches.remove(r.partition());
                    fail(w, "partition " + r.partition() + " of " + topic + " has another owner since offset "
                            + r.offset() + " (this instance was stalled or cut off while it moved)");
                    fenced.add(r.partition());
                }
            }
            for (Map.Entry<Integer, Watch> e : watches.entrySet()) {
                TopicPartition tp = new TopicPartition(topic, e.getKey());
                if (e.getValue().seeked && consumer.assignment().contains(tp)) {
                    e.getValue().position = Math.max(e.getValue().position, consumer.position(tp));
                    release(e.getValue(), e.getValue().position - 1);
                }
            }
        }
        for (int p : fenced) {
            log.warn("turn state {}: partition {} has another owner; it is dropped here, and its turns on this instance "
                    + "neither start nor publish their calls", topic, p);
            onFenced.accept(p);
        }
        if (!fenced.isEmpty()) {
            reassign();
        }
    }

    /** Completes the waiters up to {@code through}. */
    private static void release(Watch w, long through) {
        while (!w.waiters.isEmpty() && w.waiters.firstKey() <= through) {
            w.waiters.pollFirstEntry().getValue().forEach(MonoSink::success);
        }
    }

    private static void fail(Watch w, String why) {
        w.waiters.values().forEach(l -> l.forEach(s -> s.error(new FencedException(why))));
        w.waiters.clear();
    }

    private Properties properties() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.clientId() + "-state-fence");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        config.consumerProperties().forEach((k, v) -> {
            if (!k.equals(ConsumerConfig.GROUP_ID_CONFIG) && !k.equals(ConsumerConfig.ISOLATION_LEVEL_CONFIG)
                    && !k.equals(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)) {
                p.put(k, v);
            }
        });
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        return p;
    }

    @Override
    public void close() {
        closed = true;
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        LockSupport.unpark(thread);
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
