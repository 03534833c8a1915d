package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.ToolExecutor;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP endpoint's bounds on connections: a cap on open ones (at the cap the oldest idle connection
 * makes room; only when all serve a request is a new one closed) and an idle timeout.
 */
class McpHttpConnectionCapTest {

    private ToolExecutor executor;
    private McpHttpServer http;
    private final List<Socket> sockets = new ArrayList<>();

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

    private Socket open() throws IOException {
        Socket s = new Socket("127.0.0.1", http.port());
        s.setSoTimeout(10_000);
        sockets.add(s);
        return s;
    }

    /** One keep-alive request, its response read whole; returns the status line. */
    private static String request(Socket s) throws IOException {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}";
        String req = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Accept: application/json, text/event-stream\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
        s.getOutputStream().write(req.getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        InputStream in = s.getInputStream();
        String status = line(in);
        int length = 0;
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            if (h.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(h.substring(15).trim());
            }
        }
        assertThat(in.readNBytes(length)).hasSize(length);
        return status;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            line.append((char) c);
        }
        return line.toString().trim();
    }

    private static boolean closedByServer(Socket s) {
        try {
            return s.getInputStream().read() < 0;
        } catch (SocketException e) {
            return true; // reset
        } catch (IOException e) {
            return false;
        }
    }

    @Test
    void atTheCap_aNewConnectionClosesTheOldestIdleOne_andIsServed() throws Exception {
        executor = ToolExecutor.builder().tools(McpDemoTools.all()).build();
        http = McpToolServer.builder(executor).maxHttpConnections(2).build().startHttp("127.0.0.1", 0)
                .block(Duration.ofSeconds(10));
        Socket first = open();
        Socket second = open();
        assertThat(request(first)).isEqualTo("HTTP/1.1 200 OK");
        assertThat(request(second)).isEqualTo("HTTP/1.1 200 OK");

        Socket third = open();
        assertThat(request(third)).as("the new connection is served").isEqualTo("HTTP/1.1 200 OK");
        assertThat(closedByServer(first)).as("the oldest idle connection made room").isTrue();
        assertThat(request(second)).isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void atTheCap_withEveryConnectionServingARequest_aNewOneIsClosed() throws Exception {
        executor = ToolExecutor.builder().tools(McpDemoTools.all()).build();
        http = McpToolServer.builder(executor).maxHttpConnections(2).build().startHttp("127.0.0.1", 0)
                .block(Duration.ofSeconds(10));
        // two connections busy with an open event stream each (a session's GET stream never ends by itself)
        for (int i = 0; i < 2; i++) {
            Socket s = open();
            String session = initialize(s);
            String get = "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\nMcp-Session-Id: "
                    + session + "\r\n\r\n";
            s.getOutputStream().write(get.getBytes(StandardCharsets.US_ASCII));
            assertThat(line(s.getInputStream())).isEqualTo("HTTP/1.1 200 OK");
        }
        Socket third = open();
        assertThat(closedByServer(third)).as("no idle connection to make room: the new one is closed").isTrue();
    }

    /** An {@code initialize} on a keep-alive connection; returns the session id. */
    private static String initialize(Socket s) throws IOException {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
        String req = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Accept: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
        s.getOutputStream().write(req.getBytes(StandardCharsets.US_ASCII));
        InputStream in = s.getInputStream();
        assertThat(line(in)).isEqualTo("HTTP/1.1 200 OK");
        int length = 0;
        String session = null;
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            String lower = h.toLowerCase(java.util.Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(h.substring(15).trim());
            } else if (lower.startsWith("mcp-session-id:")) {
                session = h.substring(15).trim();
            }
        }
        in.readNBytes(length);
        assertThat(session).isNotNull();
        return session;
    }

    @Test
    void anIdleConnection_isClosedAfterTheIdleTimeout() throws Exception {
        executor = ToolExecutor.builder().tools(McpDemoTools.all()).build();
        http = McpToolServer.builder(executor).httpIdleTimeout(Duration.ofMillis(300)).build()
                .startHttp("127.0.0.1", 0).block(Duration.ofSeconds(10));
        Socket s = open();
        assertThat(request(s)).isEqualTo("HTTP/1.1 200 OK");
        // nothing more is sent: the server closes the connection (end of stream well before the 10 s read timeout)
        assertThat(closedByServer(s)).isTrue();
    }
}
