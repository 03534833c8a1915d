package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.McpToolHints;
import dev.toolbus.mcp.fixtures.ModernConformanceTools;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Tasks and parked calls beyond what the conformance suite checks: a task's progress is its
 * {@code statusMessage}; a task that outlives its TTL is cancelled (its tool sees the cancel) and
 * forgotten; a task is another client's business only ({@code tasks/get|update|cancel} of another
 * token's task is an unknown task); and calls waiting for the retry of their {@code input_required}
 * result are bounded (one more has its question answered {@code cancel}).
 */
class McpTasksTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final AtomicInteger TICKER_CANCELLED = new AtomicInteger();
    ToolExecutor executor;
    McpHttpServer http;

    @AfterEach
    void stop() {
        if (http != null) {
            http.close();
        }
        if (executor != null) {
            executor.close();
        }
    }

    /** Reports progress 1..5 of 5, 200 ms apart, then answers (or runs until cancelled with n = 1000). */
    static ToolSpec ticker() {
        ToolDefinition.Builder b = ToolDefinition.builder("ticker").description("reports progress").sideEffecting(true);
        McpToolHints.taskSupport(b, McpToolHints.TaskSupport.REQUIRED);
        return new ToolSpec(b.parameter(dev.toolbus.tool.ToolParameter.of("n", dev.toolbus.tool.ToolParamType.INTEGER,
                "steps")).build(), (args, ctx) -> {
                    ctx.onCancel().subscribe(null, null, TICKER_CANCELLED::incrementAndGet);
                    long n = args.integer("n", 5);
                    return Flux.interval(Duration.ofMillis(200)).take(n)
                            .concatMap(i -> ctx.progress(i + 1, (double) n, "step " + (i + 1)))
                            .then(Mono.just(ToolResult.text("ticked")));
                });
    }

    void start(McpToolServer.Builder server) {
        http = server.build().startHttp("127.0.0.1", 0).block(Duration.ofSeconds(10));
    }

    JsonNode call(String method, String params, String name, String token) throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":{" + params
                + ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},"
                + "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}}}";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(http.url())).header("Content-Type", "application/json")
                .header("Accept", "application/json").header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", method).POST(HttpRequest.BodyPublishers.ofString(body));
        if (name != null) {
            b.header("Mcp-Name", name);
        }
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return JSON.readTree(HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    JsonNode get(String taskId, String token) throws Exception {
        return call("tasks/get", "\"taskId\":\"" + taskId + "\"", taskId, token);
    }

    @Test
    void aTasksProgress_isItsStatusMessage() throws Exception {
        executor = ToolExecutor.builder().tool(ticker()).build();
        start(McpToolServer.builder(executor));
        JsonNode created = call("tools/call", "\"name\":\"ticker\",\"arguments\":{\"n\":5}", "ticker", null);
        String id = created.path("result").path("taskId").asText();
        assertThat(created.path("result").path("resultType").asText()).isEqualTo("task");
        List<String> messages = new ArrayList<>();
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() -> {
            JsonNode t = get(id, null).path("result");
            String m = t.path("statusMessage").asText("");
            if (!m.isEmpty() && (messages.isEmpty() || !messages.get(messages.size() - 1).equals(m))) {
                messages.add(m);
            }
            return t.path("status").asText().equals("completed");
        });
        assertThat(messages).as("progress as n/total: message").anyMatch(m -> m.matches("\\d/5: step \\d"));
        assertThat(get(id, null).path("result").path("result").path("content").get(0).path("text").asText())
                .isEqualTo("ticked");
    }

    @Test
    void aTaskPastItsTtl_isCancelled_andForgotten() throws Exception {
        executor = ToolExecutor.builder().tool(ticker()).build();
        start(McpToolServer.builder(executor).taskTtl(Duration.ofMillis(600)));
        int before = TICKER_CANCELLED.get();
        String id = call("tools/call", "\"name\":\"ticker\",\"arguments\":{\"n\":1000}", "ticker", null)
                .path("result").path("taskId").asText();
        assertThat(get(id, null).path("result").path("status").asText()).isEqualTo("working");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> TICKER_CANCELLED.get() == before + 1);
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 0);
        assertThat(get(id, null).path("error").path("code").asInt()).isEqualTo(-32602);
    }

    @Test
    void anotherClientsTask_isUnknownToIt() throws Exception {
        executor = ToolExecutor.builder().tool(ticker()).build();
        start(McpToolServer.builder(executor).tokens(AccessTokens.builder().token("alice", TokenScope.FULL)
                .token("mallory", TokenScope.FULL).build()));
        int before = TICKER_CANCELLED.get();
        String id = call("tools/call", "\"name\":\"ticker\",\"arguments\":{\"n\":1000}", "ticker", "alice")
                .path("result").path("taskId").asText();
        assertThat(get(id, "mallory").path("error").path("code").asInt()).isEqualTo(-32602);
        assertThat(call("tasks/cancel", "\"taskId\":\"" + id + "\"", id, "mallory").path("error").path("code").asInt())
                .isEqualTo(-32602);
        assertThat(call("tasks/update", "\"taskId\":\"" + id + "\",\"inputResponses\":{}", id, "mallory")
                .path("error").path("code").asInt()).isEqualTo(-32602);
        assertThat(get(id, "alice").path("result").path("status").asText()).isEqualTo("working");
        assertThat(TICKER_CANCELLED.get()).isEqualTo(before);
        assertThat(call("tasks/cancel", "\"taskId\":\"" + id + "\"", id, "alice").path("result").path("resultType")
                .asText()).isEqualTo("complete");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> TICKER_CANCELLED.get() == before + 1);
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
                get(id, "alice").path("result").path("status").asText().equals("cancelled"));
    }

    @Test
    void parkedCalls_areBounded() throws Exception {
        McpSampling sampling = McpSampling.create();
        executor = ToolExecutor.builder().tools(ModernConformanceTools.all(sampling,
                new java.util.concurrent.atomic.AtomicReference<>())).build();
        start(McpToolServer.builder(executor).sampling(sampling).maxParkedCalls(1));
        JsonNode first = call("tools/call", "\"name\":\"test_input_required_result_elicitation\",\"arguments\":{}",
                "test_input_required_result_elicitation", null);
        assertThat(first.path("result").path("resultType").asText()).isEqualTo("input_required");
        JsonNode second = call("tools/call", "\"name\":\"test_input_required_result_elicitation\",\"arguments\":{}",
                "test_input_required_result_elicitation", null);
        assertThat(second.path("result").path("resultType").asText()).as("no room to wait: answered cancel")
                .isEqualTo("complete");
        assertThat(second.path("result").path("content").get(0).path("text").asText()).isEqualTo("Hello, cancel!");
    }
}
