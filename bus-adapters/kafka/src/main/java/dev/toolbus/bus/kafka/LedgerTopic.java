package dev.toolbus.bus.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exactly-once bus's own ledger of idempotent turns (the bus answers {@code TurnLedger.none()} to
 * the executor and deduplicates here): finished turns of this instance's partitions, key {@code stream_id NUL turn_id},
 * value the turn's events (one JSON per line, up to {@code maxRecordedBytes}; empty when larger).
 * Written to the ledger topic in the transaction of the turn's events, on the partition number of
 * the turn's calls record, so a partition's next owner restores what it needs by reading the same
 * partition number of the ledger (compacted, and deleted after the window). In memory: entries
 * within the window, at most {@link KafkaBusConfig#turnLedgerMaxBytes()} bytes, oldest evicted
 * first. Poll thread only.
 */
final class LedgerTopic {

    private static final Logger log = LoggerFactory.getLogger(LedgerTopic.class);

    private final KafkaBusConfig config;
    private final Clock clock;
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(256, 0.75f, false);
    private long bytes;
    private volatile boolean disabled;

    /** The key of a turn, in the ledger and in the bus's registry of running turns. */
    static String turnKey(String streamId, String turnId) {
        return streamId + '\u0000' + turnId;
    }

    LedgerTopic(KafkaBusConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
    }

    boolean enabled() {
        return !disabled && !config.turnLedgerWindow().isZero();
    }

    /** Turns the ledger off (its topic does not fit the calls topic). */
    void disable() {
        disabled = true;
    }

    /** The recorded events of a finished turn within the window, or null. */
    List<byte[]> find(String key) {
        if (disabled) {
            return null;
        }
        expire();
        Entry e = entries.get(key);
        // expire() stops at the first young entry; one restored later with an older timestamp sits behind it
        return e == null || e.atMs < clock.millis() - config.turnLedgerWindow().toMillis() ? null : e.events();
    }

    /** The ledger record of a finished turn (its events from the results records, when small enough). */
    ProducerRecord<String, byte[]> record(int partition, String key, List<ProducerRecord<String, byte[]>> results) {
        long size = 0;
        for (ProducerRecord<String, byte[]> r : results) {
            if (r.topic().equals(config.resultsTopic()) && r.value() != null) {
                size += r.value().length + 1;
            }
        }
        // the events' bytes as they were encoded for the results topic, one per line (JSON holds no raw newline)
        byte[] value = new byte[size <= config.maxRecordedBytes() ? (int) size : 0];
        if (value.length > 0) {
            int at = 0;
            for (ProducerRecord<String, byte[]> r : results) {
                if (r.topic().equals(config.resultsTopic()) && r.value() != null) {
                    System.arraycopy(r.value(), 0, value, at, r.value().length);
                    at += r.value().length;
                    value[at++] = '\n';
                }
            }
        }
        return new ProducerRecord<>(config.turnLedgerTopic(), partition, key, value);
    }

    /** A turn finished here (its ledger record is committed). */
    void put(String key, byte[] value, long atMs) {
        Entry old = entries.remove(key);
        if (old != null) {
            bytes -= old.bytes;
        }
        Entry e = new Entry(value, atMs, value.length + key.length() * 2L + 64);
        entries.put(key, e);
        bytes += e.bytes;
        while (bytes > config.turnLedgerMaxBytes() && !entries.isEmpty()) {
            Iterator<Entry> it = entries.values().iterator();
            bytes -= it.next().bytes;
            it.remove();
        }
    }

    /** Reads these partitions of the ledger topic from their start (turns finished by earlier owners). */
    void restore(Collection<TopicPartition> callsPartitions) {
        if (!enabled() || callsPartitions.isEmpty()) {
            return;
        }
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.clientId() + "-ledger");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Set<TopicPartition> parts = new HashSet<>();
        for (TopicPartition tp : callsPartitions) {
            parts.add(new TopicPartition(config.turnLedgerTopic(), tp.partition()));
        }
        long minMs = clock.millis() - config.turnLedgerWindow().toMillis();
        int restored = 0;
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts, Duration.ofSeconds(10));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline && parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
                    if (r.key() != null && r.value() != null && r.timestamp() >= minMs) {
                        put(r.key(), r.value(), r.timestamp());
                        restored++;
                    }
                }
            }
        } catch (RuntimeException e) {
            log.warn("kafka bus {}: turn ledger of {} not restored (repeated turns there run again): {}",
                    config.clientId(), callsPartitions, e.toString());
            return;
        }
        if (restored > 0) {
            log.info("kafka bus {}: restored {} finished turns of {}", config.clientId(), restored, callsPartitions);
        }
    }

    private void expire() {
        long minMs = clock.millis() - config.turnLedgerWindow().toMillis();
        Iterator<Entry> it = entries.values().iterator();
        while (it.hasNext()) {
            Entry e = it.next();
            if (e.atMs >= minMs) {
                break; // insertion order is time order
            }
            bytes -= e.bytes;
            it.remove();
        }
    }

    /** A turn's events with {@code "replayed":true} as their first field, as records of the results topic. */
    List<ProducerRecord<String, byte[]>> replay(String streamId, List<byte[]> events) {
        List<ProducerRecord<String, byte[]>> out = new ArrayList<>(events.size());
        byte[] mark = "{\"replayed\":true,".getBytes(StandardCharsets.UTF_8);
        for (byte[] e : events) {
            if (e.length < 2 || e[0] != '{') {
                continue;
            }
            byte[] v = new byte[mark.length + e.length - 1];
            System.arraycopy(mark, 0, v, 0, mark.length);
            System.arraycopy(e, 1, v, mark.length, e.length - 1);
            out.add(new ProducerRecord<>(config.resultsTopic(), streamId, v));
        }
        return out;
    }

    /** A finished turn: its record's value, split into events only when a repeat asks for them. */
    private record Entry(byte[] value, long atMs, long bytes) {
        List<byte[]> events() {
            List<byte[]> events = new ArrayList<>();
            int from = 0;
            for (int i = 0; i <= value.length; i++) {
                if (i == value.length || value[i] == '\n') {
                    if (i > from) {
                        events.add(Arrays.copyOfRange(value, from, i));
                    }
                    from = i + 1;
                }
            }
            return events;
        }
    }
}
