package dev.toolbus.bus.kafka;

import dev.toolbus.bus.tck.AbstractNodeExampleClientTests;
import dev.toolbus.bus.tck.BrokerFixture;
import java.util.Map;

/** docs/examples/node/kafka-turn.js (kafkajs). */
class KafkaNodeExampleClientIT extends AbstractNodeExampleClientTests {

    private KafkaFixture kafka;

    @Override
    protected BrokerFixture openBroker() {
        return kafka = KafkaFixture.require();
    }

    @Override
    protected String script() {
        return "kafka-turn.js";
    }

    @Override
    protected Map<String, String> environment() {
        return Map.of("TOOLBUS_KAFKA_BOOTSTRAP", kafka.bootstrap,
                "TOOLBUS_CALLS_TOPIC", kafka.prefix + "calls",
                "TOOLBUS_RESULTS_TOPIC", kafka.prefix + "results");
    }
}
