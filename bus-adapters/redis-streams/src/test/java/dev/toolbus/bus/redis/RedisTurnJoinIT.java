package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.lettuce.core.SetArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A turn that arrives at one instance while another instance runs it joins that run (the running-turn
 * claim in Redis): its tool runs once, one set of events is written, both entries are acknowledged. A
 * claim left by a dead instance expires, and the turn is then run and completed.
 */
class RedisTurnJoinIT {

    private RedisFixture redis;
    private final List<RedisStreamsBus> buses = new ArrayList<>();
    private final List<Disposable> loops = new ArrayList<>();
    private final AtomicInteger started = new AtomicInteger();
    private final Sinks.Empty<Void> gate = Sinks.empty();

    @BeforeEach
    void setUp() {
        redis = RedisFixture.require();
    }

    @AfterEach
    void tearDown() {
        gate.tryEmitEmpty();
        loops.forEach(Disposable::dispose);
        buses.forEach(b -> b.closeGracefully().block(Duration.ofSeconds(10)));
        if (redis != null) {
            redis.close();
        }
    }

    /** An instance: a bus with its own consumer name and an executor whose {@code slow} tool waits for the gate. */
    private RedisStreamsBus instance(String consumer, Duration claimMinIdle) {
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, redis.config().consumer(consumer)
                .claimMinIdle(claimMinIdle).claimInterval(Duration.ofMillis(200)).build());
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("waits for the test").build(),
                (a, c) -> Mono.fromRunnable(started::incrementAndGet).then(gate.asMono())
                        .then(Mono.fromSupplier(() -> ToolResult.text("ran " + started.get()))));
        ToolExecutor executor = ToolExecutor.builder().tool(slow).build();
        buses.add(bus);
        loops.add(executor.attach(bus));
        return bus;
    }

    private static String turn(String turnId) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":\"" + turnId
                + "\",\"calls\":[{\"tool_call_id\":\"c1\",\"name\":\"slow\",\"arguments\":{}}]}";
    }

    @Test
    void aDuplicateTakenByTheOtherInstanceWhileTheFirstRuns_joinsIt_andTheToolRunsOnce() {
        RedisStreamsBus a = instance("a", Duration.ofSeconds(30));
        redis.addCall(turn("t1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 1);
        a.pauseReading(); // the duplicate goes to b
        await().atMost(Duration.ofSeconds(10)).until(a::readingStopped);
        RedisStreamsBus b = instance("b", Duration.ofSeconds(30));
        redis.addCall(turn("t1")); // the client retried while a still runs it
        await().atMost(Duration.ofSeconds(10)).until(() -> b.inflight() == 1);
        RedisTurnLedger ledgerB = (RedisTurnLedger) b.turnLedger();
        assertThat(ledgerB.running()).isZero(); // b joined, it did not claim
        assertThat(redis.redis.get(b.cfg().doneMarkerKey("s", "t1"))).isEqualTo("c:a");
        gate.tryEmitEmpty();
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.pending() == 0);
        assertThat(started).hasValue(1);
        List<String> events = redis.eventsAt(redis.prefix + "results:s");
        assertThat(events).hasSize(2).noneMatch(e -> e.contains("replayed"));
        assertThat(events.get(0)).contains("\"content\":\"ran 1\"");
        assertThat(redis.redis.get(b.cfg().doneMarkerKey("s", "t1"))).startsWith("e:"); // the record, over the claim
        // and a later retry is answered from the record, by either instance
        a.resumeReading();
        redis.addCall(turn("t1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.eventsAt(redis.prefix + "results:s").size() == 4);
        assertThat(redis.eventsAt(redis.prefix + "results:s").subList(2, 4)).allMatch(e -> e.startsWith("{\"replayed\":true,"));
        assertThat(started).hasValue(1);
    }

    @Test
    void aClaimLeftByADeadInstanceExpires_andTheTurnIsThenRunAndCompleted() {
        gate.tryEmitEmpty(); // tools answer at once here
        RedisStreamsBus b = instance("b", Duration.ofMillis(1500));
        // an instance that died while running t2 left its claim
        redis.redis.set(b.cfg().doneMarkerKey("s", "t2"), "c:dead", SetArgs.Builder.px(1500));
        redis.addCall(turn("t2"));
        await().atMost(Duration.ofSeconds(5)).until(() -> b.inflight() == 1);
        assertThat(started).hasValue(0); // waiting for the dead owner
        await().atMost(Duration.ofSeconds(10)).until(() -> redis.pending() == 0);
        assertThat(started).hasValue(1);
        assertThat(redis.eventsAt(redis.prefix + "results:s")).hasSize(2).noneMatch(e -> e.contains("replayed"));
        assertThat(redis.redis.get(b.cfg().doneMarkerKey("s", "t2"))).startsWith("e:");
    }
}
