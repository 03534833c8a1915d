package dev.toolbus.bus.redis;

import dev.toolbus.bus.tck.AbstractNodeExampleClientTests;
import dev.toolbus.bus.tck.BrokerFixture;
import java.util.Map;

/** docs/examples/node/redis-turn.js (ioredis). */
class RedisNodeExampleClientIT extends AbstractNodeExampleClientTests {

    private RedisFixture redis;

    @Override
    protected BrokerFixture openBroker() {
        return redis = RedisFixture.require();
    }

    @Override
    protected String script() {
        return "redis-turn.js";
    }

    @Override
    protected Map<String, String> environment() {
        return Map.of("TOOLBUS_REDIS_URL", redis.url,
                "TOOLBUS_CALLS_STREAM", redis.prefix + "calls",
                "TOOLBUS_RESULTS_KEY", redis.prefix + "results:{stream_id}");
    }
}
