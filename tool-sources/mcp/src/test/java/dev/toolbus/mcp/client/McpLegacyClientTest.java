package dev.toolbus.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.registry.ToolRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

/**
 * toolbus as a client of a 2025-11-25 MCP server on the official TypeScript SDK 1.x
 * ({@code src/test/node/ts1-server.mjs}) with {@code protocol: auto}: the {@code server/discover} probe
 * gets no modern answer, so the era is legacy and the {@code initialize} handshake runs (on a fresh
 * process); tools are listed and called, the server's {@code elicitation/create} is the call's
 * {@code input_request}, and the call's {@code traceparent} reaches the server in {@code _meta}.
 */
class McpLegacyClientTest {

    static final String TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    static McpToolSource source;
    static ToolExecutor executor;
    static final AtomicInteger SEQ = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        Path dir = NodeTools.install();
        Path file = Files.createTempFile("mcp-servers", ".json");
        Files.writeString(file, "{\"servers\":{\"old\":{\"type\":\"stdio\",\"command\":\"node\",\"args\":[\"ts1-server.mjs\"],"
                + "\"cwd\":" + new ObjectMapper().writeValueAsString(dir.toString()) + "}}}");
        ToolRegistry registry = ToolRegistry.create();
        source = McpToolSource.builder().serversFile(file).build().connect(registry).block(Duration.ofSeconds(60));
        executor = ToolExecutor.builder().registry(registry).settings(ExecutionSettings.builder().timeoutMs(30_000)
                .build()).build();
    }

    @AfterAll
    static void stop() {
        if (source != null) {
            source.closeGracefully().block(Duration.ofSeconds(20));
        }
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(20));
        }
    }

    static List<OutboundEvent> run(String tool, String args) {
        int n = SEQ.incrementAndGet();
        ToolCallsEvent turn = new ToolCallsEvent("legacy-" + n, "turn-" + n, List.of(ToolCall.of("call_" + n, tool,
                Turns.args(args))), CallContext.EMPTY, null, new TraceContext(TRACE, null));
        List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
        executor.execute(turn).doOnNext(e -> {
            seen.add(e);
            if (e instanceof InputRequestEvent r) {
                executor.control(new InputResponseEvent(r.streamId(), r.inputId(), InputAction.ACCEPT,
                        Turns.args("{\"name\":\"Ada\"}"))).subscribeOn(Schedulers.boundedElastic()).subscribe();
            }
        }).blockLast(Duration.ofSeconds(40));
        return seen;
    }

    @Test
    void aLegacyServer_isDetected_listed_called_andAsked() throws Exception {
        assertThat(source.protocol("old")).isEqualTo(McpServerConfig.Protocol.LEGACY);
        assertThat(source.tools()).extracting(t -> t.definition().name()).contains("ts1_echo", "ts1_ask", "ts1_seen");
        assertThat(Turns.result(run("ts1_echo", "{\"text\":\"hi\"}")).content()).isEqualTo("ts1: hi");
        List<OutboundEvent> asked = run("ts1_ask", "{}");
        assertThat(asked).filteredOn(InputRequestEvent.class::isInstance)
                .extracting(e -> ((InputRequestEvent) e).message()).containsExactly("What is your name?");
        assertThat(Turns.result(asked).content()).isEqualTo("Hello, Ada!");
        String seen = Turns.result(run("ts1_seen", "{}")).content();
        assertThat(seen).as("the traceparent went to the server in _meta").contains(TRACE.substring(3, 35));
    }
}
