package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.kafka.HangingTransactions.Open;
import dev.toolbus.bus.kafka.HangingTransactions.Verdict;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The sweep for hanging transactions against the broker: a live transaction of the bus's transactional
 * id is left alone, an abort ends a transaction the sweep judged hanging (the stable offset reaches the
 * end), and the coordinator ends a fenced producer's transaction itself. A hanging transaction cannot be
 * made on a sound broker, so the abort is asked for one the coordinator still has open, with the
 * minimum age zero.
 */
class KafkaHangingTransactionsIT {

    private KafkaFixture kafka;
    private KafkaBusConfig config;
    private TopicPartition results0;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void open() {
        kafka = KafkaFixture.require();
        kafka.ensureTopics();
        config = kafka.config().clientId(kafka.prefix + "sweeper").build();
        results0 = new TopicPartition(config.resultsTopic(), 0);
    }

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        kafka.close();
    }

    /** A sweeper of this test's bus settings that judges any open transaction old enough. */
    private HangingTransactions sweeper() {
        HangingTransactions h = new HangingTransactions(config, Duration.ZERO, Clock.systemUTC());
        closing.add(h);
        return h;
    }

    /** A producer of the bus's transactional id with a transaction open on results partition 0 (sent, not committed). */
    private KafkaProducer<String, byte[]> openTransaction() throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, Producers.transactionalId(config));
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "300000"); // the coordinator keeps it open throughout
        KafkaProducer<String, byte[]> producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        closing.add(() -> producer.close(Duration.ZERO));
        producer.initTransactions();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(results0.topic(), results0.partition(), "s",
                "{}".getBytes(StandardCharsets.UTF_8))).get();
        producer.flush();
        await().atMost(Duration.ofSeconds(30)).until(this::isOpen);
        return producer;
    }

    /** The stable offset (read_committed) of results partition 0 is below its end (read_uncommitted). */
    private boolean isOpen() {
        long stable = kafka.endOffsets(results0.topic(), IsolationLevel.READ_COMMITTED).get(results0);
        long end = kafka.endOffsets(results0.topic(), IsolationLevel.READ_UNCOMMITTED).get(results0);
        return stable < end;
    }

    private static Open openOn(List<Open> found, TopicPartition tp) {
        List<Open> on = found.stream().filter(o -> o.partition().equals(tp)).toList();
        assertThat(on).as("open transactions on %s", tp).hasSize(1);
        return on.get(0);
    }

    @Test
    void aLiveTransactionOfTheBusesId_isNotAborted() throws Exception {
        KafkaProducer<String, byte[]> producer = openTransaction();
        HangingTransactions sweeper = sweeper();

        Open found = openOn(sweeper.find(), results0);
        assertThat(found.verdict()).isEqualTo(Verdict.LIVE);
        assertThat(found.coordinator()).contains(Producers.transactionalId(config)).containsIgnoringCase("ongoing")
                .contains(results0.toString());
        assertThat(sweeper.sweep()).isZero();
        assertThat(sweeper.aborted).hasValue(0);
        assertThat(isOpen()).as("still open after the sweep").isTrue();

        producer.commitTransaction(); // untouched: it commits, and the record is visible
        await().atMost(Duration.ofSeconds(30)).until(() -> !isOpen());
        await().atMost(Duration.ofSeconds(30)).until(() -> kafka.results().size() == 1);
    }

    @Test
    void anAbortOfATransactionJudgedHanging_endsIt_andTheStableOffsetReachesTheEnd() throws Exception {
        openTransaction();
        HangingTransactions sweeper = sweeper();
        Open found = openOn(sweeper.find(), results0);

        sweeper.abort(found); // what a sweep does with a transaction it judged hanging

        await().atMost(Duration.ofSeconds(30)).until(() -> !isOpen());
        assertThat(sweeper.aborted).hasValue(1);
        assertThat(sweeper.find()).noneMatch(o -> o.partition().equals(results0));
        assertThat(kafka.results()).as("the aborted record, to a read_committed reader").isEmpty();
    }

    @Test
    void aFencedProducersOpenTransaction_isAbortedByTheCoordinatorItself_notLeftHanging() throws Exception {
        openTransaction();
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, Producers.transactionalId(config));
        KafkaProducer<String, byte[]> next = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        closing.add(() -> next.close(Duration.ZERO));

        next.initTransactions(); // a higher epoch: the coordinator aborts the open transaction and writes its markers

        await().atMost(Duration.ofSeconds(30)).until(() -> !isOpen());
        assertThat(sweeper().find()).noneMatch(o -> o.partition().equals(results0));
    }

    @Test
    void anExactlyOnceBus_sweepsOnAThreadOfItsOwn_andClosesItAndItsAdminClientWithTheBus() throws Exception {
        KafkaBus bus = KafkaBus.builder().config(config.toBuilder().hangingTransactionSweep(Duration.ofSeconds(1)).build())
                .build();
        String thread = "toolbus-kafka-txsweep-" + config.clientId();
        ObjectName admin = new ObjectName("kafka.admin.client:type=app-info,id=" + config.clientId() + "-txsweep");
        MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        try {
            bus.start().block(Duration.ofSeconds(30));
            // the first sweep made the admin client
            await().atMost(Duration.ofSeconds(15)).until(() -> threadAlive(thread) && jmx.isRegistered(admin));
        } finally {
            bus.closeGracefully().block(Duration.ofSeconds(60));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !threadAlive(thread));
        assertThat(jmx.isRegistered(admin)).as("the sweep's admin client is closed").isFalse();
    }

    /**
     * The safety of writing a hanging transaction's records again: a report of a transaction open on a
     * partition whose marker was written meanwhile (the race of a sweep with a commit) aborts nothing and
     * writes nothing twice: the partition is asked again before the abort. (Without that check, Kafka 4.4
     * refuses the abort with the epoch the records had, but takes one with the producer's current epoch
     * as a marker ending nothing, and the records were written twice.)
     */
    @Test
    void aCommittedTransactionReportedAsHangingToTheSettlement_isNotWrittenTwice() throws Exception {
        HangingTransactions sweeper = sweeper();
        TransactionalSettlement settlement = new TransactionalSettlement(config, null, 0); // no marker grace
        closing.add(settlement::close);
        settlement.watch(sweeper);
        settlement.start();
        commit(settlement, "a", "b", "c");
        await().atMost(Duration.ofSeconds(30)).until(() -> kafka.results().size() == 3);
        ProducerState now = producerOn(results0);
        assertThat(now.currentTransactionStartOffset()).isEmpty();

        for (int epoch : new int[] {now.producerEpoch() - 1, now.producerEpoch()}) {
            // what a sweep that asked while the transaction was open would report, hanging by its rules
            ProducerState open = new ProducerState(now.producerId(), epoch, now.lastSequence(), now.lastTimestamp(),
                    now.coordinatorEpoch(), OptionalLong.of(0));
            settlement.ownOpen(List.of(new Open(results0, open, 0, Verdict.HANGING, "asked earlier", true, true)));
            settlement.tick(null, Map.of(), true);
        }
        assertThat(sweeper.aborted).as("aborts").hasValue(0);
        commit(settlement, "d"); // what would be written again goes first in the next transaction
        await().atMost(Duration.ofSeconds(30)).until(() -> kafka.results().size() >= 4);
        assertThat(kafka.results()).extracting(KafkaFixture::value).containsExactly("a", "b", "c", "d");
        assertThat(settlement.rewritten).hasValue(0);
    }

    /** Writes records with values {@code values} to results partition 0 in one transaction of {@code s}. */
    private void commit(TransactionalSettlement s, String... values) {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (String v : values) {
            records.add(new ProducerRecord<>(results0.topic(), results0.partition(), "s", v.getBytes(StandardCharsets.UTF_8)));
        }
        AtomicBoolean done = new AtomicBoolean();
        s.write(records).subscribe(null, e -> { }, () -> done.set(true));
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            s.tick(null, Map.of(), true);
            return done.get();
        });
    }

    private ProducerState producerOn(TopicPartition tp) throws Exception {
        try (Admin admin = Admin.create(HangingTransactions.properties(config))) {
            List<ProducerState> active = admin.describeProducers(List.of(tp)).partitionResult(tp)
                    .get(10, TimeUnit.SECONDS).activeProducers();
            assertThat(active).hasSize(1);
            return active.get(0);
        }
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }
}
