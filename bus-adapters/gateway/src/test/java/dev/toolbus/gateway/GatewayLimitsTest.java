package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.handler.codec.http.HttpHeaderNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;

/** Request and message size limits: 413 over HTTP, 1009 over WebSocket. */
class GatewayLimitsTest {

    static final int LIMIT = 16 * 1024;
    static TestGateway gw;
    static Http http;

    @BeforeAll
    static void start() {
        gw = TestGateway.start(b -> b.maxRequestBytes(LIMIT));
        http = new Http(gw.baseUrl());
    }

    @AfterAll
    static void stop() {
        gw.close();
    }

    static String turnOfSize(int bytes) {
        String head = "{\"type\":\"tool_call\",\"stream_id\":\"big\",\"name\":\"echo\",\"arguments\":{\"text\":\"";
        String tail = "\"}}";
        return head + "y".repeat(bytes - head.length() - tail.length()) + tail;
    }

    @Test
    void turns_atTheLimitIsAccepted() {
        Http.Response r = http.post("/v1/turns", TOKEN, turnOfSize(LIMIT));
        assertThat(r.status()).isEqualTo(200);
    }

    @Test
    void turns_declaredLengthAboveTheLimitIs413() {
        Http.Response r = http.post("/v1/turns", TOKEN, turnOfSize(LIMIT + 1));
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.contentType()).isEqualTo("application/json");
        assertThat(r.json().get("type").asText()).isEqualTo("error");
        assertThat(r.json().get("code").asText()).isEqualTo("BAD_EVENT");
        assertThat(r.json().get("message").asText()).contains(LIMIT + "-byte limit");
    }

    @Test
    void turns_chunkedBodyAboveTheLimitIs413WithoutReadingItAll() {
        // 64 chunks of 1 KiB with no Content-Length: the server stops at the limit
        Flux<String> chunks = Flux.range(0, 64).map(i -> "z".repeat(1024));
        Http.Response r = HttpClient.create().baseUrl(gw.baseUrl())
                .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + TOKEN))
                .post().uri("/v1/turns")
                .send(ByteBufFlux.fromString(chunks))
                .responseSingle((res, body) -> body.asString().defaultIfEmpty("")
                        .map(s -> new Http.Response(res.status().code(), res.responseHeaders(), s)))
                .block(Duration.ofSeconds(20));
        assertThat(r.status()).isEqualTo(413);
        assertThat(r.json().get("code").asText()).isEqualTo("BAD_EVENT");
        // the server still answers afterwards
        assertThat(http.get("/healthz", null).status()).isEqualTo(200);
    }

    @Test
    void ws_singleFrameAboveTheLimitClosesWith1009() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            assertThat(ws.upgraded()).as(ws.handshakeStatus).isTrue();
            ws.sendText(turnOfSize(LIMIT + 100));
            RawWebSocket.Frame close = ws.readUntilClose();
            assertThat(close.closeCode()).isEqualTo(1009);
        }
    }

    @Test
    void ws_fragmentedMessageAboveTheLimitClosesWith1009() throws Exception {
        double before = gw.counter(GatewayMeters.WS_CLOSED, "reason", "too_big");
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            byte[] piece = "q".repeat(6 * 1024).getBytes(StandardCharsets.UTF_8);
            ws.sendFrame(RawWebSocket.TEXT, false, piece);
            ws.sendFrame(RawWebSocket.CONTINUATION, false, piece);
            ws.sendFrame(RawWebSocket.CONTINUATION, true, piece);
            RawWebSocket.Frame close = ws.readUntilClose();
            assertThat(close.closeCode()).isEqualTo(1009);
        }
        assertThat(gw.counter(GatewayMeters.WS_CLOSED, "reason", "too_big")).isEqualTo(before + 1);
    }

    @Test
    void ws_fragmentedMessageWithinTheLimitIsAnswered() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            String turn = "{\"type\":\"tool_call\",\"stream_id\":\"frag\",\"name\":\"echo\",\"arguments\":{\"text\":\"joined\"}}";
            int cut = turn.length() / 2;
            ws.sendFrame(RawWebSocket.TEXT, false, turn.substring(0, cut).getBytes(StandardCharsets.UTF_8));
            ws.sendFrame(RawWebSocket.CONTINUATION, true, turn.substring(cut).getBytes(StandardCharsets.UTF_8));
            RawWebSocket.Frame result = ws.readFrame();
            assertThat(result.opcode()).isEqualTo(RawWebSocket.TEXT);
            assertThat(result.text()).contains("\"type\":\"tool_result\"").contains("\"content\":\"joined\"");
            assertThat(ws.readFrame().text()).contains("turn_completed");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> gw.server.openWebSockets() == 0);
    }

    @Test
    void ws_handshakeWithoutTokenIs401() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(gw.port(), null, 0)) {
            assertThat(ws.upgraded()).isFalse();
            assertThat(ws.handshakeStatus).contains(" 401 ");
        }
    }
}
