package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.tck.AbstractBusIdempotentTurnTests;
import dev.toolbus.bus.tck.BrokerFixture;
import dev.toolbus.bus.tck.EchoDriver;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/**
 * Idempotent turns on an exactly-once Kafka bus: finished turns are in the ledger topic, read on
 * assignment by a partition's next owner; a duplicate sent while the turn runs joins it in the bus
 * (it is never handed over). Also: a ledger topic that does not fit the calls topic turns the
 * feature off instead of writing where no owner reads.
 */
class KafkaIdempotentTurnIT extends AbstractBusIdempotentTurnTests {

    private KafkaFixture kafka;

    @Override
    protected BrokerFixture openBroker() {
        return kafka = KafkaFixture.require();
    }

    @Override
    protected boolean busJoinsARunningDuplicate() {
        return true;
    }

    private List<String> events() {
        return kafka.results().stream().map(KafkaFixture::value).toList();
    }

    @Test
    void aLedgerTopicThatDoesNotFitTheCallsTopic_turnsIdempotentTurnsOff_andTurnsStillRun() throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", kafka.bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(kafka.prefix + "turns", 1, (short) 1))).all().get();
        }
        KafkaBus bus = KafkaBus.builder().config(kafka.config().build()).build(); // 3 calls partitions
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
        EchoDriver driver = attach(bus);
        kafka.send("s", EchoDriver.turn("s", "t5", "e"));
        kafka.send("s", EchoDriver.turn("s", "t5", "e"));
        await().atMost(Duration.ofSeconds(30)).until(() -> driver.turns.get() == 2 && events().size() == 4);
        assertThat(events()).noneMatch(e -> e.contains("replayed"));
    }
}
