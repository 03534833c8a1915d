package dev.toolbus.bus.redis;

import dev.toolbus.bus.tck.AbstractBusPoisonTurnTests;
import dev.toolbus.bus.tck.BrokerFixture;

/** Poison turns on Redis: each delivery of the entry is counted by the group ({@code XPENDING}). */
class RedisPoisonTurnIT extends AbstractBusPoisonTurnTests {

    @Override
    protected BrokerFixture openBroker() {
        return RedisFixture.require();
    }

    @Override
    protected String poisonReason(int deliveries) {
        return "delivered " + deliveries + " times without being settled (maxDeliveries 2)";
    }
}
