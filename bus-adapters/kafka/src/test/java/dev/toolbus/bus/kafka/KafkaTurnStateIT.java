package dev.toolbus.bus.kafka;

import dev.toolbus.bus.tck.AbstractTurnStateTests;
import dev.toolbus.bus.tck.Brokers;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.spi.TurnState;
import dev.toolbus.spi.TurnStateSettings;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import reactor.core.scheduler.Schedulers;

/**
 * The turn-state contract, kept by the Kafka state on the real broker: each test's state owns every
 * partition of a state topic of its own (three partitions) and writes, reads back and expires on real
 * time. On Kafka the owner of a stream's partition is the one instance that decides for it (answers are
 * keyed by stream, so they reach it), so the suite's {@code peer} is the state itself; another instance
 * sees a partition's state when it takes the partition over ({@link KafkaTurnStateTakeoverIT}).
 */
class KafkaTurnStateIT extends AbstractTurnStateTests {

    private final List<KafkaTurnState> open = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @Override
    protected TurnState newState(TurnStateSettings settings) {
        KafkaTurnState state = StateFixture.state(StateFixture.config(Brokers.kafkaBootstrap(),
                "s" + UUID.randomUUID().toString().substring(0, 8) + ".", settings).build(), null, p -> { });
        open.add(state);
        state.bind(meters);
        return state;
    }

    @Override
    protected Double gauge(TurnState state, String name, String facet) {
        Gauge g = meters.find(name).tag("facet", facet).gauge();
        return g == null ? null : g.value();
    }

    @AfterEach
    void closeStates() {
        open.forEach(KafkaTurnState::close);
    }

    /** Builds states without a bus: their topic created, every partition owned. */
    static final class StateFixture {
        static final int PARTITIONS = 3;

        private StateFixture() {
        }

        static KafkaBusConfig.Builder config(String bootstrap, String prefix, TurnStateSettings settings) {
            return KafkaFixture.configFor(bootstrap, prefix).turnStateSettings(settings).clientId(prefix + "state");
        }

        /** A started state (its topic created when missing) that owns every partition. */
        static KafkaTurnState state(KafkaBusConfig config, StateTransactions tx, java.util.function.IntConsumer onFenced) {
            KafkaTurnState state = open(config, tx, onFenced);
            state.assignAll();
            return state;
        }

        /** A started state that owns nothing yet. */
        static KafkaTurnState open(KafkaBusConfig config, StateTransactions tx, java.util.function.IntConsumer onFenced) {
            TopicSetup.Topics topics = TopicSetup.prepare(config.toBuilder().topicPartitions(PARTITIONS).build());
            KafkaTurnState state = new KafkaTurnState(config, EventCodec.defaults(), tx, onFenced, System::currentTimeMillis,
                    Schedulers.boundedElastic());
            state.partitions(topics.partitions());
            return state;
        }
    }
}
