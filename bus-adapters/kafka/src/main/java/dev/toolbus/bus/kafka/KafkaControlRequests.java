package dev.toolbus.bus.kafka;

import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.RequestState;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Approval requests and questions on Kafka. Their answers are control events keyed by {@code stream_id},
 * so they reach the owner of the stream's partition, which decides here and records the request with
 * its answers in the state topic (exactly once: with the answer's offset, in its transaction); after
 * the partition moves, the new owner restores them. {@link #answered()} signals the answers this owner
 * recorded.
 */
final class KafkaControlRequests implements ControlRequests {

    /** The most question ordinals tried to rebuild a question's id (a call asks a few questions). */
    static final int MAX_ORDINAL = 4096;

    private final StateStore store;
    private final StateWriter writer;
    private final Sinks.Many<String> answered = Sinks.many().multicast().directBestEffort();
    private final Object emitLock = new Object();

    KafkaControlRequests(StateStore store, StateWriter writer) {
        this.store = store;
        this.writer = writer;
    }

    @Override
    public Mono<RequestState> raise(ControlRequest request) {
        return Mono.defer(() -> {
            StateStore.Raised r = store.raise(request, ordinal(request));
            return writer.written(r.writes()).thenReturn(r.state());
        });
    }

    @Override
    public Mono<AnswerOutcome> answer(ControlAnswer answer, Duration hold) {
        return Mono.defer(() -> {
            StateStore.Answered a = store.answer(answer, hold);
            Mono<Void> write = write(answer, a.writes());
            if (a.outcome() != AnswerOutcome.RECORDED) {
                return write.thenReturn(a.outcome());
            }
            return write.then(Mono.fromCallable(() -> {
                synchronized (emitLock) {
                    answered.tryEmitNext(answer.requestId());
                }
                return a.outcome();
            }));
        });
    }

    private Mono<Void> write(ControlAnswer answer, List<ProducerRecord<String, byte[]>> records) {
        if (records.isEmpty()) {
            return Mono.empty();
        }
        StateTransactions tx = writer.tx();
        if (tx != null && tx.stageWithAnswer(answer.streamId(), answer.requestId(), records)) {
            return Mono.empty(); // committed with the answer's offset
        }
        return writer.written(records);
    }

    @Override
    public Mono<RequestState> find(String id) {
        return Mono.fromCallable(() -> store.find(id));
    }

    @Override
    public Mono<Map<CallKey, ControlAnswer>> findForCalls(List<CallKey> calls) {
        return Mono.fromCallable(() -> store.findForCalls(calls));
    }

    @Override
    public Mono<RequestState> close(String id) {
        return Mono.defer(() -> {
            StateStore.Raised r = store.close(id);
            return r.state() == null ? Mono.empty() : writer.written(r.writes()).thenReturn(r.state());
        });
    }

    @Override
    public Flux<String> answered() {
        return answered.asFlux();
    }

    /** A question's ordinal, found from its id (0 for an approval). */
    static int ordinal(ControlRequest r) {
        if (r.kind() == ControlRequest.Kind.APPROVAL) {
            return 0;
        }
        CallKey call = r.calls().get(0);
        for (int n = 1; n <= MAX_ORDINAL; n++) {
            if (ControlRequest.inputId(call, n).equals(r.id())) {
                return n;
            }
        }
        throw new IllegalArgumentException("question " + r.id() + " is beyond the " + MAX_ORDINAL
                + "th of its call, which the turn state does not keep");
    }
}
