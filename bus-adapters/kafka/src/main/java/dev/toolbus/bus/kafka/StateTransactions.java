package dev.toolbus.bus.kafka;

import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import reactor.core.publisher.Mono;

/**
 * Exactly once: how the turn state writes its records in the bus's transactions
 * ({@link TransactionalSettlement}). A call's {@code finished} record goes with its turn's events and
 * offset, an answer with its control event's offset; anything else in the next transaction.
 */
interface StateTransactions {

    /** Stages records with a turn that runs here; false when it does not (then write them on their own). */
    boolean stageWithTurn(String streamId, String turnId, List<ProducerRecord<String, byte[]>> records);

    /** Stages records with the control event of this answer that runs here; false when none does. */
    boolean stageWithAnswer(String streamId, String requestId, List<ProducerRecord<String, byte[]>> records);

    /** Writes records in the next transaction; completes when it committed. */
    Mono<Void> write(List<ProducerRecord<String, byte[]>> records);
}
