package dev.toolbus.executor.state;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import java.util.List;
import reactor.core.publisher.Mono;

/** A ledger of its own that hands every step to another (tests override the step they change). */
class DelegatingLedger implements TurnLedger {

    private final TurnLedger to;

    DelegatingLedger(TurnLedger to) {
        this.to = to;
    }

    @Override
    public Mono<Admission> admit(TurnKey turn) {
        return to.admit(turn);
    }

    @Override
    public Mono<Void> complete(TurnKey turn, List<OutboundEvent> events) {
        return to.complete(turn, events);
    }

    @Override
    public void release(TurnKey turn) {
        to.release(turn);
    }
}
