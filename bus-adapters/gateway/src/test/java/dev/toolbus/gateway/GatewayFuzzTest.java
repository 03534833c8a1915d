package dev.toolbus.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.Json;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Seeded random and mutated events at the gateway, over HTTP and WebSocket: every input gets an
 * answer of a known kind (never a 500, never a dropped connection but the documented 1007), the
 * server stays healthy, no turn is left running, and the heap does not grow.
 * {@code -Dtoolbus.fuzz.seed=N} replays a run.
 */
class GatewayFuzzTest {

    static final long SEED = Long.getLong("toolbus.fuzz.seed", System.nanoTime());
    static final int INPUTS = Integer.getInteger("toolbus.fuzz.inputs", 1200);
    static final int MAX_REQUEST_BYTES = 64 * 1024;
    static final Set<Integer> HTTP_STATUSES = Set.of(200, 202, 400, 403, 404, 413);

    static final List<String> SEEDS = List.of(
            "{\"type\":\"tool_call\",\"stream_id\":\"f\",\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}",
            "{\"type\":\"tool_calls\",\"stream_id\":\"f\",\"turn_id\":\"t\",\"calls\":[{\"tool_call_id\":\"a\",\"name\":\"echo\","
                    + "\"arguments\":{\"text\":\"é😀\"}},{\"id\":\"b\",\"type\":\"function\",\"function\":{\"name\":\"echo\","
                    + "\"arguments\":\"{\\\"text\\\":\\\"x\\\"}\"}}],\"context\":{\"user_id\":\"u\",\"permission\":\"admin\"}}",
            "{\"type\":\"list_tools\",\"stream_id\":\"f\",\"request_id\":\"r\",\"format\":\"anthropic\"}",
            "{\"type\":\"cancel\",\"stream_id\":\"f\",\"turn_id\":\"t\",\"tool_call_id\":\"a\",\"reason\":\"stop\"}",
            "{\"type\":\"input_response\",\"stream_id\":\"f\",\"input_id\":\"in-x-1\",\"action\":\"accept\",\"content\":{\"a\":1}}",
            "{\"type\":\"approval_response\",\"stream_id\":\"f\",\"approval_id\":\"ap-x-1\",\"decision\":\"approve\"}");

    static final String[] SPLICES = {"{", "}", "[", "]", ",", ":", "\"", "\\", "\\u0000", "\\ud800", "null", "1e999999",
            "-0", "true", "{\"type\":", "\"stream_id\":\"\"", "\"calls\":[]", "[[[[[[[[[[", "\u0000", "\uFEFF", "𝄞"};

    static byte[] mutate(Random r) {
        byte[] b = SEEDS.get(r.nextInt(SEEDS.size())).getBytes(StandardCharsets.UTF_8);
        int rounds = 1 + r.nextInt(4);
        for (int k = 0; k < rounds; k++) {
            switch (r.nextInt(6)) {
                case 0 -> b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8)); // bit flip, may break UTF-8
                case 1 -> b = Arrays.copyOf(b, r.nextInt(b.length + 1)); // truncation
                case 2 -> {
                    byte[] s = SPLICES[r.nextInt(SPLICES.length)].getBytes(StandardCharsets.UTF_8);
                    int at = b.length == 0 ? 0 : r.nextInt(b.length);
                    byte[] n = new byte[b.length + s.length];
                    System.arraycopy(b, 0, n, 0, at);
                    System.arraycopy(s, 0, n, at, s.length);
                    System.arraycopy(b, at, n, at + s.length, b.length - at);
                    b = n;
                }
                case 3 -> { // a long run of one character
                    String run = String.valueOf((char) ('a' + r.nextInt(26))).repeat(r.nextInt(20_000));
                    String s = new String(b, StandardCharsets.UTF_8);
                    int at = s.length() == 0 ? 0 : r.nextInt(s.length());
                    b = (s.substring(0, at) + run + s.substring(at)).getBytes(StandardCharsets.UTF_8);
                }
                case 4 -> { // deep nesting
                    int depth = r.nextInt(3000);
                    b = ("[".repeat(depth) + new String(b, StandardCharsets.UTF_8) + "]".repeat(r.nextInt(depth + 1)))
                            .getBytes(StandardCharsets.UTF_8);
                }
                default -> { // random bytes
                    byte[] n = new byte[r.nextInt(64)];
                    r.nextBytes(n);
                    b = n;
                }
            }
            if (b.length == 0) {
                break;
            }
        }
        return b;
    }

    static boolean validUtf8(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(b));
            return true;
        } catch (java.nio.charset.CharacterCodingException e) {
            return false;
        }
    }

    static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    @Test
    void randomAndMutatedEventsAlwaysGetAnAnswer_andLeaveTheServerHealthy() throws Exception {
        System.out.println("GatewayFuzzTest seed " + SEED + " (replay with -Dtoolbus.fuzz.seed=" + SEED + ")");
        Random r = new Random(SEED);
        ToolExecutor executor = ToolExecutor.builder().tools(List.of(TestGateway.tools().get(0)))
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
        GatewayServer server = Gateway.builder().executor(executor).token(TestGateway.TOKEN)
                .maxRequestBytes(MAX_REQUEST_BYTES).build().start();
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            runHttp(r, server, http, INPUTS / 10); // warm-up, so the heap baseline includes what the JIT and pools keep
            long before = usedHeapAfterGc();
            runHttp(r, server, http, INPUTS);
            runWebSocket(r, server, INPUTS);
            await().atMost(Duration.ofSeconds(10)).until(() -> server.openWebSockets() == 0);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    ((NettyGatewayServer) server).config.meterRegistry.get(GatewayMeters.TURNS_ACTIVE).gauge().value() == 0);
            HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl() + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            long after = usedHeapAfterGc();
            assertThat(after - before).as("heap growth over the run (seed %d)", SEED).isLessThan(64L * 1024 * 1024);
        } finally {
            server.close();
            executor.close();
        }
    }

    private static void runHttp(Random r, GatewayServer server, HttpClient http, int n) throws Exception {
        for (int i = 0; i < n; i++) {
            byte[] body = mutate(r);
            HttpResponse<String> res = http.send(HttpRequest.newBuilder(URI.create(server.baseUrl()
                            + (r.nextInt(4) == 0 ? "/v1/control" : "/v1/turns")))
                    .header("Authorization", "Bearer " + TestGateway.TOKEN).timeout(Duration.ofSeconds(20))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
            String input = new String(body, StandardCharsets.UTF_8);
            String shown = input.length() > 200 ? input.substring(0, 200) + "…" : input;
            assertThat(res.statusCode()).as("seed %d, input %d: %s -> %s", SEED, i, shown, res.body())
                    .isIn(HTTP_STATUSES.toArray()).isNotEqualTo(500);
            JsonNode answer = Json.mapper().readTree(res.body());
            assertThat(answer.isArray() || answer.path("type").asText().equals("error") || answer.has("outcome"))
                    .as("seed %d, input %d: %s", SEED, i, res.body()).isTrue();
        }
    }

    /** Each input is followed by a list_tools sentinel; its answer proves the input was taken and the socket lives. */
    private static void runWebSocket(Random r, GatewayServer server, int n) throws Exception {
        RawWebSocket ws = new RawWebSocket(server.port(), TestGateway.TOKEN, 0);
        try {
            for (int i = 0; i < n; i++) {
                byte[] body = mutate(r);
                boolean binary = r.nextInt(5) == 0;
                ws.sendFrame(binary ? 0x2 : RawWebSocket.TEXT, true, body);
                String sentinel = "{\"type\":\"list_tools\",\"stream_id\":\"sentinel\",\"request_id\":\"s" + i + "\"}";
                ws.sendText(sentinel);
                while (true) {
                    RawWebSocket.Frame f = ws.readFrame();
                    if (f.opcode() == RawWebSocket.CLOSE) {
                        // the two documented ways a message ends the connection: a text frame that is not UTF-8
                        // (1007), and a message above maxRequestBytes (1009: a few long runs of one character)
                        assertThat(f.closeCode()).as("seed %d, input %d closed the socket", SEED, i).isIn(1007, 1009);
                        if (f.closeCode() == 1009) {
                            assertThat(body.length).as("seed %d, input %d", SEED, i).isGreaterThan(MAX_REQUEST_BYTES);
                        } else {
                            assertThat(binary).isFalse();
                            assertThat(validUtf8(body)).isFalse();
                        }
                        ws.close();
                        ws = new RawWebSocket(server.port(), TestGateway.TOKEN, 0);
                        break;
                    }
                    if (f.opcode() == RawWebSocket.TEXT && f.text().contains("\"request_id\":\"s" + i + "\"")) {
                        break;
                    }
                    if (f.opcode() == RawWebSocket.TEXT) {
                        JsonNode e = Json.mapper().readTree(f.text());
                        assertThat(e.path("type").asText()).as("seed %d, input %d", SEED, i)
                                .isIn("error", "tool_result", "turn_completed", "tools");
                    }
                }
            }
        } finally {
            try {
                ws.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
