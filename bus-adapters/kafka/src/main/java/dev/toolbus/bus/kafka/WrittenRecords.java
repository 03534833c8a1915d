package dev.toolbus.bus.kafka;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Exactly once: the records of the bus's transactions that committed lately, with where the broker
 * wrote them, so that the ones a lost transaction marker left in a hanging transaction can be written
 * again ({@link TransactionalSettlement}). A broker that loses the marker of a committed transaction
 * on one partition keeps that transaction open there, and every later write of the same producer to
 * the partition joins it; the group coordinator has committed the input offsets meanwhile, so an
 * abort alone would lose those turns' events. Kept only while the sweep for hanging transactions is on.
 * Bounded by {@link #MAX_BYTES} and {@link #MAX_AGE_NANOS} (the oldest go first). Poll thread only.
 */
final class WrittenRecords {

    /** Bytes of records kept at most. */
    static final long MAX_BYTES = 16L << 20;
    /** How long a committed transaction's records are kept at most. */
    static final long MAX_AGE_NANOS = 180L * 1_000_000_000L;

    private final long maxBytes;
    private final long maxAgeNanos;
    private final ArrayDeque<Written> kept = new ArrayDeque<>();
    private long bytes;

    WrittenRecords() {
        this(MAX_BYTES, MAX_AGE_NANOS);
    }

    WrittenRecords(long maxBytes, long maxAgeNanos) {
        this.maxBytes = maxBytes;
        this.maxAgeNanos = maxAgeNanos;
    }

    /**
     * One committed transaction's records and the futures {@code send} returned for them (complete once
     * the commit returned), at {@code nowNanos}.
     */
    void committed(List<ProducerRecord<String, byte[]>> records, List<Future<RecordMetadata>> sent, long recordBytes,
                   long nowNanos) {
        if (records.isEmpty()) {
            return;
        }
        kept.addLast(new Written(records, sent, recordBytes, nowNanos));
        bytes += recordBytes;
        trim(nowNanos);
    }

    private void trim(long nowNanos) {
        Written w;
        while ((w = kept.peekFirst()) != null && (bytes > maxBytes || nowNanos - w.atNanos() > maxAgeNanos)) {
            kept.removeFirst();
            bytes -= w.bytes();
        }
    }

    /**
     * Whether an open transaction on {@code partition} from {@code firstOffset} hangs by what this
     * instance wrote: a transaction it committed at or before {@code committedBefore} wrote there at or
     * after that offset, so that transaction's marker should have ended it long ago.
     */
    boolean hangs(TopicPartition partition, long firstOffset, long committedBefore) {
        for (Written w : kept) {
            if (w.atNanos() > committedBefore) {
                return false;
            }
            for (int i = 0; i < w.records().size(); i++) {
                RecordMetadata m = metadata(w.sent().get(i));
                if (m != null && m.partition() == partition.partition() && m.topic().equals(partition.topic())
                        && m.offset() >= firstOffset) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Takes the kept records written to {@code partition} at or after {@code firstOffset}, in offset
     * order; they are forgotten here (written again, they are kept again).
     */
    Span take(TopicPartition partition, long firstOffset) {
        List<Located> found = new ArrayList<>();
        long oldest = Long.MAX_VALUE;
        for (Iterator<Written> it = kept.iterator(); it.hasNext(); ) {
            Written w = it.next();
            for (int i = 0; i < w.records().size(); i++) {
                ProducerRecord<String, byte[]> r = w.records().get(i);
                RecordMetadata m = metadata(w.sent().get(i));
                if (m == null || m.partition() != partition.partition() || !m.topic().equals(partition.topic())) {
                    continue;
                }
                oldest = Math.min(oldest, m.offset());
                if (m.offset() >= firstOffset) {
                    found.add(new Located(m.offset(), r));
                }
            }
        }
        found.sort((a, b) -> Long.compare(a.offset, b.offset));
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>(found.size());
        for (Located l : found) {
            records.add(l.record);
        }
        // the kept window reaches back to the span's start when a record before it on the partition is kept
        // (else older ones left the window, or were written before this instance started)
        boolean complete = oldest < firstOffset;
        forget(partition, firstOffset);
        return new Span(records, complete);
    }

    private void forget(TopicPartition partition, long firstOffset) {
        ArrayDeque<Written> rest = new ArrayDeque<>(kept.size());
        for (Written w : kept) {
            List<ProducerRecord<String, byte[]>> records = new ArrayList<>(w.records().size());
            List<Future<RecordMetadata>> sent = new ArrayList<>(w.sent().size());
            for (int i = 0; i < w.records().size(); i++) {
                RecordMetadata m = metadata(w.sent().get(i));
                if (m == null || m.partition() != partition.partition() || !m.topic().equals(partition.topic())
                        || m.offset() < firstOffset) {
                    records.add(w.records().get(i));
                    sent.add(w.sent().get(i));
                }
            }
            bytes -= w.bytes();
            if (records.size() == w.records().size()) {
                rest.addLast(w);
                bytes += w.bytes();
            } else if (!records.isEmpty()) {
                long b = w.bytes() * records.size() / w.records().size();
                rest.addLast(new Written(records, sent, b, w.atNanos()));
                bytes += b;
            }
        }
        kept.clear();
        kept.addAll(rest);
    }

    long bytes() {
        return bytes;
    }

    int transactions() {
        return kept.size();
    }

    private static RecordMetadata metadata(Future<RecordMetadata> f) {
        if (f == null || !f.isDone()) {
            return null;
        }
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException e) {
            return null;
        }
    }

    /**
     * The records a hanging transaction held that committed transactions of this instance had written.
     *
     * @param complete false when no record before the span's start is kept (they left the window, or
     *                 this instance started after it began): some of the span's records may be missing
     */
    record Span(List<ProducerRecord<String, byte[]>> records, boolean complete) {
    }

    private record Located(long offset, ProducerRecord<String, byte[]> record) {
    }

    private record Written(List<ProducerRecord<String, byte[]>> records, List<Future<RecordMetadata>> sent, long bytes,
                           long atNanos) {
    }
}
