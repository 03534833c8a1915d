package dev.toolbus.bus.redis;

import static org.awaitility.Awaitility.await;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.bus.tck.AbstractBusControlTests;
import dev.toolbus.bus.tck.BrokerFixture;
import java.time.Duration;

/**
 * Conversation control across two Redis instances. The group gives a control event to either
 * instance, so the one running the turn stops reading first: the other reads the event and must pass
 * it on (a cancel to every instance, an answer to the instance named in its id).
 */
class RedisControlIT extends AbstractBusControlTests {

    private RedisFixture redis;

    @Override
    protected BrokerFixture openBroker() {
        return redis = RedisFixture.require();
    }

    @Override
    protected void ownerStopsReading(ToolBus owner) {
        ((RedisStreamsBus) owner).pauseReading();
        await().atMost(Duration.ofSeconds(10)).until(((RedisStreamsBus) owner)::readingStopped); // its read in progress ended
    }

    @Override
    protected void resumeReading(ToolBus bus) {
        ((RedisStreamsBus) bus).resumeReading();
    }

    @Override
    protected void nextTurnsGoTo(ToolBus owner, ToolBus other) {
        resumeReading(owner);
        ownerStopsReading(other);
    }

    @Override
    protected Duration cancelBound() {
        return Duration.ofSeconds(1);
    }
}
