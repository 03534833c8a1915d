package dev.toolbus.bus.kafka;

import dev.toolbus.bus.tck.AbstractBusDeliveryTests;
import dev.toolbus.bus.tck.BrokerFixture;

/** The delivery contract on Kafka. */
class KafkaDeliveryIT extends AbstractBusDeliveryTests {

    @Override
    protected BrokerFixture openBroker() {
        return KafkaFixture.require();
    }

    /** The poll thread reads ahead into a buffer bounded by {@code maxBufferedRecords}: nothing to check here ({@link KafkaBusIT}). */
    @Override
    protected void assertTakenFromBroker(int n) {
    }

    @Override
    protected String noEventReason() {
        return "record has no value";
    }

    /** The record's key is its conversation's stream id. */
    @Override
    protected boolean noEventAnswersItsConversation() {
        return true;
    }
}
