package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.tck.AbstractBusFaultsTests;
import dev.toolbus.bus.tck.BrokerFixture;
import dev.toolbus.bus.tck.EchoDriver;
import dev.toolbus.bus.tck.FaultProxy;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Faults between toolbus and Redis (the shared suite), and one cut at the worst moment: while a
 * blocking read's answer is on the wire.
 */
class RedisFaultsIT extends AbstractBusFaultsTests {

    private RedisFixture redis;

    @Override
    protected BrokerFixture openBroker() {
        return redis = RedisFixture.require();
    }

    @Override
    protected FaultProxy startProxy() throws Exception {
        URI uri = URI.create(redis.url);
        return FaultProxy.start(uri.getHost(), uri.getPort());
    }

    /** Its command connection and its blocking read connection. */
    @Override
    protected int reconnectsAfterACut() {
        return 2;
    }

    @Override
    protected boolean stallStopsCompletionsAtOnce() {
        return true;
    }

    /** Entries a read returned into a cut connection are read again as new to the consumer (a finished one is replayed). */
    @Override
    protected boolean mayReplayAfterAConnectionFault() {
        return true;
    }

    @Override
    protected boolean keepsOrderAcrossInstances() {
        return false;
    }

    private List<String> completedOfS() {
        return redis.events("s").stream()
                .filter(e -> e.contains("\"turn_completed\""))
                .map(e -> e.replaceAll(".*\"turn_id\":\"([^\"]+)\".*", "$1"))
                .toList();
    }

    private boolean readBlockedInRedis() {
        return readsBlockedInRedis() > 0;
    }

    private long readsBlockedInRedis() {
        return redis.redis.clientList().lines().filter(l -> l.contains("cmd=xreadgroup") && l.contains("flags=b")).count();
    }

    /**
     * The race behind the stalled-instance test's 46 turns written twice under load: a read that Redis
     * answered while the instance was stalled delivers entries that another instance took over, ran and
     * recorded meanwhile. When the answer finally arrives, those entries look new and their turns
     * finished, which is what a client's resent turn looks like, so their recorded events were appended
     * again as replays. An entry that is no longer pending for the consumer that read it is left alone.
     */
    @Test
    void aReadAnswerHeldPastItsTakeOver_doesNotReplayTheTurnsTheOtherInstanceRan() throws Exception {
        FaultProxy proxy = closeLater(startProxy());
        ToolExecutor stalledExecutor = closeLater(ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).build());
        RedisStreamsBus stalled = RedisStreamsBus.fromUri("redis://127.0.0.1:" + proxy.port(), redis.config()
                .consumer("stalled").resultsMaxLen(0).blockTimeout(Duration.ofSeconds(10))
                .claimMinIdle(Duration.ofSeconds(60)).claimInterval(Duration.ofSeconds(30)).build());
        closeLater(() -> stalled.closeGracefully().block(Duration.ofSeconds(20)));
        closeLater(() -> proxy.stall(false));
        stalledExecutor.attach(stalled);
        redis.addCall(EchoDriver.turn("s", "warm", "w"));
        await().atMost(Duration.ofSeconds(20)).until(() -> completedOfS().equals(List.of("warm")));
        await().atMost(Duration.ofSeconds(20)).until(this::readBlockedInRedis);

        proxy.stall(true);
        redis.addCall(EchoDriver.turn("s", "first", "1"));
        // Redis delivered it to the blocked read; the answer waits in the stalled proxy
        await().atMost(Duration.ofSeconds(20)).until(() -> redis.pending() == 1);
        ToolExecutor liveExecutor = closeLater(ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).build());
        RedisStreamsBus live = RedisStreamsBus.fromUri(redis.url, redis.config().consumer("live").resultsMaxLen(0)
                .claimMinIdle(Duration.ofSeconds(1)).claimInterval(Duration.ofMillis(200)).build());
        closeLater(() -> live.closeGracefully().block(Duration.ofSeconds(20)));
        liveExecutor.attach(live);
        await().atMost(Duration.ofSeconds(30)).until(() -> completedOfS().size() == 2 && redis.pending() == 0);

        proxy.stall(false); // the stalled read's answer arrives, with the entry the live instance settled
        await().atMost(Duration.ofSeconds(30)).until(() -> readsBlockedInRedis() == 2 && stalled.inflight() == 0);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> redis.events("s").size() == 4);
        assertThat(redis.events("s")).noneMatch(e -> e.contains("\"replayed\""));
        assertThat(completedOfS()).containsExactly("warm", "first");
    }

    /**
     * A blocking read that Redis answered, whose answer a cut connection lost: its entries sit in this
     * consumer's pending list while the client sends the read again after reconnecting. The later turns
     * that read returns must not run before the lost ones of their stream.
     */
    @Test
    void aLostReadAnswer_isReadAgainFromThePendingList_beforeLaterTurnsOfItsStream() throws Exception {
        FaultProxy proxy = closeLater(startProxy());
        ToolExecutor executor = closeLater(ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).build());
        // no take-over of idle entries within the test: only the reader itself can find the lost entry
        RedisStreamsBus bus = RedisStreamsBus.fromUri("redis://127.0.0.1:" + proxy.port(), redis.config().resultsMaxLen(0)
                .blockTimeout(Duration.ofSeconds(10))
                .claimMinIdle(Duration.ofSeconds(60)).claimInterval(Duration.ofSeconds(30)).build());
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(20)));
        closeLater(() -> proxy.stall(false));
        executor.attach(bus);
        redis.addCall(EchoDriver.turn("s", "warm", "w"));
        await().atMost(Duration.ofSeconds(20)).until(() -> completedOfS().equals(List.of("warm")));
        await().atMost(Duration.ofSeconds(20)).until(this::readBlockedInRedis);

        proxy.stall(true);
        redis.addCall(EchoDriver.turn("s", "first", "1"));
        // Redis delivered it to the blocked read; its answer is held in the stalled proxy
        await().atMost(Duration.ofSeconds(20)).until(() -> redis.pending() == 1);
        long before = proxy.accepted();
        proxy.cut();
        proxy.stall(false);
        await().atMost(Duration.ofSeconds(20)).until(() -> proxy.accepted() >= before + 2);
        redis.addCall(EchoDriver.turn("s", "second", "2"));

        await().atMost(Duration.ofSeconds(30)).until(() -> completedOfS().size() == 3 && redis.pending() == 0);
        assertThat(completedOfS()).containsExactly("warm", "first", "second");
    }
}
