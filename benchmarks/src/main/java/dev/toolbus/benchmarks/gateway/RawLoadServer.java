package dev.toolbus.benchmarks.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * The ceiling {@link GatewayLoad} compares the gateway with: a minimal reactor-netty server that answers
 * the same requests without toolbus. It checks the bearer token, parses each turn with Jackson, runs
 * {@code echo} inline and writes the same two events the gateway writes (a {@code tool_result} and a
 * {@code turn_completed}), as a JSON array on {@code POST /v1/turns} and as two text frames per turn on
 * {@code /v1/ws}. No validation, policy, meters, timeouts, ordering or limits: what is left is the
 * transport and the JSON.
 *
 * <p>Started like {@link LoadServer}: prints {@code PORT <n>}, serves until its standard input ends,
 * answers the same commands ({@link LoadServer#serveCommands}).
 */
public final class RawLoadServer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RawLoadServer() {
    }

    /** Starts the raw server on an ephemeral loopback port. */
    static DisposableServer start(String token) {
        String expected = "Bearer " + token;
        return HttpServer.create().host("127.0.0.1").port(0)
                .route(r -> r
                        .post("/v1/turns", (req, res) -> {
                            if (!expected.equals(req.requestHeaders().get(HttpHeaderNames.AUTHORIZATION))) {
                                return res.status(HttpResponseStatus.UNAUTHORIZED).send();
                            }
                            return res.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
                                    .sendString(req.receive().aggregate().asString(StandardCharsets.UTF_8)
                                            .map(RawLoadServer::answerArray));
                        })
                        .get("/v1/ws", (req, res) -> {
                            if (!expected.equals(req.requestHeaders().get(HttpHeaderNames.AUTHORIZATION))) {
                                return res.status(HttpResponseStatus.UNAUTHORIZED).send();
                            }
                            return res.sendWebsocket((in, out) -> out.sendString(in.receive().asString()
                                    .concatMapIterable(RawLoadServer::answerFrames)));
                        }))
                .bindNow();
    }

    static String answerArray(String body) {
        String[] events = answer(body);
        return "[" + events[0] + "," + events[1] + "]";
    }

    static java.util.List<String> answerFrames(String frame) {
        return java.util.List.of(answer(frame));
    }

    /** The tool_result and turn_completed of a one-call echo turn. */
    static String[] answer(String turn) {
        try {
            JsonNode call = JSON.readTree(turn);
            String text = call.path("arguments").path("text").asText();
            ObjectNode result = JSON.createObjectNode();
            result.put("type", "tool_result");
            result.set("stream_id", call.get("stream_id"));
            result.set("turn_id", call.get("turn_id"));
            result.set("tool_call_id", call.get("tool_call_id"));
            result.put("name", "echo");
            result.put("content", text);
            result.put("is_error", false);
            result.put("data", text);
            result.putObject("metadata");
            result.putArray("media");
            result.put("attempts", 1);
            result.put("cached", false);
            result.put("elapsed_ms", 0);
            ObjectNode done = JSON.createObjectNode();
            done.put("type", "turn_completed");
            done.set("stream_id", call.get("stream_id"));
            done.set("turn_id", call.get("turn_id"));
            ArrayNode ids = done.putArray("tool_call_ids");
            ids.add(call.get("tool_call_id"));
            done.put("error_count", 0);
            done.put("elapsed_ms", 0);
            return new String[] {JSON.writeValueAsString(result), JSON.writeValueAsString(done)};
        } catch (java.io.IOException e) {
            return new String[] {"{\"type\":\"error\",\"code\":\"BAD_EVENT\"}", "{\"type\":\"error\"}"};
        }
    }

    public static void main(String[] args) throws Exception {
        String token = args.length > 0 ? args[0] : "load-token";
        DisposableServer server = start(token);
        System.out.println("PORT " + server.port());
        System.out.flush();
        LoadServer.serveCommands();
        server.disposeNow(Duration.ofSeconds(10));
    }
}
