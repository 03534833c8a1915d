package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.InputAnswer;
import dev.toolbus.tool.InputQuestion;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * {@link McpSampling#together}: a question and a sampling request asked together reach a 2026-07-28
 * client in one {@code input_required} result even when building the second takes far longer than the
 * gathering window, and the retry that answers both completes the call.
 */
class McpQuestionsTogetherTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration SLOW_BUILD = ModernCalls.GATHER.multipliedBy(6);

    static ToolSpec both(McpSampling sampling) {
        return new ToolSpec(ToolDefinition.builder("both").description("asks a name and samples").sideEffecting(true)
                .build(), (args, ctx) -> sampling.together(ctx, () -> {
                    Mono<InputAnswer> name = ctx.ask(InputQuestion.builder("Your name?").key("name").build());
                    slowWork();
                    return Mono.zip(name, sampling.createMessage(ctx, "greeting", McpSchema.CreateMessageRequest.builder()
                            .messages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER,
                                    new McpSchema.TextContent("greet")))).maxTokens(10).build(), Duration.ofSeconds(30)));
                }).map(x -> ToolResult.text("accepted=" + x.getT1().accepted() + " model=" + x.getT2().model())));
    }

    /** The tool's own work between its two questions, longer than the gathering window. */
    private static void slowWork() {
        try {
            Thread.sleep(SLOW_BUILD.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static JsonNode call(McpHttpServer http, String extra) throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"both\",\"arguments\":{}"
                + extra + ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},\"sampling\":{}}}}}";
        HttpRequest r = HttpRequest.newBuilder(URI.create(http.url())).header("Content-Type", "application/json")
                .header("Accept", "application/json").header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call").header("Mcp-Name", "both")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return JSON.readTree(HttpClient.newHttpClient().send(r, HttpResponse.BodyHandlers.ofString()).body());
    }

    @Test
    void questionsAskedTogether_shareOneInputRequiredResult_howeverSlowTheirBuilding() throws Exception {
        McpSampling sampling = McpSampling.create();
        try (ToolExecutor executor = ToolExecutor.builder().tool(both(sampling)).build();
             McpHttpServer http = McpToolServer.builder(executor).sampling(sampling).build().startHttp("127.0.0.1", 0)
                     .block(Duration.ofSeconds(10))) {
            JsonNode first = call(http, "").path("result");
            assertThat(first.path("resultType").asText()).as("%s", first).isEqualTo("input_required");
            assertThat(first.path("inputRequests").has("name")).as("%s", first).isTrue();
            assertThat(first.path("inputRequests").path("greeting").path("method").asText()).as("%s", first)
                    .isEqualTo("sampling/createMessage");
            String answers = ",\"inputResponses\":{\"name\":{\"action\":\"accept\",\"content\":{}},"
                    + "\"greeting\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hi\"},"
                    + "\"model\":\"m1\",\"stopReason\":\"endTurn\"}},\"requestState\":\""
                    + first.path("requestState").asText() + "\"";
            JsonNode done = call(http, answers).path("result");
            assertThat(done.path("content").get(0).path("text").asText()).as("%s", done)
                    .isEqualTo("accepted=true model=m1");
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 0);
        }
    }
}
