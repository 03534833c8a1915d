package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.testing.EchoDriver;
import dev.toolbus.spi.BusMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** A record that every owner takes and never completes is dead-lettered after maxDeliveries owners. */
class KafkaPoisonTurnTest {

    private KafkaTestSupport kafka;

    @BeforeEach
    void setUp() {
        kafka = KafkaTestSupport.require();
    }

    @AfterEach
    void tearDown() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private KafkaBusConfig config() {
        return kafka.config().topicPartitions(1).maxDeliveries(2).shutdownTimeout(Duration.ZERO)
                .revokeTimeout(Duration.ZERO).build();
    }

    /** An owner that takes the record and gives up without completing it. */
    private void takeAndGiveUp() {
        KafkaBus bus = KafkaBus.builder().config(config()).build();
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        Disposable sub = bus.receive().subscribe(got::add);
        await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
        sub.dispose();
        bus.closeGracefully().block(Duration.ofSeconds(30));
    }

    @Test
    void aRecordTakenByMoreThanMaxDeliveriesOwners_isDeadLetteredWithItsCount_andItsStreamGetsAnError() {
        KafkaBus setup = KafkaBus.builder().config(config()).build();
        setup.start().block(Duration.ofSeconds(30)); // creates the topics
        setup.closeGracefully().block(Duration.ofSeconds(30));
        kafka.send("s", EchoDriver.turn("s", "t-poison", "boom"));
        takeAndGiveUp(); // owner 1
        takeAndGiveUp(); // owner 2
        kafka.send("s", EchoDriver.turn("s", "t-ok", "fine"));

        KafkaBus bus = KafkaBus.builder().config(config()).build();
        EchoDriver driver = new EchoDriver();
        Disposable d = driver.attach(bus);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> kafka.deadLetters().size() == 1
                    && kafka.results().stream().anyMatch(r -> KafkaTestSupport.value(r).contains("turn_completed")));
            ConsumerRecord<String, byte[]> dead = kafka.deadLetters().get(0);
            assertThat(new String(dead.headers().lastHeader(KafkaBus.HEADER_DELIVERIES).value(), StandardCharsets.UTF_8))
                    .isEqualTo("3");
            assertThat(new String(dead.headers().lastHeader(KafkaBus.HEADER_REASON).value(), StandardCharsets.UTF_8))
                    .isEqualTo("delivered 3 times without completing (maxDeliveries 2)");
            assertThat(KafkaTestSupport.value(dead)).contains("t-poison");
            List<String> events = kafka.results().stream().map(KafkaTestSupport::value).toList();
            assertThat(events).hasSize(3);
            assertThat(events.get(0)).contains("\"type\":\"error\"", "\"turn_id\":\"t-poison\"", "\"code\":\"REJECTED\"");
            assertThat(events.get(2)).contains("turn_completed", "t-ok");
            assertThat(driver.turns.get()).isEqualTo(1);
        } finally {
            d.dispose();
            bus.closeGracefully().block(Duration.ofSeconds(30));
        }
    }
}
