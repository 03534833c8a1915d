package dev.toolbus.bus.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two executor JVMs ({@link BusWorkerMain}) in one group; one is killed with SIGKILL, or stopped with
 * SIGTERM, in the middle of a flood of turns ({@code -Dtoolbus.killTurns}, 4,000 by default, 10,000
 * for docs/benchmarks.md). Every turn still gets its turn_completed, no turn's events are written
 * twice, and the group is healthy at the end; where the broker keeps a conversation on one instance
 * (Kafka's partitions), the turns of each conversation also stay in order.
 */
public abstract class AbstractBusKillRecoveryTests extends AbstractBusTests {

    protected static final int TURNS = Integer.getInteger("toolbus.killTurns", 4_000);
    protected static final int STREAMS = 50;

    /** The worker JVMs of this test. */
    protected Workers workers;

    /** Starts a worker instance of this name on this test's broker (via {@link #workers}). */
    protected abstract Process startWorker(String name) throws Exception;

    /**
     * Whether a conversation's turns stay in order across instances (Kafka: a conversation lives on one
     * partition); false where two instances of a group can run a conversation's turns at once (Redis).
     */
    protected abstract boolean keepsOrderAcrossInstances();

    @BeforeEach
    void workers() {
        workers = closeLater(new Workers(l -> l.contains("WARN") || l.contains("ERROR") || l.contains("took over") || l.contains("dev.toolbus")));
    }

    /** How one of two instances stopping mid-flood ended. */
    protected record Outcome(Map<String, List<Integer>> completed, long writtenTwice, double seconds) {
    }

    /** Per conversation, the turn numbers of its turn_completed events in the order written (replays included). */
    protected Map<String, List<Integer>> completed() {
        return Events.completedTurns(broker.events(Events.streams(STREAMS)), true);
    }

    /** Floods {@link #TURNS} turns over {@link #STREAMS} conversations from another thread. */
    protected Thread flood() {
        Thread producer = new Thread(() -> {
            for (int i = 0; i < TURNS; i++) {
                String stream = "s" + (i % STREAMS);
                broker.sendAsync(stream, EchoDriver.turn(stream, "t" + i, "v" + i));
            }
            broker.flush();
        }, "flood");
        producer.start();
        return producer;
    }

    /**
     * Two workers, a flood, then one stops (SIGKILL, or SIGTERM) once a third of the turns completed:
     * every turn completes, each conversation has all its turns, in order where the broker keeps it,
     * and the group is left healthy with one member. Returns what was written.
     */
    protected Outcome stopOneOfTwo(boolean kill) throws Exception {
        Process w1 = startWorker("w1");
        startWorker("w2");
        broker.awaitMembers(2);
        long start = System.nanoTime();
        Thread producer = flood();
        // a cheap count, so the stop comes about a third into the flood (two events per turn)
        List<String> streams = Events.streams(STREAMS);
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50))
                .until(() -> broker.eventCount(streams) >= 2L * TURNS / 3);
        long before = broker.eventCount(streams);
        if (kill) {
            w1.destroyForcibly(); // SIGKILL
        } else {
            w1.destroy(); // SIGTERM: its delivered turns finish and are settled, the rest go to w2
        }
        w1.waitFor();
        System.out.println(broker.name() + ": " + (kill ? "killed" : "stopped") + " w1 with " + before + " of "
                + 2L * TURNS + " events written");
        assertThat(before).as("events written when w1 stopped").isLessThan(2L * TURNS);
        producer.join();

        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1))
                .until(() -> Events.distinct(completed()) == TURNS && broker.settled());
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, List<Integer>> byStream = completed();
        Set<Integer> all = new HashSet<>();
        byStream.values().forEach(all::addAll);
        assertThat(all).as("every turn completed").hasSize(TURNS);
        assertThat(byStream).hasSize(STREAMS);
        byStream.forEach((stream, turns) -> {
            List<Integer> firstSeen = new ArrayList<>(new LinkedHashSet<>(turns));
            assertThat(firstSeen).as("turns of %s", stream).hasSize(TURNS / STREAMS);
            if (keepsOrderAcrossInstances()) {
                assertThat(firstSeen).as("turn order of %s", stream).isSorted();
            }
        });
        broker.awaitGroupHealthy(1);
        long twice = Events.total(byStream) - TURNS;
        System.out.printf("%s %s: %d turns in %.1f s with one stopped, %d turn_completed events written twice%n",
                broker.name(), kill ? "kill -9" : "SIGTERM", TURNS, seconds, twice);
        return new Outcome(byStream, twice, seconds);
    }

    @Test
    void killMinus9OfOneOfTwoInstances_losesNoTurn_andWritesNoTurnTwice() throws Exception {
        assertThat(stopOneOfTwo(true).writtenTwice()).as("turns written twice").isZero();
    }

    @Test
    void sigtermOfOneOfTwoInstancesMidFlood_letsItsTurnsFinish_andWritesNoTurnTwice() throws Exception {
        assertThat(stopOneOfTwo(false).writtenTwice()).as("turns written twice").isZero();
    }
}
