package dev.toolbus.bus.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The poll loop's rebalance listener (poll thread). Assigned partitions get fresh offsets books, from
 * their committed position and metadata, and their part of the ledger topic and of the turn state is
 * read, before any of their records is handed over. Revoked ones stop handing records over, wait up to
 * {@code revokeTimeout} for their running records, commit what completed and are forgotten, their turn
 * state with them (their next owner runs the rest). Lost ones are forgotten at once (nothing can be
 * committed).
 */
final class Rebalance implements ConsumerRebalanceListener {

    private static final Logger log = LoggerFactory.getLogger(Rebalance.class);

    private final KafkaBusConfig config;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Settlement settlement;
    private final Map<TopicPartition, PartitionOffsets> partitions;
    private final LedgerTopic ledger;
    private final KafkaTurnState state;
    private final Runnable dropRevoked;
    private final Consumer<List<PartitionOffsets>> forgetRunning;
    private final AtomicLong epochs = new AtomicLong();

    /**
     * @param ledger the ledger topic, or null when idempotent turns are off
     * @param state the turn state, or null when it is kept in the executor
     * @param dropRevoked drops the buffered records of revoked partitions
     * @param forgetRunning forgets the running turns (and their waiting duplicates) of partitions gone, and
     *     releases their records still in flight here
     */
    Rebalance(KafkaBusConfig config, KafkaConsumer<String, byte[]> consumer, Settlement settlement,
              Map<TopicPartition, PartitionOffsets> partitions, LedgerTopic ledger, KafkaTurnState state,
              Runnable dropRevoked, Consumer<List<PartitionOffsets>> forgetRunning) {
        this.config = config;
        this.consumer = consumer;
        this.settlement = settlement;
        this.partitions = partitions;
        this.ledger = ledger;
        this.state = state;
        this.dropRevoked = dropRevoked;
        this.forgetRunning = forgetRunning;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
        if (assigned.isEmpty()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> committed = Map.of();
        try {
            committed = consumer.committed(new HashSet<>(assigned), Duration.ofSeconds(10));
        } catch (KafkaException e) {
            log.warn("kafka bus {}: committed offsets of {} unreadable; completed records above them run again: {}",
                    config.clientId(), assigned, e.toString());
        }
        for (TopicPartition tp : assigned) {
            partitions.put(tp, new PartitionOffsets(tp, epochs.incrementAndGet(), committed.get(tp)));
        }
        if (ledger != null) {
            ledger.restore(assigned);
        }
        if (state != null) {
            state.assign(numbers(assigned));
        }
        log.info("kafka bus {}: assigned {}", config.clientId(), assigned);
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
        if (revoked.isEmpty()) {
            return;
        }
        List<PartitionOffsets> gone = new ArrayList<>();
        for (TopicPartition tp : revoked) {
            PartitionOffsets po = partitions.get(tp);
            if (po != null) {
                po.revoked = true; // no more records of it are handed over
                gone.add(po);
            }
        }
        dropRevoked.run();
        long deadline = System.nanoTime() + config.revokeTimeout().toNanos();
        while (gone.stream().anyMatch(po -> po.inflight.get() > 0) && System.nanoTime() < deadline) {
            settlement.tick(consumer, partitions, false);
            PollLoop.sleep(5);
        }
        settlement.flush(consumer, partitions, gone);
        int left = gone.stream().mapToInt(po -> po.inflight.get()).sum();
        gone.forEach(po -> partitions.remove(po.partition, po));
        settlement.dropped(gone);
        forgetRunning.accept(gone);
        if (state != null) {
            state.revoke(numbers(revoked));
        }
        log.info("kafka bus {}: revoked {}{}", config.clientId(), revoked,
                left > 0 ? " (" + left + " records still running will be run again by the new owner)" : "");
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
        List<PartitionOffsets> gone = new ArrayList<>();
        for (TopicPartition tp : lost) {
            PartitionOffsets po = partitions.remove(tp);
            if (po != null) {
                po.revoked = true;
                gone.add(po);
            }
        }
        dropRevoked.run();
        settlement.dropped(gone);
        forgetRunning.accept(gone);
        if (state != null) {
            state.revoke(numbers(lost));
        }
        log.warn("kafka bus {}: lost {} (no commit possible)", config.clientId(), lost);
    }

    /**
     * A partition the turn state's fence saw another owner take while the consumer did not notice (this
     * instance was stalled): forgotten at once, like a lost one, and paused until the group moves it.
     */
    void fenced(TopicPartition tp) {
        PartitionOffsets po = partitions.remove(tp);
        if (po == null) {
            return;
        }
        po.revoked = true;
        dropRevoked.run();
        settlement.dropped(List.of(po));
        forgetRunning.accept(List.of(po));
        try {
            consumer.pause(List.of(tp));
        } catch (IllegalStateException notAssigned) {
            // the consumer let it go meanwhile
        }
        log.warn("kafka bus {}: {} has another owner (this instance was stalled); forgotten here", config.clientId(), tp);
    }

    private static List<Integer> numbers(Collection<TopicPartition> tps) {
        List<Integer> out = new ArrayList<>(tps.size());
        tps.forEach(tp -> out.add(tp.partition()));
        return out;
    }
}
