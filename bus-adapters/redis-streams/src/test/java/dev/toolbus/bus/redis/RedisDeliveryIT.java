package dev.toolbus.bus.redis;

import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.tck.AbstractBusDeliveryTests;
import dev.toolbus.bus.tck.BrokerFixture;
import java.time.Duration;

/** The delivery contract on Redis Streams. */
class RedisDeliveryIT extends AbstractBusDeliveryTests {

    private RedisFixture redis;

    @Override
    protected BrokerFixture openBroker() {
        return redis = RedisFixture.require();
    }

    /** What the group delivered to this consumer and is not acknowledged: its pending entries. */
    @Override
    protected void assertTakenFromBroker(int n) {
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> redis.pending() == n);
    }

    @Override
    protected String noEventReason() {
        return "entry has no 'event' field";
    }

    @Override
    protected boolean noEventAnswersItsConversation() {
        return false;
    }
}
