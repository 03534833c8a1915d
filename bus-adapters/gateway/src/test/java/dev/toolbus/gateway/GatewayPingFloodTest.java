package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A client that pings and never reads: the pongs count against its outbound bound like every frame, so
 * it is disconnected (1008, slow_consumer) instead of growing the heap, and the server still stops.
 */
class GatewayPingFloodTest {

    @Test
    void aPingFloodFromAClientThatNeverReadsIsDisconnected_andTheServerStops() throws Exception {
        TestGateway gw = TestGateway.start(b -> b.maxOutboundBytes(256 * 1024).closeTimeout(Duration.ofSeconds(1)));
        AtomicLong sent = new AtomicLong();
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 4096)) {
            assertThat(ws.upgraded()).isTrue();
            Thread flood = new Thread(() -> {
                byte[] payload = "are you there".getBytes();
                try {
                    for (int i = 0; i < 2_000_000; i++) {
                        ws.sendFrame(RawWebSocket.PING, true, payload);
                        sent.incrementAndGet();
                    }
                } catch (IOException closed) {
                    // the server let go of us
                }
            }, "ping-flood");
            flood.setDaemon(true);
            flood.start();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> gw.counter(GatewayMeters.WS_CLOSED, "reason", "slow_consumer") == 1);
            await().atMost(Duration.ofSeconds(20)).until(() -> gw.server.openWebSockets() == 0);
            // the queued pongs were released with the connection
            await().atMost(Duration.ofSeconds(10)).until(() -> gw.impl().meters.pendingBytes.get() == 0);
            assertThat(gw.impl().meters.peakPendingPerConnection.get()).isLessThanOrEqualTo(256 * 1024);
            assertThat(sent.get()).isGreaterThan(1000);
            flood.join(20_000);
            assertThat(flood.isAlive()).isFalse();
        } finally {
            long t0 = System.nanoTime();
            gw.server.closeGracefully(Duration.ofSeconds(10));
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
            gw.executor.close();
        }
    }

    @Test
    void aClientThatReadsItsPongsStaysConnected() throws Exception {
        try (TestGateway gw = TestGateway.start(b -> b.maxOutboundBytes(4 * 1024));
             RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            for (int i = 0; i < 500; i++) {
                ws.sendFrame(RawWebSocket.PING, true, ("p" + i).getBytes());
                RawWebSocket.Frame pong = ws.readFrame();
                assertThat(pong.opcode()).isEqualTo(RawWebSocket.PONG);
                assertThat(pong.text()).isEqualTo("p" + i);
            }
            ws.sendText("{\"type\":\"tool_call\",\"stream_id\":\"pp\",\"name\":\"echo\",\"arguments\":{\"text\":\"still\"}}");
            assertThat(ws.readFrame().text()).contains("\"content\":\"still\"");
            assertThat(gw.counter(GatewayMeters.WS_CLOSED, "reason", "slow_consumer")).isZero();
        }
    }
}
