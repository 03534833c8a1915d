package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.ConformanceTools;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolSpec;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * {@link McpSampling} outside an MCP call: a clear failure, and through the executor an error result; a
 * call is known only to the instance its server was given.
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
        McpSampling sampling = McpSampling.create();
        assertThat(sampling.available(ctx)).isFalse();
        StepVerifier.create(sampling.createMessage(ctx, HI))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("runs under toolbus's MCP server").hasMessageContaining("asker"))
                .verify();
    }

    @Test
    void aToolRunFromTheBusGetsAnErrorResult() {
        McpSampling sampling = McpSampling.create();
        List<ToolSpec> tools = ConformanceTools.all(sampling);
        try (ToolExecutor executor = ToolExecutor.builder().tools(tools).build()) {
            ToolResultEvent r = Turns.result(Turns.run(executor, "test_sampling", "{\"prompt\":\"hi\"}"));
            assertThat(r.isError()).isTrue();
            assertThat(r.content()).contains("runs under toolbus's MCP server");
        }
        assertThat(sampling.running()).isZero();
    }

    @Test
    void aCallIsKnownOnlyToTheInstanceItWasRegisteredWith() {
        ToolContext ctx = ToolContext.builder().streamId("s").turnId("t").toolCallId("c").toolName("asker").build();
        McpSampling mine = McpSampling.create();
        McpSampling other = McpSampling.create();
        try (ToolExecutor executor = ToolExecutor.builder().build()) {
            LiveEvents live = new LiveEvents(executor, dev.toolbus.spi.Principal.local(), null, null, new ObjectMapper());
            assertThat(mine.register("s", "t", "c", live)).isTrue();
            assertThat(mine.register("s", "t", "c", live)).as("the ids are taken").isFalse();
            assertThat(mine.running()).isOne();
            assertThat(other.running()).isZero();
            // known here: the call is found, but this request cannot carry messages to its client
            StepVerifier.create(mine.createMessage(ctx, HI))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("cannot carry messages to the client"))
                    .verify();
            StepVerifier.create(other.createMessage(ctx, HI))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("runs outside one"))
                    .verify();
            mine.unregister("s", "t", "c", live);
            assertThat(mine.running()).isZero();
        }
    }

    @Test
    void aServerUsesTheSamplingItWasGiven_orOneOfItsOwn() {
        McpSampling shared = McpSampling.create();
        try (ToolExecutor executor = ToolExecutor.builder().build()) {
            assertThat(McpToolServer.builder(executor).sampling(shared).build().sampling()).isSameAs(shared);
            McpSampling own = McpToolServer.builder(executor).build().sampling();
            assertThat(own).isNotNull().isNotSameAs(shared)
                    .isNotSameAs(McpToolServer.builder(executor).build().sampling());
        }
    }
}
