package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A WebSocket client that stops reading: the bytes waiting for it stay under the bound, it is closed
 * with 1008, and the server goes on serving.
 */
class GatewaySlowClientTest {

    static final long BOUND = 256 * 1024;
    static final int EVENT_KIB = 64;
    static TestGateway gw;

    @BeforeAll
    static void start() {
        // the close waits for the client to read what was queued before it (5 s by default: too short on a loaded machine)
        gw = TestGateway.start(b -> b.maxOutboundBytes(BOUND).closeTimeout(Duration.ofSeconds(60)));
    }

    @AfterAll
    static void stop() {
        gw.close();
    }

    static String blobTurn(int n) {
        StringBuilder calls = new StringBuilder();
        for (int i = 0; i < 4; i++) {
            calls.append(i > 0 ? "," : "").append("{\"tool_call_id\":\"c").append(n).append('-').append(i)
                    .append("\",\"name\":\"blob\",\"arguments\":{\"kb\":").append(EVENT_KIB).append("}}");
        }
        return "{\"type\":\"tool_calls\",\"stream_id\":\"flood-" + (n % 4) + "\",\"turn_id\":\"t" + n
                + "\",\"calls\":[" + calls + "]}";
    }

    @Test
    void clientThatDoesNotReadIsClosedWith1008AndMemoryStaysBounded() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 4096)) {
            assertThat(ws.upgraded()).isTrue();
            // 40 turns x 4 results x 64 KiB = 10 MiB for a client that reads nothing
            for (int n = 0; n < 40; n++) {
                ws.sendText(blobTurn(n));
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> gw.counter(GatewayMeters.WS_CLOSED, "reason", "slow_consumer") == 1);

            long peak = gw.impl().meters.peakPendingPerConnection.get();
            long oneEvent = EVENT_KIB * 1024 + 1024;
            assertThat(peak).as("bytes ever waiting for the client").isLessThanOrEqualTo(BOUND + oneEvent)
                    .isGreaterThan(BOUND / 2);

            // the client reads again: what was queued, then the close frame
            RawWebSocket.Frame close = ws.readUntilClose();
            assertThat(close.closeCode()).isEqualTo(1008);
            assertThat(close.text().substring(2)).contains("does not read fast enough");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> gw.server.openWebSockets() == 0
                && gw.impl().meters.pendingBytes.get() == 0);
        assertThat(gw.meters.get(GatewayMeters.OUTBOUND_PENDING).gauge().value()).isZero();
        assertThat(gw.meters.scrape()).contains("toolbus_gateway_ws_closed_total{reason=\"slow_consumer\"} 1.0");

        // the server is fine: a fresh client gets its turn answered
        List<com.fasterxml.jackson.databind.JsonNode> events = GatewayWebSocketTest.exchangeWith(gw,
                List.of("{\"type\":\"tool_call\",\"stream_id\":\"after\",\"name\":\"echo\",\"arguments\":{\"text\":\"ok\"}}"), 2);
        assertThat(events.get(0).get("content").asText()).isEqualTo("ok");
    }
}
