package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The HTTP rules of the streamable HTTP endpoint, checked with plain requests. */
class McpHttpTransportTest {

    static ToolExecutor executor;
    static McpHttpServer http;
    static final HttpClient client = HttpClient.newHttpClient();
    static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
            + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

    @BeforeAll
    static void start() {
        executor = ToolExecutor.builder().tools(McpDemoTools.all()).build();
        http = McpToolServer.builder(executor).maxMessageBytes(2048).build().startHttp("127.0.0.1", 0)
                .block(Duration.ofSeconds(10));
    }

    @AfterAll
    static void stop() {
        http.close();
        executor.close();
    }

    static HttpResponse<String> post(String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(http.url()))
                .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.setHeader(headers[i], headers[i + 1]);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void initialize_opensASession() throws Exception {
        HttpResponse<String> r = post(INIT);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(r.body()).contains("\"protocolVersion\":\"2025-06-18\"").contains("\"name\":\"toolbus\"");
        String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();

        HttpResponse<String> list = post("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", "Mcp-Session-Id", session,
                "MCP-Protocol-Version", "2025-06-18");
        assertThat(list.body()).contains("\"echo\"").contains("\"add\"").contains("\"draw\"");

        HttpResponse<String> note = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                "Mcp-Session-Id", session);
        assertThat(note.statusCode()).isEqualTo(202);

        HttpResponse<String> del = client.send(HttpRequest.newBuilder(URI.create(http.url())).DELETE()
                .header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(del.statusCode()).isEqualTo(204);
        assertThat(post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}", "Mcp-Session-Id", session).statusCode())
                .isEqualTo(404);
    }

    @Test
    void call_withoutSessionWorks() throws Exception {
        HttpResponse<String> r = post("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2}}}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("\"id\":7").contains("\"text\":\"3\"").contains("\"structuredContent\":{\"sum\":3}")
                .contains("\"isError\":false");
    }

    @Test
    void unknownTool_isAJsonRpcError() throws Exception {
        HttpResponse<String> r = post("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":"
                + "{\"name\":\"nope\",\"arguments\":{}}}");
        assertThat(r.body()).contains("\"error\"").contains("nope");
    }

    @Test
    void get_isNotAllowed() throws Exception {
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create(http.url())).GET()
                .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).hasValue("POST, DELETE");
    }

    @Test
    void getOfASession_opensItsEventStream_anUnknownOneIs404_andOneThatRefusesEventStreamsIs406() throws Exception {
        String session = post(INIT).headers().firstValue("Mcp-Session-Id").orElseThrow();
        HttpResponse<java.io.InputStream> open = client.send(HttpRequest.newBuilder(URI.create(http.url())).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", session).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(open.statusCode()).isEqualTo(200);
        assertThat(open.headers().firstValue("Content-Type")).hasValue("text/event-stream");
        try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(open.body()))) {
            assertThat(r.readLine()).isEqualTo(": stream open");
        }
        HttpResponse<String> unknown = client.send(HttpRequest.newBuilder(URI.create(http.url())).GET()
                .header("Accept", "text/event-stream").header("Mcp-Session-Id", "no-such-session").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(unknown.statusCode()).isEqualTo(404);
        HttpResponse<String> json = client.send(HttpRequest.newBuilder(URI.create(http.url())).GET()
                .header("Accept", "application/json").header("Mcp-Session-Id", session).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(json.statusCode()).isEqualTo(406);
    }

    @Test
    void foreignOrigin_isForbidden() throws Exception {
        assertThat(post(INIT, "Origin", "http://evil.example").statusCode()).isEqualTo(403);
        assertThat(post(INIT, "Origin", "http://localhost:5173").statusCode()).isEqualTo(200);
    }

    @Test
    void badInput_isRefused() throws Exception {
        assertThat(post("{not json").statusCode()).isEqualTo(400);
        assertThat(post("x".repeat(4000)).statusCode()).isEqualTo(413);
        assertThat(post(INIT, "Content-Type", "text/plain").statusCode()).isEqualTo(415);
        assertThat(post(INIT, "MCP-Protocol-Version", "1999-01-01").statusCode()).isEqualTo(400);
        assertThat(post("[" + INIT + "]").statusCode()).isEqualTo(400);
        HttpResponse<String> other = client.send(HttpRequest.newBuilder(URI.create(http.url() + "/other")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(other.statusCode()).isEqualTo(404);
    }
}
