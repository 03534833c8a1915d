package dev.toolbus.executor.internal;

import static dev.toolbus.executor.TestTools.call;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

class ToolExecutorContextTest {

    private static final CallContext CTX = CallContext.builder().userId("u1").groupId("g100").platform("qq")
            .permission("admin").channel("web").provider("openai").model("gpt").agentId("main")
            .putAll(Map.of("reasoning", "想搜一下")).build();

    @Test
    void streamIdAndChatIdComeFromTheEventNeverFromTheModel() {
        AtomicReference<ToolArguments> seenArgs = new AtomicReference<>();
        AtomicReference<ToolContext> seenCtx = new AtomicReference<>();
        ToolSpec send = new ToolSpec(ToolDefinition.builder("send").description("send")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "t"))
                .parameter(ToolParameter.builder("stream_id", ToolParamType.STRING).required(false).build())
                .parameter(ToolParameter.builder("user_id", ToolParamType.STRING).required(false).build())
                .parameter(ToolParameter.builder("group_id", ToolParamType.STRING).required(false).build())
                .build(), (a, c) -> {
                    seenArgs.set(a);
                    seenCtx.set(c);
                    return Mono.just(ToolResult.text("ok"));
                });
        ToolExecutor ex = ToolExecutor.builder().tool(send).build();
        ToolCallsEvent turn = new ToolCallsEvent("qq:group:123", "t1", List.of(call("c1", "send",
                "{\"text\":\"hi\",\"stream_id\":\"qq:group:999\",\"chat_id\":\"evil\",\"group_id\":\"g7\"}")), CTX,
                Json.mapper().createObjectNode().put("raw", "msg"));
        ex.execute(turn).blockLast(Duration.ofSeconds(5));
        ObjectNode args = seenArgs.get().node();
        assertThat(args.get("stream_id").asText()).isEqualTo("qq:group:123");
        assertThat(args.get("chat_id").asText()).isEqualTo("qq:group:123");
        assertThat(args.get("user_id").asText()).isEqualTo("u1");
        assertThat(args.get("group_id").asText()).as("a model value for a non-stream field wins").isEqualTo("g7");
        assertThat(args.has("platform")).as("undeclared context fields are not injected").isFalse();
        ToolContext c = seenCtx.get();
        assertThat(c.streamId()).isEqualTo("qq:group:123");
        assertThat(c.turnId()).isEqualTo("t1");
        assertThat(c.toolCallId()).isEqualTo("c1");
        assertThat(c.who().permission()).isEqualTo("admin");
        assertThat(c.who().channel()).isEqualTo("web");
        assertThat(c.who().model()).isEqualTo("gpt");
        assertThat(c.message().get("raw").asText()).isEqualTo("msg");
        assertThat(c.attempt()).isEqualTo(1);
    }

    @Test
    void maibotPayloadVectors() throws IOException {
        List<String> lines;
        try (InputStream in = getClass().getResourceAsStream("/maibot-vectors/payload_vectors.out")) {
            lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        CallContext ctx = CallContext.builder().userId("").groupId("g100").platform("qq").permission("").channel("")
                .provider("").model("").agentId("").putAll(Map.of("reasoning", "想搜一下")).build();
        ObjectNode args = (ObjectNode) Json.mapper().readTree("{\"query\":\"MaiBot\",\"limit\":3}");
        assertThat(compact(ContextFields.maibotToolPayload(args, "sess-1", ctx)))
                .isEqualTo(vector(lines, "TOOL "));
        ObjectNode target = (ObjectNode) Json.mapper().readTree("{\"target\":\"MaiBot\"}");
        assertThat(compact(ContextFields.legacyActionPayload(target, "sess-1", ctx)))
                .isEqualTo(vector(lines, "ACTION "));
        // TOOL2: MaiBot lets a truthy model stream_id win; toolbus never does (DESIGN: stream_id from context)
        ObjectNode llm = (ObjectNode) Json.mapper()
                .readTree("{\"query\":\"x\",\"stream_id\":\"llm-supplied\",\"platform\":\"\"}");
        ObjectNode ours = ContextFields.fill(llm, ArgumentRules.of(ToolDefinition.builder("x")
                .parameter(ToolParameter.of("query", ToolParamType.STRING, "q"))
                .parameter(ToolParameter.builder("platform", ToolParamType.STRING).required(false).build())
                .build()), "sess-1", ctx);
        assertThat(ours.get("stream_id").asText()).isEqualTo("sess-1");
        assertThat(ours.get("platform").asText()).isEqualTo("qq");
    }

    private static String vector(List<String> lines, String prefix) {
        String line = lines.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow();
        return line.substring(prefix.length()).strip().replace(", ", ",").replace(": ", ":");
    }

    private static String compact(ObjectNode n) {
        return n.toString();
    }
}
