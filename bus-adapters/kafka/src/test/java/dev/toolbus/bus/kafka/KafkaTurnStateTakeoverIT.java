package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.kafka.KafkaTurnStateIT.StateFixture;
import dev.toolbus.bus.tck.Brokers;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.ControlRequests.AnswerOutcome;
import dev.toolbus.spi.CutKey;
import dev.toolbus.spi.GrantKey;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.RequestState;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnStateSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * Two instances' turn state on one state topic of the real broker, as a partition moves between them:
 * the next owner restores what the first recorded (started and finished calls, requests with their
 * answers, held answers, grants, cut results) before it decides anything, answers reach it before and
 * after the move, a stalled first owner is fenced, expired records are neither restored nor kept
 * (tombstones), and a flood of answers stays within its bounds.
 */
class KafkaTurnStateTakeoverIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Principal BUS = Principal.bus("kafka");
    private static final Principal MASTER = Principal.token("master").build();

    private final String prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private final String stream = "s-" + UUID.randomUUID();
    private final List<KafkaTurnState> open = new ArrayList<>();

    @AfterEach
    void close() {
        open.forEach(KafkaTurnState::close);
    }

    private KafkaBusConfig config(String instance, TurnStateSettings settings) {
        return StateFixture.config(Brokers.kafkaBootstrap(), prefix, settings).clientId(prefix + instance).build();
    }

    private KafkaTurnState owner(String instance, TurnStateSettings settings, Set<Integer> fenced) {
        KafkaTurnState s = StateFixture.state(config(instance, settings), null, fenced::add);
        open.add(s);
        return s;
    }

    private CallKey call(String turn, String id) {
        return CallKey.of(BUS, stream, turn, id);
    }

    private static ToolResultEvent result(CallKey k, String content) {
        return ToolResultEvent.builder().streamId(k.streamId()).turnId(k.turnId()).toolCallId(k.toolCallId())
                .name("tool").content(content).attempts(1).elapsedMs(3).build();
    }

    private ControlRequest approval(String turn, String... ids) {
        TurnKey t = TurnKey.of(BUS, stream, turn);
        List<ApprovalRequestEvent.Call> calls = new ArrayList<>();
        for (String id : ids) {
            calls.add(new ApprovalRequestEvent.Call(id, "delete_file", Risk.HIGH, "{}"));
        }
        String id = ControlRequest.approvalId(t, List.of(ids));
        return ControlRequest.approval(t, ApprovalRequestEvent.builder().streamId(stream).turnId(turn).approvalId(id)
                .expiresAtMs(System.currentTimeMillis() + 120_000).calls(calls).text("The model requested these tools").build());
    }

    private static ControlAnswer approve(ControlRequest r) {
        return ControlAnswer.approval(BUS, new ApprovalResponseEvent(r.streamId(), r.id(), ApprovalDecision.APPROVE),
                null);
    }

    @Test
    void theNextOwner_restoresEveryFacet_andAnswersReachIt_beforeAndAfterTheMove() {
        Set<Integer> fencedA = ConcurrentHashMap.newKeySet();
        KafkaTurnState a = owner("a", TurnStateSettings.DEFAULTS, fencedA);
        CallKey done = call("t1", "done");
        CallKey running = call("t1", "running");
        assertThat(a.journal().begin(List.of(done, running)).block(WAIT).values()).allMatch(CallJournal.Entry::isNew);
        List<OutboundEvent> events = List.of(result(done, "deleted a.txt"));
        a.journal().finish(Map.of(done, events)).block(WAIT);
        ControlRequest answered = approval("t2", "x");
        ControlRequest pending = approval("t2", "y");
        ControlRequest later = approval("t3", "z");
        a.requests().raise(answered).block(WAIT);
        a.requests().raise(pending).block(WAIT);
        assertThat(a.requests().answer(approve(answered), Duration.ofMinutes(2)).block(WAIT)).isEqualTo(AnswerOutcome.RECORDED);
        assertThat(a.requests().answer(approve(later), Duration.ofMinutes(2)).block(WAIT))
                .as("an answer before its request is held").isEqualTo(AnswerOutcome.HELD);
        GrantKey grant = GrantKey.of(BUS, stream, "u1", "delete_file");
        a.grants().grant(grant, Duration.ofMinutes(5)).block(WAIT);
        CutKey cut = CutKey.of(BUS, stream, "c9");
        a.cutResults().put(cut, "the whole text", 4).block(WAIT);

        // b takes every partition over (a died: it neither revoked nor wrote anything more)
        KafkaTurnState b = owner("b", TurnStateSettings.DEFAULTS, ConcurrentHashMap.newKeySet());
        List<String> signalled = new CopyOnWriteArrayList<>();
        Disposable listen = b.requests().answered().subscribe(signalled::add);
        try {
            CallKey fresh = call("t1", "fresh");
            Map<CallKey, CallJournal.Entry> seen = b.journal().begin(List.of(done, running, fresh)).block(WAIT);
            assertThat(seen.get(done).isFinished()).isTrue();
            assertThat(seen.get(done).events()).hasSize(1);
            assertThat(((ToolResultEvent) seen.get(done).events().get(0)).content()).isEqualTo("deleted a.txt");
            assertThat(seen.get(running).isStarted()).as("started on a, never finished: its outcome is unknown").isTrue();
            assertThat(seen.get(fresh).isNew()).isTrue();

            RequestState was = b.requests().find(answered.id()).block(WAIT);
            assertThat(was.status()).isEqualTo(RequestState.Status.ANSWERED);
            assertThat(was.answers().values()).singleElement().satisfies(x -> assertThat(x.principal()).isEqualTo(BUS));
            RequestState again = b.requests().raise(pending).block(WAIT);
            assertThat(again.status()).as("raised again by the re-run turn: same id, published again")
                    .isEqualTo(RequestState.Status.PENDING);
            assertThat(again.request().expiresAtMs()).isEqualTo(pending.expiresAtMs());
            RequestState applied = b.requests().raise(later).block(WAIT);
            assertThat(applied.answers()).as("the answer a held is applied by b").hasSize(1);

            // an answer after the move reaches the new owner (control events are keyed by stream) and is signalled
            assertThat(b.requests().answer(approve(pending), Duration.ofMinutes(2)).block(WAIT))
                    .isEqualTo(AnswerOutcome.RECORDED);
            await().atMost(WAIT).until(() -> signalled.contains(pending.id()));
            assertThat(b.requests().find(pending.id()).block(WAIT).status()).isEqualTo(RequestState.Status.ANSWERED);

            assertThat(b.grants().has(grant).block(WAIT)).isTrue();
            assertThat(b.grants().has(GrantKey.of(MASTER, stream, "u1", "delete_file")).block(WAIT))
                    .as("a grant binds to its principal").isFalse();
            assertThat(b.cutResults().get(cut).block(WAIT).text()).isEqualTo("the whole text");
        } finally {
            listen.dispose();
        }
        // a noticed nothing (it did not revoke): its fence saw b's markers
        await().atMost(WAIT).until(() -> fencedA.size() == StateFixture.PARTITIONS);
    }

    @Test
    void aStalledOwner_isFenced_andStartsNoCall_afterItsPartitionMoved() {
        Set<Integer> fencedA = ConcurrentHashMap.newKeySet();
        KafkaTurnState a = owner("a", TurnStateSettings.DEFAULTS, fencedA);
        CallKey before = call("t1", "before");
        assertThat(a.journal().begin(List.of(before)).block(WAIT).get(before).isNew()).isTrue();

        KafkaTurnState b = owner("b", TurnStateSettings.DEFAULTS, ConcurrentHashMap.newKeySet());
        await().atMost(WAIT).until(() -> fencedA.size() == StateFixture.PARTITIONS);

        CallKey after = call("t1", "after");
        assertThatThrownBy(() -> a.journal().begin(List.of(after)).block(WAIT))
                .as("the stalled owner does not start a call of a partition it lost");
        assertThatThrownBy(() -> a.journal().finish(Map.of(before, List.of(result(before, "late")))).block(WAIT))
                .as("nor records it finished");
        Map<CallKey, CallJournal.Entry> seen = b.journal().begin(List.of(before, after)).block(WAIT);
        assertThat(seen.get(before).isStarted()).isTrue();
        assertThat(seen.get(after).isNew()).as("the call the stalled owner tried is b's to run").isTrue();
    }

    @Test
    void expiredRecords_areNotRestored_andLeaveTombstones_forCompaction() {
        TurnStateSettings shortLived = TurnStateSettings.builder().recordTtl(Duration.ofSeconds(2))
                .cutResultsTtl(Duration.ofSeconds(2)).build();
        KafkaTurnState a = owner("a", shortLived, ConcurrentHashMap.newKeySet());
        CallKey gone = call("t1", "gone");
        a.journal().begin(List.of(gone)).block(WAIT);
        CutKey cut = CutKey.of(BUS, stream, "c1");
        a.cutResults().put(cut, "text", 2).block(WAIT);
        a.close(); // died before its sweep: the records stay in the topic
        open.remove(a);
        long expired = System.currentTimeMillis() + 2_100;
        await().atMost(WAIT).until(() -> System.currentTimeMillis() > expired);

        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        KafkaTurnState b = owner("b", shortLived, ConcurrentHashMap.newKeySet());
        b.bind(meters);
        assertThat(b.cutResults().get(cut).block(WAIT)).isNull();
        assertThat(meters.find("toolbus.state.records").tag("facet", "cut_results").gauge().value()).isZero();
        assertThat(b.journal().begin(List.of(gone)).block(WAIT).get(gone).isNew())
                .as("an expired started record is not restored").isTrue();
        String topic = config("b", shortLived).stateTopic();
        await().atMost(WAIT).untilAsserted(() -> {
            Map<String, byte[]> latest = latest(topic);
            assertThat(latest.keySet()).anyMatch(k -> StateKeys.facet(k) == StateKeys.CUT);
            latest.forEach((k, v) -> {
                if (StateKeys.facet(k) == StateKeys.CUT) {
                    assertThat(v).as("the expired cut result is a tombstone now, for compaction to remove").isNull();
                }
            });
        });
        // the journal key was written again by b's begin: its latest record is b's started record
        assertThat(latest(topic).get(StateKeys.key(StateKeys.JOURNAL, gone.hash()))).isNotNull();
    }

    @Test
    void aFloodOfEarlyAnswers_staysWithinTheHeldBounds_onTheOwnerAndAfterTheMove() {
        TurnStateSettings small = TurnStateSettings.builder().heldPerStream(3).heldBytesPerStream(8 * 1024).build();
        KafkaTurnState a = owner("a", small, ConcurrentHashMap.newKeySet());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        a.bind(meters);
        Map<AnswerOutcome, Integer> outcomes = new HashMap<>();
        for (int i = 0; i < 200; i++) {
            AnswerOutcome o = a.requests().answer(approve(approval("flood-" + i, "c")), Duration.ofMinutes(2)).block(WAIT);
            outcomes.merge(o, 1, Integer::sum);
        }
        assertThat(outcomes).containsEntry(AnswerOutcome.HELD, 3).containsEntry(AnswerOutcome.HOLD_FULL, 197);
        assertThat(meters.find("toolbus.state.records").tag("facet", "requests").gauge().value()).isEqualTo(3.0);
        assertThat(meters.find("toolbus.state.bytes").tag("facet", "requests").gauge().value()).isLessThanOrEqualTo(8 * 1024);

        SimpleMeterRegistry after = new SimpleMeterRegistry();
        KafkaTurnState b = owner("b", small, ConcurrentHashMap.newKeySet());
        b.bind(after);
        assertThat(after.find("toolbus.state.records").tag("facet", "requests").gauge().value())
                .as("the next owner restores the 3 held, nothing more").isEqualTo(3.0);
        assertThat(b.requests().answer(approve(approval("flood-x", "c")), Duration.ofMinutes(2)).block(WAIT))
                .isEqualTo(AnswerOutcome.HOLD_FULL);
    }

    @Test
    void aPartitionPastTheNextOwnersBounds_isNotTaken_andItsCallsThatAreNotRetrySafeDoNotStart() {
        KafkaTurnState a = owner("a", TurnStateSettings.DEFAULTS, ConcurrentHashMap.newKeySet());
        List<CallKey> started = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            started.add(call("t1", "c" + i));
        }
        a.journal().begin(started).block(WAIT);

        TurnStateSettings small = TurnStateSettings.builder().journalMaxEntries(4).build();
        KafkaTurnState b = owner("b", small, ConcurrentHashMap.newKeySet());
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        b.bind(meters);
        assertThat(meters.find("toolbus.state.records").tag("facet", "journal").gauge().value())
                .as("the 6 records of the stream's partition are not kept past the bound of 4").isZero();
        assertThatThrownBy(() -> b.journal().begin(List.of(call("t2", "new"))).block(WAIT))
                .as("rather than forget a started call (it would run again), the partition is not taken")
                .hasMessageContaining("not on this instance");
        String other = otherPartitionsStream(stream);
        CallKey elsewhere = CallKey.of(BUS, other, "t1", "c1");
        assertThat(b.journal().begin(List.of(elsewhere)).block(WAIT).get(elsewhere).isNew())
                .as("the other partitions are taken").isTrue();
    }

    /** A stream whose records land on another state partition than {@code stream}'s. */
    private static String otherPartitionsStream(String stream) {
        int p = StateKeys.partition(stream, StateFixture.PARTITIONS);
        for (int i = 0; ; i++) {
            String s = stream + "-" + i;
            if (StateKeys.partition(s, StateFixture.PARTITIONS) != p) {
                return s;
            }
        }
    }

    /** The latest value of every key of the topic (null: a tombstone), read from its start to its end. */
    private static Map<String, byte[]> latest(String topic) {
        Map<String, Object> p = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, Brokers.kafkaBootstrap(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        Map<String, byte[]> out = new HashMap<>();
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            c.partitionsFor(topic).forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = c.endOffsets(parts);
            long deadline = System.currentTimeMillis() + 20_000;
            while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp)) && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
                    out.put(r.key(), r.value());
                }
            }
        }
        return out;
    }
}
