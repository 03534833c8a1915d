package dev.toolbus.executor.state;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.executor.TestTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A stream's turns keep their order through a turn ledger that answers late (a shared ledger's round
 * trip) or joins a run elsewhere: the later turns of that stream wait, other streams do not.
 */
class AdmissionOrderTest {

    private final AtomicInteger runs = new AtomicInteger();
    private final Sinks.Empty<Void> gate = Sinks.empty();
    private final List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
    private Disposable loop;
    private ToolExecutor executor;

    @AfterEach
    void stop() {
        if (loop != null) {
            loop.dispose();
        }
        if (executor != null) {
            executor.close();
        }
    }

    /** The in-memory ledger, except that turn "slow" is answered only when the gate opens, with {@code late}. */
    private TurnLedger holding(Mono<TurnLedger.Admission> late) {
        TurnLedger memory = TurnStateStep.inMemoryLedger(TurnLedgerSettings.DEFAULTS, System::nanoTime);
        return new DelegatingLedger(memory) {
            @Override
            public Mono<Admission> admit(TurnKey turn) {
                return turn.turnId().equals("slow") ? gate.asMono().then(late) : super.admit(turn);
            }
        };
    }

    private InMemoryBus attach(TurnLedger ledger) {
        executor = ToolExecutor.builder().turnState(TurnState.builder().ledger(ledger).build()).tool(TestTools.counter("count", runs))
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
        InMemoryBus bus = InMemoryBus.create();
        bus.events("s1").subscribe(seen::add);
        bus.events("s2").subscribe(seen::add);
        loop = executor.attach(bus);
        return bus;
    }

    private List<String> completed(String stream) {
        return seen.stream().filter(e -> e instanceof TurnCompletedEvent && e.streamId().equals(stream))
                .map(e -> ((TurnCompletedEvent) e).turnId()).toList();
    }

    @Test
    void aLateAdmissionHoldsTheLaterTurnsOfItsStreamOnly() {
        InMemoryBus bus = attach(holding(Mono.just(TurnLedger.Admission.run())));
        bus.send(turn("s1", "slow", call("c1", "count", "{}")));
        bus.send(turn("s1", "next", call("c1", "count", "{}")));
        bus.send(turn("s2", "other", call("c1", "count", "{}")));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> completed("s2").equals(List.of("other")));
        assertThat(completed("s1")).isEmpty();
        assertThat(runs).hasValue(1);

        gate.tryEmitEmpty();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> completed("s1").size() == 2);
        assertThat(completed("s1")).containsExactly("slow", "next");
        assertThat(runs).hasValue(3);
    }

    @Test
    void aTurnThatJoinsARunElsewhereHoldsTheLaterTurnsUntilThatRunEnds() {
        Sinks.One<List<OutboundEvent>> elsewhere = Sinks.one();
        InMemoryBus bus = attach(holding(Mono.just(TurnLedger.Admission.join(elsewhere.asMono()))));
        gate.tryEmitEmpty();
        bus.send(turn("s1", "slow", call("c1", "count", "{}")));
        bus.send(turn("s1", "next", call("c1", "count", "{}")));
        bus.send(turn("s2", "other", call("c1", "count", "{}")));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> completed("s2").equals(List.of("other")));
        assertThat(completed("s1")).isEmpty();

        elsewhere.tryEmitValue(List.of()); // the other instance published "slow"; the joined copy publishes nothing
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> completed("s1").equals(List.of("next")));
        assertThat(runs).hasValue(2);
    }

    @Test
    void aFailedAdmissionRunsTheTurnAndStillFreesTheStream() {
        InMemoryBus bus = attach(holding(Mono.error(new IllegalStateException("ledger down"))));
        gate.tryEmitEmpty();
        bus.send(turn("s1", "slow", call("c1", "count", "{}")));
        bus.send(turn("s1", "next", call("c1", "count", "{}")));
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> completed("s1").size() == 2);
        assertThat(completed("s1")).containsExactly("slow", "next");
    }
}
