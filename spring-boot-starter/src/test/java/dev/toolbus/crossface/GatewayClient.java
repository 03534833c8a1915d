package dev.toolbus.crossface;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A client of a running gateway: the JDK HttpClient for HTTP, its WebSocket for turns, raw sockets for caps. */
final class GatewayClient {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(45);
    private static final AtomicInteger SEQ = new AtomicInteger();

    final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    GatewayClient(String baseUrl) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    }

    static String token(Face.Session s) {
        return s == Face.Session.OWNER ? Fixture.OWNER_TOKEN : Fixture.MEMBER_TOKEN;
    }

    static String permission(Face.Session s) {
        return s == Face.Session.OWNER ? "owner" : "member";
    }

    /**
     * {@code GET /v1/tools} with a token, a claimed permission and a stream.
     *
     * @return the status and, on 200, the tool names
     */
    Listing tools(String token, String permission, String stream) throws Exception {
        String q = "?format=openai&stream_id=" + enc(stream) + "&permission=" + enc(permission) + "&user_id=u1";
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/v1/tools" + q))
                .header("Authorization", "Bearer " + token).timeout(WAIT).GET().build(), HttpResponse.BodyHandlers.ofString());
        List<String> names = new ArrayList<>();
        if (r.statusCode() == 200) {
            for (JsonNode t : JSON.readTree(r.body()).path("tools")) {
                names.add(t.path("function").path("name").asText(t.path("name").asText()));
            }
            names.sort(null);
        }
        return new Listing(r.statusCode(), names);
    }

    record Listing(int status, List<String> names) {
    }

    /** One turn of one call over a WebSocket, answering an approval request with {@code answer}. */
    Face.Result call(Face.Session session, String user, String tool, String argumentsJson, Face.Answer answer)
            throws Exception {
        int n = SEQ.incrementAndGet();
        String stream = "web:cf-" + n;
        String callId = "c" + n;
        BlockingQueue<String> frames = new LinkedBlockingQueue<>();
        WebSocket ws = http.newWebSocketBuilder().header("Authorization", "Bearer " + token(session))
                .buildAsync(URI.create(baseUrl.replaceFirst("^http", "ws") + "/v1/ws"), new WebSocket.Listener() {
                    private final StringBuilder text = new StringBuilder();

                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        text.append(data);
                        if (last) {
                            frames.add(text.toString());
                            text.setLength(0);
                        }
                        w.request(1);
                        return null;
                    }
                }).get(20, TimeUnit.SECONDS);
        try {
            ObjectNode turn = JSON.createObjectNode().put("type", "tool_call").put("stream_id", stream)
                    .put("turn_id", "t" + n).put("tool_call_id", callId).put("name", tool);
            turn.set("arguments", JSON.readTree(argumentsJson));
            turn.putObject("context").put("user_id", user).put("permission", permission(session));
            ws.sendText(turn.toString(), true).get(10, TimeUnit.SECONDS);
            boolean asked = false;
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                String frame = frames.poll(1, TimeUnit.SECONDS);
                if (frame == null) {
                    continue;
                }
                JsonNode e = JSON.readTree(frame);
                switch (e.path("type").asText()) {
                    case "approval_request" -> {
                        asked = true;
                        ws.sendText(JSON.createObjectNode().put("type", "approval_response").put("stream_id", stream)
                                .put("approval_id", e.path("approval_id").asText())
                                .put("decision", answer == Face.Answer.APPROVE ? "approve" : "deny").toString(), true)
                                .get(10, TimeUnit.SECONDS);
                    }
                    case "tool_result" -> {
                        if (callId.equals(e.path("tool_call_id").asText())) {
                            boolean error = e.path("is_error").asBoolean();
                            return new Face.Result(asked, error, error ? e.path("error").path("code").asText() : null,
                                    e.path("content").asText());
                        }
                    }
                    case "error" -> {
                        return new Face.Result(asked, true, e.path("code").asText(), e.path("message").asText());
                    }
                    default -> {
                        // progress, turn_completed of others
                    }
                }
            }
            throw new AssertionError("no tool_result for " + tool + " within " + WAIT);
        } finally {
            ws.sendClose(WebSocket.NORMAL_CLOSURE, "").exceptionally(e -> null);
        }
    }

    /**
     * Whether the connection cap holds: {@code cap} idle sockets are opened, then one request is made;
     * at the cap the gateway closes the connection idle longest, so one of the sockets must be closed.
     */
    boolean capClosesAnIdleConnection(int cap) throws Exception {
        URI u = URI.create(baseUrl);
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < cap; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(u.getHost(), u.getPort()), 5_000);
                idle.add(s);
            }
            // a fresh client: a new connection beyond the cap
            HttpClient fresh = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            fresh.send(HttpRequest.newBuilder(URI.create(baseUrl + "/healthz")).timeout(WAIT).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            // well within the fixture's header timeout (60 s) and the gateway's default (10 s): only an
            // eviction at the cap closes a socket this soon
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (System.nanoTime() < deadline) {
                for (Socket s : idle) {
                    if (closedByServer(s, Duration.ofMillis(100))) {
                        return true;
                    }
                }
            }
            return false;
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    private static boolean closedByServer(Socket s, Duration within) throws IOException {
        s.setSoTimeout((int) within.toMillis());
        InputStream in = s.getInputStream();
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
