package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@link GatewayServer#closeGracefully()}: running turns finish, new work is refused, sockets close. */
class GatewayShutdownTest {

    static String sleepCall(String stream, int ms) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + stream
                + "-t\",\"name\":\"sleep\",\"arguments\":{\"ms\":" + ms + "}}";
    }

    @Test
    void closeGracefully_finishesRunningTurnsAndRefusesNewOnes() throws Exception {
        TestGateway gw = TestGateway.start();
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            Http http = new Http(gw.baseUrl());
            CompletableFuture<Http.Response> running = CompletableFuture.supplyAsync(
                    () -> http.post("/v1/turns", TOKEN, sleepCall("http", 1500)));
            ws.sendText(sleepCall("ws", 1500));
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> gw.meters.get(GatewayMeters.TURNS_ACTIVE).gauge().value() == 2);

            CompletableFuture<Void> closed = gw.server.closeGracefully().toFuture();
            Http.Response refused = http.post("/v1/turns", TOKEN, sleepCall("late", 1));
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.json().get("code").asText()).isEqualTo("REJECTED");
            assertThat(http.get("/healthz", null).status()).isEqualTo(503);

            Http.Response finished = running.get();
            assertThat(finished.status()).isEqualTo(200);
            assertThat(finished.json().get(0).get("content").asText()).isEqualTo("slept 1500");

            assertThat(ws.readFrame().text()).contains("\"content\":\"slept 1500\"");
            assertThat(ws.readFrame().text()).contains("turn_completed");
            RawWebSocket.Frame close = ws.readUntilClose();
            assertThat(close.closeCode()).isEqualTo(1001);

            closed.get();
            int port = gw.port();
            assertThatThrownBy(() -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 2000);
                }
            }).isInstanceOf(java.io.IOException.class);
        } finally {
            gw.close();
        }
    }
}
