package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.InputQuestion;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A URL-mode question on the 2026-07-28 wire: a client that declared {@code elicitation.url} gets it as
 * an {@code input_required} {@code elicitation/create} with {@code mode: "url"} and the URL, and its
 * {@code accept} on the retry reaches the tool (without content); a client that did not is refused
 * with -32021 naming {@code elicitation.url}, and the call is cancelled.
 */
class McpUrlModeTest {

    static final ObjectMapper JSON = new ObjectMapper();

    static ToolSpec pay() {
        return new ToolSpec(ToolDefinition.builder("pay").description("asks to pay").sideEffecting(true).build(),
                (args, ctx) -> ctx.ask(InputQuestion.builder("Pay 5 EUR").url("https://pay.example/checkout?o=42")
                        .key("payment").build()).map(a -> ToolResult.text("paid=" + a.accepted())));
    }

    static JsonNode call(McpHttpServer http, String caps, String extra) throws Exception {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"pay\",\"arguments\":{}"
                + extra + ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":" + caps + "}}}";
        HttpRequest r = HttpRequest.newBuilder(URI.create(http.url())).header("Content-Type", "application/json")
                .header("Accept", "application/json").header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call").header("Mcp-Name", "pay")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        HttpResponse<String> res = HttpClient.newHttpClient().send(r, HttpResponse.BodyHandlers.ofString());
        JsonNode json = JSON.readTree(res.body());
        ((com.fasterxml.jackson.databind.node.ObjectNode) json).put("httpStatus", res.statusCode());
        return json;
    }

    @Test
    void aUrlQuestion_isAnInputRequiredElicitationInUrlMode() throws Exception {
        try (ToolExecutor executor = ToolExecutor.builder().tool(pay()).build();
             McpHttpServer http = McpToolServer.builder(executor).build().startHttp("127.0.0.1", 0)
                     .block(Duration.ofSeconds(10))) {
            JsonNode first = call(http, "{\"elicitation\":{\"form\":{},\"url\":{}}}", "");
            JsonNode request = first.path("result").path("inputRequests").path("payment");
            assertThat(first.path("result").path("resultType").asText()).as("%s", first).isEqualTo("input_required");
            assertThat(request.path("method").asText()).isEqualTo("elicitation/create");
            assertThat(request.path("params").path("mode").asText()).isEqualTo("url");
            assertThat(request.path("params").path("url").asText()).isEqualTo("https://pay.example/checkout?o=42");
            String state = first.path("result").path("requestState").asText();
            JsonNode done = call(http, "{\"elicitation\":{\"form\":{},\"url\":{}}}",
                    ",\"inputResponses\":{\"payment\":{\"action\":\"accept\"}},\"requestState\":\"" + state + "\"");
            assertThat(done.path("result").path("content").get(0).path("text").asText()).isEqualTo("paid=true");

            JsonNode refused = call(http, "{\"elicitation\":{}}", "");
            assertThat(refused.path("httpStatus").asInt()).isEqualTo(400);
            assertThat(refused.path("error").path("code").asInt()).isEqualTo(-32021);
            assertThat(refused.path("error").path("data").path("requiredCapabilities").toString())
                    .isEqualTo("{\"elicitation\":{\"url\":{}}}");
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 0);
        }
    }
}
