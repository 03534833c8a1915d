package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The reader admits the turns it reads in the same script call as its finished-turn check: the claim is
 * made with the read, the executor's admission takes that answer, and an entry whose turn is never
 * admitted (the executor cannot decode it) gives its claim back when it is settled, so a corrected resend
 * of the same turn runs at once rather than after the claim's TTL.
 */
class RedisReadAdmissionIT {

    private RedisFixture redis;
    private RedisStreamsBus bus;
    private Disposable loop;
    private final AtomicInteger started = new AtomicInteger();
    private final Sinks.Empty<Void> gate = Sinks.empty();

    @BeforeEach
    void setUp() {
        redis = RedisFixture.require();
        // a claim TTL far longer than any wait below: nothing here may depend on a claim expiring
        bus = RedisStreamsBus.fromUri(redis.url, redis.config().consumer("a")
                .claimMinIdle(Duration.ofSeconds(60)).claimInterval(Duration.ofMillis(200)).build());
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("waits for the test").build(),
                (a, c) -> Mono.fromRunnable(started::incrementAndGet).then(gate.asMono())
                        .then(Mono.fromSupplier(() -> ToolResult.text("ran " + started.get()))));
        loop = ToolExecutor.builder().tool(slow).build().attach(bus);
    }

    @AfterEach
    void tearDown() {
        gate.tryEmitEmpty();
        if (loop != null) {
            loop.dispose();
        }
        if (bus != null) {
            bus.closeGracefully().block(Duration.ofSeconds(10));
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static String turn(String turnId) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"" + turnId
                + "\",\"calls\":[{\"tool_call_id\":\"c1\",\"name\":\"slow\",\"arguments\":{}}]}";
    }

    @Test
    void aTurnReadIsClaimedByThisInstance_itsAdmissionTakesTheAnswer_andItRunsOnce() {
        RedisTurnLedger ledger = (RedisTurnLedger) bus.turnLedger();
        redis.addCall(turn("t1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1);
        assertThat(redis.redis.get(bus.cfg().doneMarkerKey("s", "t1"))).isEqualTo("c:a");
        assertThat(bus.isTurnDone("s", "t1").block(Duration.ofSeconds(5))).isFalse(); // a claim is not a record
        assertThat(ledger.running()).isEqualTo(1);
        assertThat(ledger.early()).isZero(); // taken by the executor's admission
        gate.tryEmitEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.pending() == 0);
        assertThat(started).hasValue(1);
        assertThat(redis.eventsAt(redis.prefix + "results:s")).hasSize(2).noneMatch(e -> e.contains("replayed"));
        assertThat(redis.redis.get(bus.cfg().doneMarkerKey("s", "t1"))).startsWith("e:"); // the record, over the claim
        assertThat(bus.isTurnDone("s", "t1").block(Duration.ofSeconds(5))).isTrue();
        assertThat(ledger.running()).isZero();
    }

    @Test
    void twoEntriesOfOneTurnInOneRead_runItOnce_theSecondJoinsTheFirst() {
        RedisTurnLedger ledger = (RedisTurnLedger) bus.turnLedger();
        bus.pauseReading();
        await().atMost(Duration.ofSeconds(10)).until(bus::readingStopped);
        redis.addCall(turn("t2"));
        redis.addCall(turn("t2")); // the client sent it twice: both arrive in the same read
        bus.resumeReading();
        await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1 && bus.inflight() == 2);
        gate.tryEmitEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.pending() == 0);
        assertThat(started).hasValue(1);
        List<String> events = redis.eventsAt(redis.prefix + "results:s");
        assertThat(events).hasSize(2).noneMatch(e -> e.contains("replayed"));
        assertThat(redis.redis.get(bus.cfg().doneMarkerKey("s", "t2"))).startsWith("e:");
        assertThat(ledger.early()).isZero();
        assertThat(ledger.running()).isZero();
    }

    @Test
    void settlingAnOlderCopyOfATurn_leavesTheAnswerOfACopyReadSince() throws Exception {
        RedisTurnLedger ledger = (RedisTurnLedger) bus.turnLedger();
        TurnKey t = TurnKey.of(redis.config().build().principal(), "s", "t4");
        try (StatefulRedisConnection<String, byte[]> c = redis.client.connect(RedisStreamsBus.CODEC)) {
            RedisTurnLedger.Early[] first = new RedisTurnLedger.Early[1];
            assertThat(ledger.admitRead(c.async(), List.of(t), new boolean[] {true}, first).get(5, TimeUnit.SECONDS))
                    .containsExactly(1L);
            // its admission took the answer; the turn failed and gave its claim back
            assertThat(ledger.admit(t).block(Duration.ofSeconds(5))).isInstanceOf(TurnLedger.Admission.Run.class);
            ledger.release(t);
            await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis.exists(bus.cfg().doneMarkerKey(t)) == 0);
            RedisTurnLedger.Early[] second = new RedisTurnLedger.Early[1];
            assertThat(ledger.admitRead(c.async(), List.of(t), new boolean[] {true}, second).get(5, TimeUnit.SECONDS))
                    .containsExactly(1L);
            ledger.unadmitted(first[0]); // the first copy's entry is acknowledged late
            assertThat(ledger.early()).isEqualTo(1);
            assertThat(redis.redis.get(bus.cfg().doneMarkerKey(t))).isEqualTo("c:a");
            ledger.unadmitted(second[0]); // the second copy's entry, never admitted: its claim goes back
            assertThat(ledger.early()).isZero();
            await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis.exists(bus.cfg().doneMarkerKey(t)) == 0);
        }
    }

    @Test
    void anEntryTheExecutorCannotDecode_givesItsClaimBack_andTheCorrectedResendRunsAtOnce() {
        gate.tryEmitEmpty(); // the tool answers at once here
        RedisTurnLedger ledger = (RedisTurnLedger) bus.turnLedger();
        // its ids can be read, so the reader claims the turn; its calls cannot be decoded
        redis.addCall("{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"t3\",\"calls\":5}");
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.pending() == 0);
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.redis.exists(bus.cfg().doneMarkerKey("s", "t3")) == 0);
        assertThat(ledger.early()).isZero();
        assertThat(ledger.running()).isZero();
        redis.addCall(turn("t3"));
        await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1 && redis.pending() == 0);
        assertThat(redis.eventsAt(redis.prefix + "results:s")).anyMatch(e -> e.contains("\"content\":\"ran 1\""));
        assertThat(redis.redis.get(bus.cfg().doneMarkerKey("s", "t3"))).startsWith("e:");
    }
}
