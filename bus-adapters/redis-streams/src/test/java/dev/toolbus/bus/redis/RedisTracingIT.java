package dev.toolbus.bus.redis;

import dev.toolbus.bus.tck.AbstractBusTracingTests;
import dev.toolbus.bus.tck.BrokerFixture;

/** Tracing over Redis: an entry has only its {@code event} field, so the trace travels in the JSON alone. */
class RedisTracingIT extends AbstractBusTracingTests {

    @Override
    protected BrokerFixture openBroker() {
        return RedisFixture.require();
    }
}
