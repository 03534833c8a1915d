package dev.toolbus.bus.kafka;

import dev.toolbus.spi.GrantKey;
import dev.toolbus.spi.SessionGrants;
import java.time.Duration;
import reactor.core.publisher.Mono;

/** Session grants on Kafka: kept by the owner of the stream's partition, recorded in the state topic. */
final class KafkaSessionGrants implements SessionGrants {

    private final StateStore store;
    private final StateWriter writer;

    KafkaSessionGrants(StateStore store, StateWriter writer) {
        this.store = store;
        this.writer = writer;
    }

    @Override
    public Mono<Void> grant(GrantKey key, Duration ttl) {
        return Mono.defer(() -> writer.written(store.grant(key, ttl)));
    }

    @Override
    public Mono<Boolean> has(GrantKey key) {
        return Mono.fromCallable(() -> store.has(key));
    }
}
