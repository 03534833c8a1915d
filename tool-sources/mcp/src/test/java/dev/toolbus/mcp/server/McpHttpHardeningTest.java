package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The MCP HTTP endpoint under the attacks of issue 21, with real sockets and real HTTP clients: sockets
 * that dribble headers (M9) cannot lock a client out, and are closed at their header deadline; one
 * client's {@code initialize} flood ends only its own sessions and is throttled; one sessionless client
 * cannot cancel another's request by its id.
 */
class McpHttpHardeningTest {

    private ToolExecutor executor;
    private McpHttpServer http;
    private final List<Socket> sockets = new ArrayList<>();
    private final HttpClient client = HttpClient.newHttpClient();
    private static final AtomicInteger SLOW_CANCELLED = new AtomicInteger();

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (http != null) {
            http.close();
        }
        if (executor != null) {
            executor.close();
        }
    }

    private static ToolSpec slow() {
        return new ToolSpec(ToolDefinition.builder("slow").description("answers after 1.5 s").sideEffecting(true).build(),
                (args, ctx) -> {
                    ctx.onCancel().subscribe(null, null, SLOW_CANCELLED::incrementAndGet);
                    return Mono.delay(Duration.ofMillis(1500)).thenReturn(ToolResult.text("done"));
                });
    }

    private HttpResponse<String> post(String body, String token, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(http.url()))
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(20));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

    /** A socket that sent the start of a request's headers and no end. */
    private Socket dribbler() throws IOException {
        Socket s = new Socket("127.0.0.1", http.port());
        s.setSoTimeout(20_000);
        sockets.add(s);
        OutputStream out = s.getOutputStream();
        out.write("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }

    /** How many of the sockets the server has closed, read without blocking. */
    private int closedNow() throws IOException {
        int closed = 0;
        for (Socket s : sockets) {
            if (s.isClosed()) {
                closed++;
                continue;
            }
            s.setSoTimeout(1);
            try {
                if (s.getInputStream().read() < 0) {
                    s.close();
                    closed++;
                }
            } catch (java.net.SocketTimeoutException e) {
                // open, silent
            } catch (IOException e) {
                s.close();
                closed++;
            } finally {
                if (!s.isClosed()) {
                    s.setSoTimeout(20_000);
                }
            }
        }
        return closed;
    }

    private static boolean closedByServer(Socket s) {
        try {
            return s.getInputStream().read() < 0;
        } catch (IOException e) {
            return true;
        }
    }

    @Test
    void a1030SocketDribble_doesNotLockAClientOut() throws Exception {
        executor = ToolExecutor.builder().tools(McpDemoTools.all()).build();
        http = McpToolServer.builder(executor).build().startHttp("127.0.0.1", 0).block(Duration.ofSeconds(10));
        for (int i = 0; i < 1030; i++) {
            dribbler();
        }
        // the cap is 1,024: six of them are closed, and the rest keep dribbling (one more header line each)
        await().atMost(Duration.ofSeconds(20)).until(() -> closedNow() == 6);
        for (Socket s : sockets) {
            if (!s.isClosed()) {
                s.getOutputStream().write("X-Dribble: 1\r\n".getBytes(StandardCharsets.US_ASCII));
            }
        }
        HttpResponse<String> r = post(LIST, null);
        assertThat(r.statusCode()).as("a client among 1,030 dribbling sockets is served").isEqualTo(200);
        assertThat(r.body()).contains("\"echo\"");
    }

    @Test
    void aSocketThatDribblesHeaders_isClosedAtItsHeaderDeadline() throws Exception {
        executor = ToolExecutor.builder().tools(McpDemoTools.all()).build();
        http = McpToolServer.builder(executor).httpHeaderTimeout(Duration.ofMillis(800)).build()
                .startHttp("127.0.0.1", 0).block(Duration.ofSeconds(10));
        Socket s = dribbler();
        // a header line every 200 ms: the idle timeout (60 s) never fires, the header deadline does
        CompletableFuture<Void> dribble = CompletableFuture.runAsync(() -> {
            try {
                for (int i = 0; i < 20; i++) {
                    Thread.sleep(200);
                    s.getOutputStream().write(("X-Dribble-" + i + ": 1\r\n").getBytes(StandardCharsets.US_ASCII));
                }
            } catch (IOException | InterruptedException e) {
                // closed by the server
            }
        });
        long t0 = System.nanoTime();
        assertThat(closedByServer(s)).isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).as("closed well before 20 header lines were sent")
                .isLessThan(Duration.ofSeconds(3));
        dribble.cancel(true);
        assertThat(post(LIST, null).statusCode()).isEqualTo(200);
    }

    @Test
    void anInitializeFlood_endsOnlyItsOwnSessions_andIsThrottled() throws Exception {
        AccessTokens tokens = AccessTokens.builder().token("attacker-token", TokenScope.FULL)
                .token("victim-token", TokenScope.FULL).build();
        executor = ToolExecutor.builder().tools(McpDemoTools.all()).build();
        // time stands still: the budget does not refill during the flood, however slow the machine
        java.time.Clock still = java.time.Clock.fixed(java.time.Instant.parse("2026-12-01T00:00:00Z"),
                java.time.ZoneOffset.UTC);
        http = McpToolServer.builder(executor).tokens(tokens).maxHttpSessions(20).maxSessionsPerClient(5).clock(still)
                .build().startHttp("127.0.0.1", 0).block(Duration.ofSeconds(10));
        String victim = post(INIT, "victim-token").headers().firstValue("Mcp-Session-Id").orElseThrow();
        int throttled = 0;
        for (int i = 0; i < 150; i++) {
            int status = post(INIT, "attacker-token").statusCode();
            if (status == 429) {
                throttled++;
            } else {
                assertThat(status).isEqualTo(200);
            }
        }
        assertThat(throttled).as("the flood ran into its client's initialize budget (a burst of %d)",
                NettyHttpServerTransport.INITIALIZE_BURST).isEqualTo(150 - NettyHttpServerTransport.INITIALIZE_BURST);
        assertThat(post(INIT, "victim-token").statusCode()).as("the victim's own budget is untouched").isEqualTo(200);
        HttpResponse<String> list = post(LIST, "victim-token", "Mcp-Session-Id", victim, "MCP-Protocol-Version",
                "2025-11-25");
        assertThat(list.statusCode()).as("the victim's session outlived the flood").isEqualTo(200);
        // and a session id is its client's own: the attacker cannot use (or end) it
        assertThat(post(LIST, "attacker-token", "Mcp-Session-Id", victim, "MCP-Protocol-Version", "2025-11-25")
                .statusCode()).isEqualTo(404);
    }

    @Test
    void aSessionlessClient_cannotCancelAnotherClientsRequestById() throws Exception {
        AccessTokens tokens = AccessTokens.builder().token("alice-token", TokenScope.FULL)
                .token("mallory-token", TokenScope.FULL).build();
        executor = ToolExecutor.builder().tool(slow()).build();
        http = McpToolServer.builder(executor).tokens(tokens).parallelCalls(true).build().startHttp("127.0.0.1", 0)
                .block(Duration.ofSeconds(10));
        int before = SLOW_CANCELLED.get();
        String call = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}";
        CompletableFuture<HttpResponse<String>> alice = CompletableFuture.supplyAsync(() -> {
            try {
                return post(call, "alice-token");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 1);
        String cancel = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}";
        assertThat(post(cancel, "mallory-token").statusCode()).isEqualTo(202);
        HttpResponse<String> r = alice.get();
        assertThat(r.body()).as("alice's call ran to its end").contains("done").doesNotContain("-32800");
        assertThat(SLOW_CANCELLED.get()).isEqualTo(before);

        // alice herself may cancel her request
        CompletableFuture<HttpResponse<String>> again = CompletableFuture.supplyAsync(() -> {
            try {
                return post(call, "alice-token");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 1);
        post(cancel, "alice-token");
        assertThat(again.get().body()).contains("-32800");
        await().atMost(Duration.ofSeconds(5)).until(() -> SLOW_CANCELLED.get() == before + 1);
    }
}
