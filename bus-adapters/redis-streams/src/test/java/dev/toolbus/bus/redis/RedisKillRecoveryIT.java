package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.tck.AbstractBusKillRecoveryTests;
import dev.toolbus.bus.tck.BrokerFixture;
import dev.toolbus.bus.tck.EchoDriver;
import dev.toolbus.bus.tck.Events;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Kill recovery on Redis. Per-conversation order is not part of the two-instance contract here: a
 * consumer group has no key affinity, so consecutive turns of a conversation can run on both
 * instances at once (docs/buses.md, "Ordering on Redis"). With the only instance killed and started
 * again under its consumer name, order holds too.
 */
class RedisKillRecoveryIT extends AbstractBusKillRecoveryTests {

    private RedisFixture redis;

    @Override
    protected BrokerFixture openBroker() {
        return redis = RedisFixture.require();
    }

    @Override
    protected Process startWorker(String name) throws Exception {
        return workers.start(name, RedisWorkerBus.class, List.of(redis.url, redis.prefix, name));
    }

    @Override
    protected boolean keepsOrderAcrossInstances() {
        return false;
    }

    /**
     * The only instance killed with SIGKILL mid-flood and started again under its consumer name: it
     * reads its own pending entries first, so per conversation the order holds too (with one instance
     * in the group, as the Redis contract says), and no turn is lost or written twice.
     */
    @Test
    void killMinus9OfTheOnlyInstance_andItsRestart_loseNoTurn_repeatNone_andKeepOrder() throws Exception {
        Process w1 = startWorker("w1");
        for (int i = 0; i < TURNS; i++) {
            String stream = "s" + (i % STREAMS);
            redis.sendAsync(stream, EchoDriver.turn(stream, "t" + i, "v" + i));
        }
        redis.flush();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
                .until(() -> redis.redis.xlen(redis.prefix + "results:s0") >= 2L * TURNS / STREAMS / 3);
        w1.destroyForcibly(); // SIGKILL
        w1.waitFor();
        long before = Events.distinct(completed());
        System.out.println("killed the only instance after " + before + " completed turns");
        assertThat(before).isLessThan(TURNS);
        startWorker("w1");

        await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofSeconds(1))
                .until(() -> Events.distinct(completed()) == TURNS && redis.pending() == 0);
        Map<String, List<Integer>> byStream = completed();
        byStream.forEach((stream, turns) -> assertThat(turns).as("turns of %s", stream)
                .hasSize(TURNS / STREAMS).doesNotHaveDuplicates().isSorted());
        assertThat(redis.groupHealthy()).as("nothing pending, lag 0").isTrue();
    }
}
