package dev.toolbus.bus.kafka;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.CallKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The call journal on Kafka. {@code begin} decides on the owner (its store), writes the wave's
 * {@code started} records with the state's idempotent producer ({@code acks=all}) and completes only
 * once they are acknowledged and the {@link OwnerFence} read past them with no newer owner in between:
 * a call runs only when its start is durable and this instance still owned its partition when it was
 * written. {@code finish}: exactly once with the call's turn (its transaction), else on its own; at
 * least once by the idempotent producer, fenced the same way (a stalled owner does not publish).
 */
final class KafkaCallJournal implements CallJournal {

    private final StateStore store;
    private final StateWriter writer;
    private final OwnerFence fence;
    private final Duration timeout;

    KafkaCallJournal(StateStore store, StateWriter writer, OwnerFence fence, Duration timeout) {
        this.store = store;
        this.writer = writer;
        this.fence = fence;
        this.timeout = timeout;
    }

    @Override
    public Mono<Map<CallKey, Entry>> begin(List<CallKey> keys) {
        return Mono.defer(() -> {
            StateStore.Begun b = store.begin(keys);
            if (b.started().isEmpty()) {
                return Mono.just(b.entries());
            }
            return writer.direct(b.started())
                    .flatMap(this::fenced)
                    .timeout(timeout)
                    .thenReturn(b.entries())
                    .onErrorMap(e -> {
                        store.unbegin(b.started());
                        return new IllegalStateException("the call journal could not record that " + b.started().size()
                                + " call(s) started, so they do not run: " + e.getMessage(), e);
                    });
        });
    }

    @Override
    public Mono<Void> finish(Map<CallKey, List<OutboundEvent>> finished) {
        return Mono.defer(() -> {
            List<StateStore.Finished> records = store.finish(finished);
            if (records.isEmpty()) {
                return Mono.empty();
            }
            StateTransactions tx = writer.tx();
            if (tx == null) {
                List<ProducerRecord<String, byte[]>> all = new ArrayList<>(records.size());
                records.forEach(f -> all.add(f.record()));
                return writer.direct(all).flatMap(this::fenced).timeout(timeout);
            }
            Map<List<String>, List<ProducerRecord<String, byte[]>>> byTurn = new LinkedHashMap<>();
            records.forEach(f -> byTurn.computeIfAbsent(List.of(f.streamId(), f.turnId()), t -> new ArrayList<>())
                    .add(f.record()));
            List<ProducerRecord<String, byte[]>> alone = new ArrayList<>();
            byTurn.forEach((turn, rs) -> {
                if (!tx.stageWithTurn(turn.get(0), turn.get(1), rs)) {
                    alone.addAll(rs);
                }
            });
            return alone.isEmpty() ? Mono.empty() : tx.write(alone);
        });
    }

    /** Completes once the fence passed every partition's offset. */
    private Mono<Void> fenced(Map<Integer, Long> offsets) {
        return Flux.fromIterable(offsets.entrySet()).flatMap(e -> fence.passed(e.getKey(), e.getValue())).then();
    }
}
