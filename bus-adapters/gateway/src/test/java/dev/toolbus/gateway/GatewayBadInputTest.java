package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.EventDecodeException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Malformed requests get a short, clean answer: no dropped connection, no Java text, no echo of huge ids. */
class GatewayBadInputTest {

    static TestGateway gw;

    @BeforeAll
    static void start() {
        gw = TestGateway.start();
    }

    @AfterAll
    static void stop() {
        gw.close();
    }

    static RawHttp.Response get(String target) throws Exception {
        try (RawHttp c = new RawHttp(gw.port())) {
            return c.send("GET " + target + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN + "\r\n\r\n").read();
        }
    }

    @Test
    void aBadPercentEscapeInThePathIs400() throws Exception {
        RawHttp.Response r = get("/v1/%zz");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.body()).contains("\"code\":\"BAD_EVENT\"").contains("percent-encoding");
        assertThat(r.body()).doesNotContain("Exception").doesNotContain("java.");
    }

    @Test
    void aBadPercentEscapeInTheQueryIs400NotA500() throws Exception {
        for (String target : new String[] {"/v1/tools?user_id=%zz", "/v1/calls?tool=%", "/v1/tools?x=%e4%"}) {
            RawHttp.Response r = get(target);
            assertThat(r.status()).as(target).isEqualTo(400);
            assertThat(r.body()).as(target).contains("percent-encoding").doesNotContain("Exception").doesNotContain("java.");
        }
        // the server is fine afterwards
        assertThat(get("/v1/tools?user_id=%41").status()).isEqualTo(200);
    }

    @Test
    void anInvalidUtf8TextFrameClosesWith1007() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            byte[] bad = "{\"type\":\"tool_call\",\"stream_id\":\"u\",\"name\":\"echo\",\"arguments\":{\"text\":\"XX\"}}"
                    .getBytes(StandardCharsets.UTF_8);
            int at = new String(bad, StandardCharsets.UTF_8).indexOf("XX");
            bad[at] = (byte) 0xC3; // a lead byte followed by 'X': not UTF-8
            ws.sendFrame(RawWebSocket.TEXT, true, bad);
            assertThat(ws.readUntilClose().closeCode()).isEqualTo(1007);
        }
        assertThat(gw.counter(GatewayMeters.WS_CLOSED, "reason", "invalid_utf8")).isEqualTo(1);
    }

    @Test
    void aCodePointSplitAcrossFragmentsIsFine() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            byte[] msg = "{\"type\":\"tool_call\",\"stream_id\":\"u2\",\"name\":\"echo\",\"arguments\":{\"text\":\"é\"}}"
                    .getBytes(StandardCharsets.UTF_8);
            int cut = new String(msg, StandardCharsets.UTF_8).indexOf('é') + 1; // inside the two-byte é
            ws.sendFrame(RawWebSocket.TEXT, false, java.util.Arrays.copyOfRange(msg, 0, cut));
            ws.sendFrame(RawWebSocket.CONTINUATION, true, java.util.Arrays.copyOfRange(msg, cut, msg.length));
            assertThat(ws.readFrame().text()).contains("\"content\":\"é\"");
        }
    }

    @Test
    void aHugeIdIsRefusedByTheCodec_andNotEchoed() throws Exception {
        String huge = "i".repeat(600_000);
        String turn = "{\"type\":\"tool_call\",\"stream_id\":\"" + huge + "\",\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}";
        boolean capped;
        try {
            EventCodec.defaults().decode(turn.getBytes(StandardCharsets.UTF_8));
            capped = false;
        } catch (EventDecodeException e) {
            capped = true;
        }
        assumeTrue(capped, "the codec does not cap id lengths in this build");
        Http.Response r = new Http(gw.baseUrl()).post("/v1/turns", TOKEN, turn);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().path("code").asText()).isEqualTo("BAD_EVENT");
        assertThat(r.body().length()).isLessThan(4096);
        try (RawWebSocket ws = new RawWebSocket(gw.port(), TOKEN, 0)) {
            ws.sendText(turn);
            String answer = ws.readFrame().text();
            assertThat(answer).contains("BAD_EVENT");
            assertThat(answer.length()).isLessThan(4096);
        }
    }

    @Test
    void errorAnswersNeverEchoAnIdLongerThanTheBound() {
        var e = HttpEndpoints.bounded(new dev.toolbus.protocol.ErrorEvent("s".repeat(10_000), "t",
                dev.toolbus.protocol.ErrorCode.BAD_EVENT, "m".repeat(100_000)));
        assertThat(e.streamId()).isNull();
        assertThat(e.turnId()).isEqualTo("t");
        assertThat(e.message().length()).isLessThanOrEqualTo(4 * HttpEndpoints.MAX_ECHOED_ID + 1);
    }
}
