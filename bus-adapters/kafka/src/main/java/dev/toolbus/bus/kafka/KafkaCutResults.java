package dev.toolbus.bus.kafka;

import dev.toolbus.spi.CutKey;
import dev.toolbus.spi.CutResults;
import reactor.core.publisher.Mono;

/**
 * Cut results on Kafka: kept by the owner of the stream's partition, recorded in the state topic (a
 * text above a quarter of {@code cutResultsMaxBytes}, or above {@link StateStore#MAX_RECORD_BYTES}
 * encoded, is not kept).
 */
final class KafkaCutResults implements CutResults {

    private final StateStore store;
    private final StateWriter writer;

    KafkaCutResults(StateStore store, StateWriter writer) {
        this.store = store;
        this.writer = writer;
    }

    @Override
    public Mono<Boolean> put(CutKey key, String text, int limit) {
        return Mono.defer(() -> {
            StateStore.Put p = store.put(key, text, limit);
            return writer.written(p.writes()).thenReturn(p.kept());
        });
    }

    @Override
    public Mono<Cut> get(CutKey key) {
        return Mono.fromCallable(() -> store.get(key));
    }
}
