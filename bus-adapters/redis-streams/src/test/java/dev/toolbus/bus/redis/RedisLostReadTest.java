package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.testing.EchoDriver;
import dev.toolbus.bus.testing.FaultProxy;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.Tools;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A blocking read that Redis answered, whose answer a cut connection lost: the entries it delivered
 * sit in this consumer's pending list, and the client sends the read again after reconnecting. The
 * later turns that read returns must not run before the lost ones of their stream.
 */
class RedisLostReadTest {

    private RedisTestSupport redis;
    private FaultProxy proxy;
    private RedisStreamsBus bus;
    private ToolExecutor executor;

    @BeforeEach
    void setUp() throws Exception {
        redis = RedisTestSupport.require();
        URI uri = URI.create(redis.url);
        proxy = FaultProxy.start(uri.getHost(), uri.getPort());
    }

    @AfterEach
    void tearDown() {
        if (bus != null) {
            bus.closeGracefully().block(Duration.ofSeconds(20));
        }
        if (executor != null) {
            executor.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private List<String> completed() {
        return redis.events(redis.prefix + "results:s").stream()
                .filter(e -> e.contains("\"turn_completed\""))
                .map(e -> e.replaceAll(".*\"turn_id\":\"([^\"]+)\".*", "$1"))
                .toList();
    }

    private boolean readBlockedInRedis() {
        return redis.redis.clientList().lines().anyMatch(l -> l.contains("cmd=xreadgroup") && l.contains("flags=b"));
    }

    @Test
    void aLostReadAnswer_isReadAgainFromThePendingList_beforeLaterTurnsOfItsStream() {
        executor = ToolExecutor.builder().tool(Tools.function("echo", "Returns its arguments", json -> json)).build();
        // no take-over of idle entries within the test: only the reader itself can find the lost entry
        bus = RedisStreamsBus.fromUri("redis://127.0.0.1:" + proxy.port(), redis.config().resultsMaxLen(0)
                .blockTimeout(Duration.ofSeconds(10))
                .claimMinIdle(Duration.ofSeconds(60)).claimInterval(Duration.ofSeconds(30)).build());
        executor.attach(bus);
        redis.addCall(EchoDriver.turn("s", "warm", "w"));
        await().atMost(Duration.ofSeconds(20)).until(() -> completed().equals(List.of("warm")));
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

        await().atMost(Duration.ofSeconds(30)).until(() -> completed().size() == 3 && redis.pending() == 0);
        assertThat(completed()).containsExactly("warm", "first", "second");
    }
}
