package dev.toolbus.spi;

import dev.toolbus.protocol.OutboundEvent;
import java.util.List;
import reactor.core.publisher.Mono;

/** {@link TurnLedger#none()}: every turn runs, nothing is kept. */
final class NoTurnLedger implements TurnLedger {

    static final NoTurnLedger INSTANCE = new NoTurnLedger();
    private static final Mono<Admission> RUN = Mono.just(Admission.run());

    private NoTurnLedger() {
    }

    @Override
    public Mono<Admission> admit(TurnKey turn) {
        return RUN;
    }

    @Override
    public Mono<Void> complete(TurnKey turn, List<OutboundEvent> events) {
        return Mono.empty();
    }

    @Override
    public void release(TurnKey turn) {
    }
}
