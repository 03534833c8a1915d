package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;

/** {@code /v1/ws} with the reactor-netty WebSocket client, and a raw socket for pings. */
class GatewayWebSocketTest {

    static TestGateway gw;

    @BeforeAll
    static void start() {
        gw = TestGateway.start(b -> b.pingInterval(Duration.ofMillis(300)));
    }

    @AfterAll
    static void stop() {
        gw.close();
    }

    static JsonNode parse(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new AssertionError(s, e);
        }
    }

    /** Sends the frames, collects received frames until {@code expected} arrived, then closes. */
    static List<JsonNode> exchange(List<String> frames, int expected) {
        return exchangeWith(gw, frames, expected);
    }

    static List<JsonNode> exchangeWith(TestGateway gw, List<String> frames, int expected) {
        return exchangeWith(gw.port(), frames, expected);
    }

    static List<JsonNode> exchangeWith(int port, List<String> frames, int expected) {
        List<JsonNode> received = new CopyOnWriteArrayList<>();
        HttpClient.create()
                .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer " + TOKEN))
                .websocket()
                .uri("ws://127.0.0.1:" + port + "/v1/ws")
                .handle((in, out) -> out.sendString(Flux.fromIterable(frames)).then()
                        .thenMany(in.receive().asString().map(GatewayWebSocketTest::parse)
                                .doOnNext(received::add).take(expected)))
                .blockLast(Duration.ofSeconds(30));
        return received;
    }

    static String sleepTurn(String stream, String turn, int ms) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn + "\",\"calls\":["
                + "{\"tool_call_id\":\"" + turn + "-1\",\"name\":\"sleep\",\"arguments\":{\"ms\":" + ms + "}},"
                + "{\"tool_call_id\":\"" + turn + "-2\",\"name\":\"echo\",\"arguments\":{\"text\":\"" + turn + "\"}}]}";
    }

    @Test
    void turnsOfOneStreamArriveInOrder() {
        // later turns are faster; they must still come after the earlier ones, and each turn in call order
        List<String> frames = List.of(sleepTurn("order", "t1", 300), sleepTurn("order", "t2", 150),
                sleepTurn("order", "t3", 0));
        List<JsonNode> events = exchange(frames, 9);
        List<String> seen = new ArrayList<>();
        for (JsonNode e : events) {
            seen.add(e.get("type").asText() + ":" + e.get("turn_id").asText()
                    + (e.has("tool_call_id") ? ":" + e.get("tool_call_id").asText() : ""));
        }
        assertThat(seen).containsExactly(
                "tool_result:t1:t1-1", "tool_result:t1:t1-2", "turn_completed:t1",
                "tool_result:t2:t2-1", "tool_result:t2:t2-2", "turn_completed:t2",
                "tool_result:t3:t3-1", "tool_result:t3:t3-2", "turn_completed:t3");
    }

    @Test
    void textOutsideAscii_arrivesIntactInTextFrames() {
        String text = "日本 é 😀 𝄞 \\\" quote";
        String json = "{\"type\":\"tool_calls\",\"stream_id\":\"utf\",\"turn_id\":\"u1\",\"calls\":["
                + "{\"tool_call_id\":\"u1-1\",\"name\":\"echo\",\"arguments\":{\"text\":\"" + text + "\"}}]}";
        List<JsonNode> events = exchange(List.of(json), 2);
        assertThat(events.get(0).get("type").asText()).isEqualTo("tool_result");
        assertThat(events.get(0).get("content").asText()).isEqualTo("日本 é 😀 𝄞 \" quote");
        assertThat(events.get(1).get("type").asText()).isEqualTo("turn_completed");
    }

    @Test
    void otherStreamsDoNotWait() {
        List<String> frames = List.of(sleepTurn("slow", "s1", 1500), sleepTurn("fast", "f1", 0));
        List<JsonNode> events = exchange(frames, 6);
        assertThat(events.get(2).get("type").asText()).as(events.toString()).isEqualTo("turn_completed");
        assertThat(events.get(2).get("stream_id").asText()).isEqualTo("fast");
        assertThat(events.get(5).get("stream_id").asText()).isEqualTo("slow");
    }

    @Test
    void badFramesGetErrorEventsAndTheConnectionStaysOpen() {
        List<String> frames = List.of("not json", "{\"type\":\"tool_calls\",\"stream_id\":\"bad\"}",
                "{\"type\":\"list_tools\",\"stream_id\":\"ok\",\"request_id\":7}");
        List<JsonNode> events = exchange(frames, 3);
        assertThat(events.get(0).get("type").asText()).isEqualTo("error");
        assertThat(events.get(0).get("code").asText()).isEqualTo("BAD_EVENT");
        assertThat(events.get(0).has("stream_id")).isFalse();
        assertThat(events.get(1).get("type").asText()).isEqualTo("error");
        assertThat(events.get(1).get("stream_id").asText()).isEqualTo("bad");
        assertThat(events.get(1).get("message").asText()).contains("calls");
        assertThat(events.get(2).get("type").asText()).isEqualTo("tools");
        assertThat(events.get(2).get("request_id").asText()).isEqualTo("7");
    }

    @Test
    void handshakeWithWrongTokenFails() {
        Mono<Void> attempt = HttpClient.create()
                .headers(h -> h.set(HttpHeaderNames.AUTHORIZATION, "Bearer nope"))
                .websocket().uri("ws://127.0.0.1:" + gw.port() + "/v1/ws")
                .handle((in, out) -> out.sendString(Mono.just("{}")))
                .then();
        assertThatThrownBy(() -> attempt.block(Duration.ofSeconds(10))).hasMessageContaining("401");
    }

    @Test
    void answersPingsAndPingsIdlePeers() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            assertThat(ws.upgraded()).isTrue();
            ws.sendFrame(RawWebSocket.PING, true, new byte[] {1, 2, 3});
            RawWebSocket.Frame pong = ws.readFrame();
            assertThat(pong.opcode()).isEqualTo(RawWebSocket.PONG);
            assertThat(pong.payload()).containsExactly(1, 2, 3);
            // silent: the server pings after the interval; answering keeps the connection
            for (int i = 0; i < 3; i++) {
                RawWebSocket.Frame ping = ws.readFrame();
                assertThat(ping.opcode()).isEqualTo(RawWebSocket.PING);
                ws.sendFrame(RawWebSocket.PONG, true, ping.payload());
            }
            assertThat(gw.server.openWebSockets()).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void dropsPeersThatAnswerNoPing() throws Exception {
        double before = gw.counter(GatewayMeters.WS_CLOSED, "reason", "dead_peer");
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            assertThat(ws.upgraded()).isTrue();
            RawWebSocket.Frame ping = ws.readFrame();
            assertThat(ping.opcode()).isEqualTo(RawWebSocket.PING);
            // no pong: the server gives up after a second silent interval
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> gw.counter(GatewayMeters.WS_CLOSED, "reason", "dead_peer") == before + 1);
            assertThat(ws.socket.getInputStream().read()).isEqualTo(-1);
        }
    }
}
