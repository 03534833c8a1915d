package dev.toolbus.bus.kafka;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.bus.tck.AbstractBusControlTests;
import dev.toolbus.bus.tck.BrokerFixture;
import java.time.Duration;

/**
 * Conversation control with two instances in one consumer group: a control event keyed by its stream
 * lands on its turn's partition, so the instance running the turn reads it itself, while the turn's
 * long call is still running there (no head-of-line wait behind it).
 */
class KafkaControlIT extends AbstractBusControlTests {

    @Override
    protected BrokerFixture openBroker() {
        return KafkaFixture.require();
    }

    @Override
    protected void ownerStopsReading(ToolBus owner) {
    }

    @Override
    protected void resumeReading(ToolBus bus) {
    }

    /** A conversation's turns stay on its partition, so on the owner. */
    @Override
    protected void nextTurnsGoTo(ToolBus owner, ToolBus other) {
    }

    /** The transaction interval and the read_committed reader add to the one second of the Redis bound. */
    @Override
    protected Duration cancelBound() {
        return Duration.ofSeconds(3);
    }
}
