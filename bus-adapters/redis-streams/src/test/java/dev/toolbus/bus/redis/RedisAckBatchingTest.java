package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.BusMessage;
import dev.toolbus.bus.testing.EchoDriver;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/** Acknowledgements that arrive together go out in few XACK commands, and every entry is acknowledged. */
class RedisAckBatchingTest {

    private RedisTestSupport redis;

    @BeforeEach
    void setUp() {
        redis = RedisTestSupport.require();
    }

    @AfterEach
    void tearDown() {
        if (redis != null) {
            redis.close();
        }
    }

    private long xackCalls() {
        for (String line : redis.redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_xack:")) {
                return Long.parseLong(line.replaceAll(".*calls=(\\d+).*", "$1"));
            }
        }
        return 0;
    }

    @Test
    void manyAcknowledgementsAtOnce_takeFarFewerXacks() {
        int n = 500;
        for (int i = 0; i < n; i++) {
            redis.addCall(EchoDriver.turn("s" + (i % 10), "t" + i, "x"));
        }
        RedisStreamsBus bus = RedisStreamsBus.fromUri(redis.url, redis.config().batchSize(500).build());
        List<BusMessage> got = new CopyOnWriteArrayList<>();
        Disposable sub = bus.receive().subscribe(got::add);
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> got.size() == n);
            long before = xackCalls();
            Flux.fromIterable(got).flatMap(BusMessage::ack, n).blockLast(Duration.ofSeconds(20));
            long used = xackCalls() - before;
            assertThat(redis.pending()).isZero();
            assertThat(bus.inflight()).isZero();
            // other tests may share the server, so only an upper bound far below one XACK per entry
            assertThat(used).isLessThan(n / 5);
        } finally {
            sub.dispose();
            bus.closeGracefully().block(Duration.ofSeconds(10));
        }
    }
}
