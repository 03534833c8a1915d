package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.tck.AbstractBusKillRecoveryTests;
import dev.toolbus.bus.tck.BrokerFixture;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Kill recovery on Kafka, exactly once (the suite): a read_committed consumer sees no turn twice and
 * each conversation's turns stay in order, its partition moving whole. At least once: re-run turns
 * repeat but never jump ahead.
 */
class KafkaKillRecoveryIT extends AbstractBusKillRecoveryTests {

    private KafkaFixture kafka;
    private KafkaDelivery delivery = KafkaDelivery.EXACTLY_ONCE;

    @Override
    protected BrokerFixture openBroker() {
        return kafka = KafkaFixture.require();
    }

    @Override
    protected Process startWorker(String name) throws Exception {
        return workers.start(name, KafkaWorkerBus.class, List.of(kafka.bootstrap, kafka.prefix, name, delivery.name()));
    }

    @Override
    protected boolean keepsOrderAcrossInstances() {
        return true;
    }

    @Test
    void atLeastOnce_killMinus9OfOneOfTwoInstances_losesNoTurnAndKeepsOrder() throws Exception {
        delivery = KafkaDelivery.AT_LEAST_ONCE;
        // re-run turns are those the killed instance had taken but not committed
        assertThat(stopOneOfTwo(true).writtenTwice()).isLessThan(TURNS / 2);
    }
}
