package dev.toolbus.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolSpec;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * {@link McpSampling} outside an MCP call: a clear failure, and through the executor an error result.
 * The answered path and a client without the capability: {@code NodeConversationTest} and the
 * conformance suite's {@code tools-call-sampling}.
 */
class McpSamplingTest {

    private static final McpSchema.CreateMessageRequest HI = McpSchema.CreateMessageRequest.builder()
            .messages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER, new McpSchema.TextContent("hi"))))
            .maxTokens(10).build();

    @Test
    void failsClearlyWithoutAnMcpCall() {
        ToolContext ctx = ToolContext.builder().streamId("s").turnId("t").toolCallId("c").toolName("asker").build();
        assertThat(McpSampling.available(ctx)).isFalse();
        StepVerifier.create(McpSampling.createMessage(ctx, HI))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("runs under toolbus's MCP server").hasMessageContaining("asker"))
                .verify();
    }

    @Test
    void aToolRunFromTheBusGetsAnErrorResult() {
        List<ToolSpec> tools = ConformanceTools.all();
        try (ToolExecutor executor = ToolExecutor.builder().tools(tools).build()) {
            ToolResultEvent r = Turns.result(Turns.run(executor, "test_sampling", "{\"prompt\":\"hi\"}"));
            assertThat(r.isError()).isTrue();
            assertThat(r.content()).contains("runs under toolbus's MCP server");
        }
        assertThat(McpSampling.running()).isZero();
    }
}
