package dev.toolbus.bus.kafka;

import static dev.toolbus.bus.kafka.HangingTransactions.Verdict.FOREIGN;
import static dev.toolbus.bus.kafka.HangingTransactions.Verdict.HANGING;
import static dev.toolbus.bus.kafka.HangingTransactions.Verdict.LIVE;
import static dev.toolbus.bus.kafka.HangingTransactions.Verdict.YOUNG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.bus.kafka.HangingTransactions.Verdict;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The decision of {@link HangingTransactions} (no broker) and its settings. */
class HangingTransactionsTest {

    private static final String OWN = "c1-tx";
    private static final TopicPartition TP = new TopicPartition("toolbus.results", 1);
    private static final long NOW = 10_000_000;
    private static final long MIN_AGE = 30_000;
    private static final long PRODUCER = 139;

    /** Producer 139 at {@code epoch}, its transaction open from offset 269, last written {@code ageMs} ago. */
    private static ProducerState open(int epoch, long ageMs) {
        return new ProducerState(PRODUCER, epoch, 12, NOW - ageMs, OptionalInt.of(0), OptionalLong.of(269));
    }

    private static TransactionDescription coordinator(TransactionState state, long producerId, int epoch,
                                                      Set<TopicPartition> partitions) {
        return new TransactionDescription(1, state, producerId, epoch, 10_000, OptionalLong.empty(), partitions);
    }

    private static Verdict decide(ProducerState p, String transactionalId, TransactionDescription d) {
        return HangingTransactions.decide(TP, p, transactionalId, d, NOW, MIN_AGE, OWN);
    }

    @Test
    void aTransactionOpenForLessThanTheMinimumAge_isYoung_whatever_theCoordinatorSays() {
        assertThat(decide(open(5, MIN_AGE - 1), OWN, coordinator(TransactionState.COMPLETE_COMMIT, PRODUCER, 7, Set.of())))
                .isEqualTo(YOUNG);
        assertThat(decide(open(5, 1_000), null, null)).isEqualTo(YOUNG);
    }

    @Test
    void theCoordinatorHavingItOpenWithThePartition_isLive() {
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.ONGOING, PRODUCER, 5, Set.of(TP))))
                .isEqualTo(LIVE);
        // transaction version 2: the coordinator bumped the epoch for the markers it is writing now
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.PREPARE_COMMIT, PRODUCER, 6, Set.of(TP))))
                .isEqualTo(LIVE);
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.PREPARE_ABORT, PRODUCER, 5, Set.of(TP))))
                .isEqualTo(LIVE);
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.UNKNOWN, PRODUCER, 5, Set.of(TP))))
                .as("a state this client does not know is left alone").isEqualTo(LIVE);
    }

    @Test
    void aHigherEpochAtTheCoordinator_isHanging() {
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.ONGOING, PRODUCER, 6, Set.of(TP))))
                .isEqualTo(HANGING);
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.PREPARE_COMMIT, PRODUCER, 7, Set.of(TP))))
                .isEqualTo(HANGING);
    }

    @Test
    void theCaseKafkaFaultsItFound_completeCommitAtAHigherEpochWithoutPartitions_isHanging() {
        assertThat(decide(open(5, 120_000), OWN, coordinator(TransactionState.COMPLETE_COMMIT, PRODUCER, 7, Set.of())))
                .isEqualTo(HANGING);
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.COMPLETE_ABORT, PRODUCER, 5, Set.of())))
                .isEqualTo(HANGING);
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.EMPTY, PRODUCER, 5, Set.of())))
                .isEqualTo(HANGING);
    }

    @Test
    void anOngoingTransactionWithoutThisPartition_orOfAnotherProducerId_orNotDescribed_isHanging() {
        TopicPartition other = new TopicPartition("toolbus.results", 2);
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.ONGOING, PRODUCER, 5, Set.of(other))))
                .isEqualTo(HANGING);
        assertThat(decide(open(5, MIN_AGE), OWN, coordinator(TransactionState.ONGOING, 140, 5, Set.of(TP))))
                .isEqualTo(HANGING);
        assertThat(decide(open(5, MIN_AGE), OWN, null)).isEqualTo(HANGING);
    }

    @Test
    void aProducerIdNoCoordinatorLists_isHanging_onceOpenLongerThanAnyTransactionTimeout() {
        long unlisted = HangingTransactions.UNLISTED_MIN_AGE.toMillis();
        assertThat(decide(open(5, unlisted), null, null)).isEqualTo(HANGING);
        assertThat(decide(open(5, unlisted - 1), null, null)).isEqualTo(YOUNG);
    }

    @Test
    void anotherTransactionalIds_transaction_isNeverTouched() {
        assertThat(decide(open(5, 3_600_000), "other-app-tx", coordinator(TransactionState.COMPLETE_COMMIT, PRODUCER, 7,
                Set.of()))).isEqualTo(FOREIGN);
        assertThat(decide(open(5, 3_600_000), "c1-tx-other", null)).isEqualTo(FOREIGN);
    }

    @Test
    void theMinimumAge_isTwiceTheTransactionTimeout_atLeastThirtySeconds() {
        assertThat(HangingTransactions.minAge(KafkaBusConfig.defaults())).isEqualTo(Duration.ofSeconds(30));
        assertThat(HangingTransactions.minAge(KafkaBusConfig.builder().producerProperty("transaction.timeout.ms", "60000")
                .build())).isEqualTo(Duration.ofMinutes(2));
    }

    @Test
    void theSweptTopics_areThoseTheBusWritesInItsTransactions() {
        KafkaBusConfig c = KafkaBusConfig.builder().callsTopic("a.calls").resultsTopic("a.results").deadLetterTopic("a.dead")
                .build();
        assertThat(HangingTransactions.topics(c)).containsExactly("a.results", "a.dead", "a.turns", "a.state");
        assertThat(HangingTransactions.topics(c.toBuilder().turnLedgerWindow(Duration.ZERO).turnState(false).build()))
                .containsExactly("a.results", "a.dead");
    }

    @Test
    void theSweepInterval_followsTheTransactionTimeout_zeroTurnsItOff_andNegativeOrTinyIsRefused() {
        assertThat(KafkaBusConfig.defaults().hangingTransactionSweep()).isEqualTo(Duration.ofSeconds(20));
        KafkaBusConfig longTx = KafkaBusConfig.builder().producerProperty("transaction.timeout.ms", "60000").build();
        assertThat(longTx.hangingTransactionSweep()).isEqualTo(Duration.ofMinutes(2));
        assertThat(KafkaBusConfig.builder().producerProperty("transaction.timeout.ms", "1000").build()
                .hangingTransactionSweep()).isEqualTo(Duration.ofSeconds(10));
        KafkaBusConfig off = KafkaBusConfig.builder().clientId("c1").hangingTransactionSweep(Duration.ZERO).build();
        assertThat(off.hangingTransactionSweep()).isZero();
        assertThat(off.toBuilder().build()).isEqualTo(off);
        assertThat(off).isNotEqualTo(off.toBuilder().hangingTransactionSweep(Duration.ofSeconds(20)).build());
        assertThat(longTx.toBuilder().build().hangingTransactionSweep()).isEqualTo(Duration.ofMinutes(2));
        assertThatThrownBy(() -> KafkaBusConfig.builder().hangingTransactionSweep(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hangingTransactionSweep");
        assertThatThrownBy(() -> KafkaBusConfig.builder().hangingTransactionSweep(Duration.ofMillis(500)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("hangingTransactionSweep");
    }

    @Test
    void theCounter_isRegisteredExactlyOnce_andNotWhenTheSweepIsOff() {
        String name = "toolbus.bus.hanging_transactions_aborted";
        SimpleMeterRegistry exactlyOnce = new SimpleMeterRegistry();
        KafkaBus bus = KafkaBus.builder().meterRegistry(exactlyOnce)
                .config(KafkaBusConfig.builder().bootstrapServers("127.0.0.1:9").clientId("c1").build()).build();
        bus.closeGracefully().block(Duration.ofSeconds(30));
        assertThat(exactlyOnce.get(name).tags("bus", "kafka", "topic", "toolbus.calls", "group", "toolbus", "client", "c1")
                .functionCounter().count()).isZero();

        SimpleMeterRegistry off = new SimpleMeterRegistry();
        KafkaBus.builder().meterRegistry(off).config(KafkaBusConfig.builder().bootstrapServers("127.0.0.1:9")
                .hangingTransactionSweep(Duration.ZERO).build()).build().closeGracefully().block(Duration.ofSeconds(30));
        SimpleMeterRegistry atLeastOnce = new SimpleMeterRegistry();
        KafkaBus.builder().meterRegistry(atLeastOnce).config(KafkaBusConfig.builder().bootstrapServers("127.0.0.1:9")
                .delivery(KafkaDelivery.AT_LEAST_ONCE).build()).build().closeGracefully().block(Duration.ofSeconds(30));
        assertThat(off.find(name).meter()).isNull();
        assertThat(atLeastOnce.find(name).meter()).isNull();
    }

    @Test
    void aClosedSweeper_startsNothing_andSweepsNothing() {
        HangingTransactions h = new HangingTransactions(KafkaBusConfig.builder().bootstrapServers("127.0.0.1:9").build());
        h.close();
        h.start();
        h.close();
        assertThatThrownBy(h::sweep).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
