package dev.toolbus.spi;

import reactor.core.publisher.Mono;

/**
 * One inbound message from a bus: the raw event and how to settle it. The executor calls
 * {@link #ack()} only after every event of the turn has been published, and
 * {@link #deadLetter(String)} (then {@link #ack()}) for input that cannot be answered on a stream.
 */
public interface BusMessage {

    /** The raw event, UTF-8 JSON. */
    byte[] payload();

    /** Marks the message done; the bus will not deliver it again. */
    Mono<Void> ack();

    /** Moves the message to the bus's dead-letter place with a reason. */
    Mono<Void> deadLetter(String reason);

    /** An id for logs (stream entry id, partition/offset, …). */
    default String id() {
        return "";
    }
}
