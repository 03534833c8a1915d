package dev.toolbus.spi;

import dev.toolbus.protocol.OutboundEvent;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A message bus that carries turns in and events out. Adapters (in-memory, Redis Streams, Kafka,
 * stdio, the gateway) implement it; {@code ToolExecutor.attach(ToolBus)} runs an
 * executor on it.
 */
public interface ToolBus extends AutoCloseable {

    /**
     * Inbound messages, honouring demand (the executor requests as many as it can run). Completes when
     * the bus is closed or its input ends.
     */
    Flux<BusMessage> receive();

    /**
     * Publishes the events of one turn (or one answer), in order, to their conversation.
     *
     * @param events events of one stream, in publish order
     * @return completes when all events are durably written
     */
    Mono<Void> publish(List<OutboundEvent> events);

    /** Publishes an event that names no stream (for example a decode error on stdio). */
    default Mono<Void> publishUnrouted(OutboundEvent event) {
        return publish(List.of(event));
    }

    /**
     * The turn state this bus brings (for example one shared by the instances on a broker: the ledger of
     * idempotent turns, the call journal, approval requests and questions, session grants, cut
     * results), or {@code null} (the default) to use the executor's in-memory one. A facet the state
     * leaves {@code null} is the executor's in-memory one; {@link TurnLedger#none()} as its ledger when
     * the bus deduplicates turns itself or they are off.
     */
    default TurnState turnState() {
        return null;
    }

    /**
     * Who sends the turns and answers read from this bus (set by the bus, never read from the events):
     * {@link Principal#local()} by default; a broker bus's configured identity, {@link Principal#stdio()}
     * on stdio.
     */
    default Principal principal() {
        return Principal.local();
    }

    /** Stops receiving and releases resources. */
    Mono<Void> closeGracefully();

    @Override
    default void close() {
        closeGracefully().block(java.time.Duration.ofSeconds(30));
    }
}
