package dev.toolbus.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.bus.tck.OtelTracing;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.client.McpServerConfig;
import dev.toolbus.mcp.client.McpToolSource;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.mcp.server.McpDemoTools;
import dev.toolbus.mcp.server.McpHttpServer;
import dev.toolbus.mcp.server.McpToolServer;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.registry.ToolRegistry;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * W3C Trace Context through MCP, on real spans (the OpenTelemetry SDK behind Micrometer tracing): a
 * request's {@code _meta.traceparent} makes the server's turn a child of the client's span, on the
 * 2026-07-28 wire and on the 2025-11-25 one, and the result's {@code _meta} names the call's span
 * ({@code traceparent}, the {@code tracestate} passed on, the {@code baggage} echoed); toolbus as a
 * client sends its call's span in {@code _meta}, so the serving toolbus's turn is a child of the
 * calling toolbus's call.
 */
class McpTracingTest {

    static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
    static final String CLIENT_SPAN = "00f067aa0ba902b7";
    static final String TRACEPARENT = "00-" + TRACE_ID + "-" + CLIENT_SPAN + "-01";
    static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode post(String url, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
                .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return JSON.readTree(HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    /** The server's turn joined the client's trace; the result's _meta names the call's span. */
    static void assertJoined(OtelTracing tracing, JsonNode result) {
        // the spans end as the turn ends, which may be just after the response went out
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !tracing.named("toolbus turn").isEmpty()
                && !tracing.named("execute_tool echo").isEmpty());
        SpanData turn = tracing.named("toolbus turn").get(0);
        assertThat(turn.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(turn.getParentSpanId()).isEqualTo(CLIENT_SPAN);
        SpanData call = tracing.named("execute_tool echo").get(0);
        assertThat(call.getParentSpanId()).isEqualTo(turn.getSpanId());
        JsonNode meta = result.path("_meta");
        assertThat(meta.path("traceparent").asText()).as("%s", result)
                .isEqualTo("00-" + TRACE_ID + "-" + call.getSpanId() + "-01");
        assertThat(meta.path("tracestate").asText()).isEqualTo("client=1");
        assertThat(meta.path("baggage").asText()).isEqualTo("tenant=acme");
    }

    @Test
    void aModernRequestsTraceparent_joinsTheCallsTrace_andTheResultNamesTheCallsSpan() throws Exception {
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor executor = ToolExecutor.builder().observationRegistry(tracing.registry)
                     .tools(McpDemoTools.all()).build();
             McpHttpServer http = McpToolServer.builder(executor).build().startHttp("127.0.0.1", 0)
                     .block(Duration.ofSeconds(10))) {
            JsonNode r = post(http.url(), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                    + "\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},\"_meta\":{"
                    + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    + "\"io.modelcontextprotocol/clientCapabilities\":{},\"traceparent\":\"" + TRACEPARENT + "\","
                    + "\"tracestate\":\"client=1\",\"baggage\":\"tenant=acme\"}}}",
                    "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo");
            assertThat(r.path("result").path("content").get(0).path("text").asText()).isEqualTo("hi");
            assertJoined(tracing, r.path("result"));
        }
    }

    @Test
    void aLegacyRequestsTraceparent_joinsTheCallsTraceToo() throws Exception {
        try (OtelTracing tracing = new OtelTracing();
             ToolExecutor executor = ToolExecutor.builder().observationRegistry(tracing.registry)
                     .tools(McpDemoTools.all()).build();
             McpHttpServer http = McpToolServer.builder(executor).build().startHttp("127.0.0.1", 0)
                     .block(Duration.ofSeconds(10))) {
            JsonNode r = post(http.url(), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                    + "\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},\"_meta\":{\"traceparent\":\"" + TRACEPARENT
                    + "\",\"tracestate\":\"client=1\",\"baggage\":\"tenant=acme\"}}}");
            assertThat(r.path("result").path("content").get(0).path("text").asText()).isEqualTo("hi");
            assertJoined(tracing, r.path("result"));
        }
    }

    @Test
    void toolbusAsAClient_sendsItsCallsSpan_onBothEras() throws Exception {
        for (McpServerConfig.Protocol era : List.of(McpServerConfig.Protocol.MODERN, McpServerConfig.Protocol.LEGACY)) {
            try (OtelTracing tracing = new OtelTracing();
                 ToolExecutor server = ToolExecutor.builder().observationRegistry(tracing.registry)
                         .tools(McpDemoTools.all()).build();
                 McpHttpServer http = McpToolServer.builder(server).build().startHttp("127.0.0.1", 0)
                         .block(Duration.ofSeconds(10))) {
                ToolRegistry registry = ToolRegistry.create();
                McpToolSource source = McpToolSource.builder()
                        .server(McpServerConfig.http("remote", http.url()).withProtocol(era)).build()
                        .connect(registry).block(Duration.ofSeconds(30));
                try (ToolExecutor client = ToolExecutor.builder().registry(registry)
                        .observationRegistry(tracing.registry).build()) {
                    ToolCallsEvent turn = new ToolCallsEvent("s1", "t1", List.of(ToolCall.of("c1", "echo",
                            Turns.args("{\"text\":\"hi\"}"))), CallContext.EMPTY, null);
                    List<OutboundEvent> events = client.execute(turn).collectList().block(Duration.ofSeconds(30));
                    assertThat(Turns.result(events).content()).isEqualTo("hi");
                    Awaitility.await().atMost(Duration.ofSeconds(5))
                            .until(() -> tracing.named("toolbus turn").size() == 2);
                    // the calling toolbus's turn and call, the serving toolbus's turn under that call
                    List<SpanData> turns = tracing.named("toolbus turn");
                    List<SpanData> calls = tracing.named("execute_tool echo");
                    SpanData clientTurn = turns.stream().filter(s -> s.getParentSpanContext().getSpanId()
                            .equals("0000000000000000")).findFirst().orElseThrow();
                    SpanData clientCall = calls.stream().filter(s -> s.getParentSpanId().equals(clientTurn.getSpanId()))
                            .findFirst().orElseThrow();
                    SpanData serverTurn = turns.stream().filter(s -> s != clientTurn).findFirst().orElseThrow();
                    assertThat(serverTurn.getTraceId()).as(era.wireName()).isEqualTo(clientTurn.getTraceId());
                    assertThat(serverTurn.getParentSpanId()).as(era.wireName()).isEqualTo(clientCall.getSpanId());
                } finally {
                    source.close();
                }
            }
        }
    }
}
