package dev.toolbus.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Conversation control with an external MCP server ({@code @modelcontextprotocol/server-everything}
 * over stdio): its progress notifications arrive as {@code tool_progress} in order before the
 * result; its {@code elicitation/create} arrives as {@code input_request}, and the bot's
 * {@code input_response} (accept, decline, cancel) or the question's expiry is the server's answer; a
 * {@code cancel} event ends a running call as {@code CANCELLED} promptly.
 */
class McpClientConversationTest {

    static McpToolSource source;
    static ToolExecutor executor;
    /** Holds mcp-servers.json; removed after {@link #stop()}. */
    @TempDir
    static Path tmp;
    static final AtomicInteger SEQ = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        Path dir = NodeTools.install();
        Path entry = dir.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        Path file = tmp.resolve("mcp-servers.json"); // the source may watch it while the test runs
        Files.writeString(file, "{\"mcpServers\":{\"everything\":{\"command\":\"node\",\"args\":["
                + "\"" + entry.toString().replace("\\", "\\\\") + "\",\"stdio\"]}}}");
        ToolRegistry registry = ToolRegistry.create();
        source = McpToolSource.builder().serversFile(file).build().connect(registry).block(Duration.ofSeconds(90));
        executor = ToolExecutor.builder().registry(registry).settings(ExecutionSettings.builder().timeoutMs(30_000)
                .inputTimeoutMs(1_000).build()).build();
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

    /**
     * Runs a one-call turn, handing each event to {@code onEvent} as it comes; the events in order.
     * Control events are sent from another thread, as a bus delivers them.
     */
    static List<OutboundEvent> run(String tool, String args, Consumer<OutboundEvent> onEvent) {
        int n = SEQ.incrementAndGet();
        ToolCallsEvent turn = ToolCallsEvent.of("conv-" + n, "turn-" + n, List.of(ToolCall.of("call_" + n, tool,
                Turns.args(args))));
        List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
        executor.execute(turn).doOnNext(e -> {
            seen.add(e);
            onEvent.accept(e);
        }).blockLast(Duration.ofSeconds(40));
        return seen;
    }

    @Test
    void serverProgress_becomesToolProgressInOrderBeforeTheResult() {
        List<OutboundEvent> events = run("trigger-long-running-operation", "{\"duration\":1.2,\"steps\":4}", e -> { });
        List<ToolProgressEvent> progress = events.stream().filter(ToolProgressEvent.class::isInstance)
                .map(ToolProgressEvent.class::cast).toList();
        assertThat(progress).extracting(ToolProgressEvent::progress).containsExactly(1.0, 2.0, 3.0, 4.0);
        assertThat(progress).allSatisfy(p -> {
            assertThat(p.total()).isEqualTo(4.0);
            assertThat(p.name()).isEqualTo("trigger-long-running-operation");
        });
        ToolResultEvent result = Turns.result(events);
        assertThat(result.content()).contains("Long running operation completed");
        assertThat(events.indexOf(progress.get(3))).isLessThan(events.indexOf(result));
    }

    static List<OutboundEvent> elicit(InputAction action, JsonNode content) {
        return run("trigger-elicitation-request", "{}", e -> {
            if (e instanceof InputRequestEvent r && action != null) {
                executor.control(new InputResponseEvent(r.streamId(), r.inputId(), action, content))
                        .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic()).subscribe();
            }
        });
    }

    @Test
    void elicitation_becomesAnInputRequest_acceptedContentReachesTheServer() throws Exception {
        List<OutboundEvent> events = elicit(InputAction.ACCEPT, Json.mapper().readTree("{\"name\":\"Ada Lovelace\"}"));
        InputRequestEvent asked = events.stream().filter(InputRequestEvent.class::isInstance)
                .map(InputRequestEvent.class::cast).findFirst().orElseThrow();
        assertThat(asked.message()).isEqualTo("Please provide inputs for the following fields:");
        assertThat(asked.schema().path("properties").has("name")).isTrue();
        assertThat(asked.toolCallId()).startsWith("call_");
        ToolResultEvent r = Turns.result(events);
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).contains("User provided the requested information").contains("- Name: Ada Lovelace");
        assertThat(events.indexOf(asked)).isLessThan(events.indexOf(r));
    }

    @Test
    void elicitation_declineAndCancel() {
        assertThat(Turns.result(elicit(InputAction.DECLINE, null)).content()).contains("User declined");
        assertThat(Turns.result(elicit(InputAction.CANCEL, null)).content()).contains("User cancelled");
    }

    @Test
    void elicitation_expiry_isCancelForTheServer() {
        long t0 = System.nanoTime();
        ToolResultEvent r = Turns.result(elicit(null, null));
        assertThat(r.content()).contains("User cancelled").contains("\"action\": \"cancel\"");
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void cancelEvent_endsTheCallPromptly() {
        long[] cancelledAt = new long[1];
        List<OutboundEvent> events = run("trigger-long-running-operation", "{\"duration\":30,\"steps\":30}", e -> {
            if (e instanceof ToolProgressEvent p && cancelledAt[0] == 0) {
                cancelledAt[0] = System.nanoTime();
                executor.control(CancelEvent.builder().streamId(p.streamId()).turnId(p.turnId())
                        .toolCallId(p.toolCallId()).reason("the user said stop").build())
                        .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic())
                        .subscribe();
            }
        });
        ToolResultEvent r = Turns.result(events);
        assertThat(r.isError()).isTrue();
        assertThat(r.error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(cancelledAt[0]).isPositive();
        // the bound: promptly means within a second of the cancel
        assertThat(Duration.ofNanos(System.nanoTime() - cancelledAt[0])).isLessThan(Duration.ofSeconds(1));
        // the session is still usable
        assertThat(Turns.result(run("echo", "{\"message\":\"after\"}", e -> { })).content()).isEqualTo("Echo: after");
    }
}
