package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.testing.EchoDriver;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * A turn sent again is not run: its recorded events come back marked replayed, also from an instance
 * that took the partition over (the ledger topic is read on assignment); a duplicate sent while the
 * turn runs joins it.
 */
class KafkaIdempotentTurnTest {

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

    private List<String> events() {
        return kafka.results().stream().map(KafkaTestSupport::value).toList();
    }

    @Test
    void aRepeatedTurn_isAnsweredWithItsRecordedEvents_alsoAfterThePartitionMoved() {
        KafkaBusConfig config = kafka.config().topicPartitions(1).revokeTimeout(Duration.ZERO).build();
        KafkaBus first = KafkaBus.builder().config(config).build();
        EchoDriver d1 = new EchoDriver();
        Disposable s1 = d1.attach(first);
        kafka.send("s", EchoDriver.turn("s", "t1", "a"));
        await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 2);
        kafka.send("s", EchoDriver.turn("s", "t1", "a")); // the client retried, same instance
        await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 4);
        s1.dispose();
        first.closeGracefully().block(Duration.ofSeconds(30));

        KafkaBus second = KafkaBus.builder().config(config.toBuilder().clientId(config.clientId() + "-2").build()).build();
        EchoDriver d2 = new EchoDriver();
        Disposable s2 = d2.attach(second);
        try {
            kafka.send("s", EchoDriver.turn("s", "t1", "a")); // again, now on the partition's next owner
            kafka.send("s", EchoDriver.turn("s", "t2", "b"));
            await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 8);
            List<String> events = events();
            assertThat(d1.turns.get()).isEqualTo(1);
            assertThat(d2.turns.get()).isEqualTo(1); // t2 only
            for (int i : new int[] {2, 4}) {
                assertThat(events.get(i)).isEqualTo("{\"replayed\":true," + events.get(0).substring(1));
                assertThat(events.get(i + 1)).isEqualTo("{\"replayed\":true," + events.get(1).substring(1));
            }
            assertThat(events.get(6)).contains("t2").doesNotContain("replayed");
        } finally {
            s2.dispose();
            second.closeGracefully().block(Duration.ofSeconds(30));
        }
    }

    @Test
    void aDuplicateSentWhileTheTurnRuns_joinsIt() {
        KafkaBusConfig config = kafka.config().topicPartitions(1).build();
        KafkaBus bus = KafkaBus.builder().config(config).build();
        bus.start().block(Duration.ofSeconds(30));
        List<dev.toolbus.spi.BusMessage> got = new java.util.concurrent.CopyOnWriteArrayList<>();
        Disposable sub = bus.receive().subscribe(got::add);
        try {
            kafka.send("s", EchoDriver.turn("s", "t3", "c"));
            await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 1);
            kafka.send("s", EchoDriver.turn("s", "t3", "c")); // while t3 runs
            kafka.send("s", EchoDriver.turn("s", "t4", "d"));
            await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == 2);
            EchoDriver driver = new EchoDriver();
            driver.handle(bus, got.get(0)).block(Duration.ofSeconds(30));
            driver.handle(bus, got.get(1)).block(Duration.ofSeconds(30));
            await().atMost(Duration.ofSeconds(30)).until(() -> events().size() == 4);
            assertThat(got.get(1).payload()).asString().contains("t4"); // the duplicate was never handed over
            await().atMost(Duration.ofSeconds(10)).until(() -> kafka.committed().values().stream()
                    .anyMatch(om -> om.offset() == 3));
            assertThat(events()).noneMatch(e -> e.contains("replayed"));
        } finally {
            sub.dispose();
            bus.closeGracefully().block(Duration.ofSeconds(30));
        }
    }

    @Test
    void aLedgerTopicThatDoesNotFitTheCallsTopic_turnsIdempotentTurnsOff_andTurnsStillRun() throws Exception {
        java.util.Properties p = new java.util.Properties();
        p.put("bootstrap.servers", kafka.bootstrap);
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(p)) {
            admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(kafka.prefix + "turns", 1, (short) 1)))
                    .all().get();
        }
        KafkaBus bus = KafkaBus.builder().config(kafka.config().build()).build(); // 3 calls partitions
        EchoDriver driver = new EchoDriver();
        Disposable d = driver.attach(bus);
        try {
            kafka.send("s", EchoDriver.turn("s", "t5", "e"));
            kafka.send("s", EchoDriver.turn("s", "t5", "e"));
            await().atMost(Duration.ofSeconds(30)).until(() -> driver.turns.get() == 2 && events().size() == 4);
            assertThat(events()).noneMatch(e -> e.contains("replayed"));
        } finally {
            d.dispose();
            bus.closeGracefully().block(Duration.ofSeconds(30));
        }
    }
}
