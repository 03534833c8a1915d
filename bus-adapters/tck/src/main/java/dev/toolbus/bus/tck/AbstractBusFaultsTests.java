package dev.toolbus.bus.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Faults in the middle of a flood of turns: the connections between an instance and the broker cut,
 * stalled and slowed (an in-test TCP proxy, {@link FaultProxy}); the broker restarted; one of two
 * instances stalled past its take-over time while it holds turns. Afterwards no turn is lost, none is
 * completed twice, each conversation's turns are in order (where one instance runs them, or the
 * broker keeps a conversation on one instance), and the group is healthy.
 */
public abstract class AbstractBusFaultsTests extends AbstractBusTests {

    protected static final int TURNS = 1_200;
    protected static final int STREAMS = 12;
    private static final Duration TAKE_OVER = Duration.ofSeconds(3);

    /** A proxy to the broker that a bus built {@link BusOptions.Builder#through through} it uses for every connection. */
    protected abstract FaultProxy startProxy() throws Exception;

    /** How many connections an instance opens again after a cut at least (Redis: its two; Kafka: one). */
    protected abstract int reconnectsAfterACut();

    /**
     * Whether a stalled connection stops the turns from completing at once (Redis); false when writes
     * already on their way may still become visible after the stall began (Kafka's transactions).
     */
    protected abstract boolean stallStopsCompletionsAtOnce();

    /**
     * Whether a bus may answer a turn it read again after a cut with a replay (Redis: entries a lost
     * read delivered are new to the consumer); false when a connection fault never yields a replay.
     */
    protected abstract boolean mayReplayAfterAConnectionFault();

    /**
     * Whether a conversation's turns stay in order when one of two instances is taken over (Kafka:
     * its partition moves whole); false where the two share a conversation's turns (Redis).
     */
    protected abstract boolean keepsOrderAcrossInstances();

    /**
     * The instance of the restart test: by default one that takes over idle work after 3 s (Redis
     * claims entries a lost connection left idle); a broker whose take-over time is a session timeout
     * keeps its default, so the restart does not also expire the instance's session.
     */
    protected BusOptions restartOptions() {
        return BusOptions.named("r1").takeOverAfter(TAKE_OVER).build();
    }

    /** Checks, while the stalled instance is out, that the broker took its work over (Kafka: the group has one member). */
    protected void assertTakenOver() {
    }

    private Map<String, List<Integer>> completed(boolean withReplays) {
        return Events.completedTurns(broker.events(Events.streams(STREAMS)), withReplays);
    }

    private int total() {
        return (int) Events.total(completed(false));
    }

    protected void flood(int from, int to) {
        for (int i = from; i < to; i++) {
            String stream = "s" + (i % STREAMS);
            broker.sendAsync(stream, EchoDriver.turn(stream, "t" + i, "v" + i));
        }
        broker.flush();
    }

    private ToolBus instance(BusOptions options) {
        return instance(options, Tools.function("echo", "Returns its arguments", json -> json));
    }

    private ToolBus instance(BusOptions options, ToolSpec echo) {
        ToolExecutor executor = closeLater(ToolExecutor.builder().tool(echo).build());
        ToolBus bus = broker.bus(options);
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(30))); // before its executor
        executor.attach(bus);
        return bus;
    }

    /**
     * Waits for every turn of {@code 0..turns} to complete, then asserts each conversation has its
     * turns once (in order when {@code inOrder}), and the group is healthy with {@code members}.
     */
    protected void assertEveryTurnOnce(int turns, boolean inOrder, int members) {
        try {
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                    .until(() -> total() >= turns && broker.settled());
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("after 120 s: " + stuck(turns), e);
        }
        Map<String, List<Integer>> byStream = completed(false);
        assertThat(byStream).hasSize(STREAMS);
        byStream.forEach((stream, t) -> {
            assertThat(t).as("turns of %s", stream).hasSize(turns / STREAMS).doesNotHaveDuplicates();
            if (inOrder) {
                assertThat(t).as("order of %s", stream).isSorted();
            }
        });
        broker.awaitGroupHealthy(members);
    }

    /** What a flood that did not finish left: the turns missing per conversation, and the broker's state. */
    private String stuck(int turns) {
        Map<String, List<Integer>> byStream = completed(true);
        StringBuilder out = new StringBuilder().append(Events.total(byStream)).append(" of ").append(turns)
                .append(" turns completed (replays included)");
        for (int s = 0; s < STREAMS; s++) {
            Set<Integer> seen = new HashSet<>(byStream.getOrDefault("s" + s, List.of()));
            List<Integer> missing = new java.util.ArrayList<>();
            for (int i = s; i < turns; i += STREAMS) {
                if (!seen.contains(i)) {
                    missing.add(i);
                }
            }
            if (!missing.isEmpty()) {
                out.append("; s").append(s).append(" misses ").append(missing.size()).append(", first ")
                        .append(missing.subList(0, Math.min(5, missing.size())));
            }
        }
        try {
            out.append("; broker: ").append(broker.progress()).append("; dead letters: ").append(broker.deadLetters().size());
        } catch (RuntimeException e) { // a broker in trouble: say so, and keep what was found
            out.append("; the broker could not be asked: ").append(e);
        }
        return out.toString();
    }

    /** Waits until no turn completes for the given time. */
    private void awaitNoProgressFor(Duration quiet) {
        AtomicInteger last = new AtomicInteger(-1);
        await().during(quiet).atMost(quiet.multipliedBy(5)).pollInterval(Duration.ofMillis(200))
                .until(() -> last.getAndSet(total()) == last.get());
    }

    @Test
    void cutStalledAndSlowConnections_loseNoTurn_repeatNone_keepOrder_andLeaveTheGroupHealthy() throws Exception {
        FaultProxy proxy = closeLater(startProxy());
        ToolBus bus = instance(BusOptions.named("p1").through(proxy).takeOverAfter(TAKE_OVER).build());
        closeLater(() -> proxy.stall(false)); // first thing after the test: the bus can close
        flood(0, TURNS);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 5);
        long before = proxy.accepted();
        proxy.cut();
        await().atMost(Duration.ofSeconds(30)).until(() -> proxy.accepted() >= before + reconnectsAfterACut());
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= 2 * TURNS / 5);
        proxy.stall(true); // 2 s, shorter than the take-over time: the instance keeps its work
        int atStall = total();
        if (stallStopsCompletionsAtOnce()) {
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> total() == atStall);
        } else {
            awaitNoProgressFor(Duration.ofSeconds(2));
        }
        proxy.stall(false);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= 3 * TURNS / 5);
        proxy.slow(Duration.ofMillis(2));
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= 4 * TURNS / 5);
        proxy.slow(Duration.ZERO);

        assertEveryTurnOnce(TURNS, true, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> broker.inflight(bus) == 0);
        if (!mayReplayAfterAConnectionFault()) {
            assertThat(Events.total(completed(true))).as("turn_completed events, replays included").isEqualTo(TURNS);
        }
    }

    /** The broker stopped (its data kept) and started again on the same port while turns are still published. */
    @Test
    void aBrokerRestartMidFlood_losesNoTurn_repeatsNone_andKeepsOrder() throws Exception {
        ToolBus bus = instance(restartOptions());
        flood(0, TURNS / 2);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 4);
        int atStop = total(); // the second half of the flood is not sent yet
        Process restart = broker.restartBroker();
        for (int i = TURNS / 2; i < TURNS; i++) { // while the broker stops and starts: a client retries what failed
            String stream = "s" + (i % STREAMS);
            broker.sendDuringRestart(stream, EchoDriver.turn(stream, "t" + i, "v" + i));
        }
        broker.flush();
        assertThat(restart.waitFor()).isZero();
        System.out.printf("%s restarted: %d of %d turns completed when it was stopped, %d when it was back%n",
                broker.name(), atStop, TURNS, total());
        assertEveryTurnOnce(TURNS, true, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> broker.inflight(bus) == 0);
    }

    /**
     * One of two instances stalled (its connections, through the proxy) past its take-over time while it
     * runs turns: the other instance takes those turns over and runs them again, with the same
     * idempotency key. When the stalled one comes back, its late writes add nothing (Redis: its result
     * writes find the finished-turn records; Kafka: its transaction is fenced), so each turn's events are
     * there once; both instances then take turns again.
     */
    @Test
    void anInstanceStalledPastItsTakeOver_isReplaced_andItsLateWritesAddNothing() throws Exception {
        FaultProxy proxy = closeLater(startProxy());
        // arguments of the turns each instance ran -> the idempotency key its tool saw
        Map<String, String> ranOnStalled = new ConcurrentHashMap<>();
        Map<String, String> ranOnLive = new ConcurrentHashMap<>();
        AtomicReference<CompletableFuture<Void>> gate = new AtomicReference<>(CompletableFuture.completedFuture(null));
        ToolDefinition echo = ToolDefinition.builder("echo").description("echo").build();
        ToolBus stalled = instance(BusOptions.named("stalled").through(proxy).takeOverAfter(TAKE_OVER).build(),
                new ToolSpec(echo, (args, ctx) -> Mono.fromFuture(gate.get()).then(Mono.fromSupplier(() -> {
                    ranOnStalled.put(args.json(), ctx.idempotencyKey());
                    return ToolResult.text(args.json());
                }))));
        ToolBus live = instance(BusOptions.named("live").takeOverAfter(TAKE_OVER).build(),
                new ToolSpec(echo, (args, ctx) -> Mono.fromSupplier(() -> {
                    ranOnLive.put(args.json(), ctx.idempotencyKey());
                    return ToolResult.text(args.json());
                })));
        closeLater(() -> proxy.stall(false)); // first thing after the test: the stalled bus can close
        broker.awaitMembers(2);
        flood(0, TURNS / 4);
        await().atMost(Duration.ofSeconds(60)).until(() -> total() >= TURNS / 4);
        CompletableFuture<Void> held = new CompletableFuture<>();
        gate.set(held); // the stalled instance's next turns wait in its tool
        flood(TURNS / 4, TURNS); // sent after the gate: both instances surely take some of them
        await().atMost(Duration.ofSeconds(30)).until(() -> broker.inflight(stalled) > 0);
        proxy.stall(true);
        int inFlight = broker.inflight(stalled);
        held.complete(null); // they finish while the instance cannot reach the broker

        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> total() >= TURNS);
        assertTakenOver();
        Set<String> ranTwice = new HashSet<>(ranOnStalled.keySet());
        ranTwice.retainAll(ranOnLive.keySet());
        System.out.println("stalled an instance with " + inFlight + " turns in flight; " + ranTwice.size()
                + " turns ran on both instances");
        assertThat(ranTwice).as("turns the stalled instance ran and the live one ran again").isNotEmpty();
        // a tool with side effects sees the same key on both runs of a call, so it can act once
        ranTwice.forEach(call -> assertThat(ranOnLive.get(call)).as("key of %s", call).isEqualTo(ranOnStalled.get(call)));
        proxy.stall(false); // its late writes and settlements reach the broker now

        assertEveryTurnOnce(TURNS, keepsOrderAcrossInstances(), 2); // the stalled instance is back in the group
        await().atMost(Duration.ofSeconds(30)).until(() -> broker.inflight(stalled) == 0 && broker.inflight(live) == 0);
        long events = broker.events(Events.streams(STREAMS)).values().stream().mapToLong(List::size).sum();
        assertThat(events).as("a tool_result and a turn_completed per turn, once").isEqualTo(2L * TURNS);
        flood(TURNS, TURNS + 120); // and both take turns again
        assertEveryTurnOnce(TURNS + 120, keepsOrderAcrossInstances(), 2);
    }
}
