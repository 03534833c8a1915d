package dev.toolbus.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.client.McpServerConfig;
import dev.toolbus.mcp.client.McpToolSource;
import dev.toolbus.mcp.fixtures.ConformanceTools;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.mcp.server.McpDemoTools;
import dev.toolbus.mcp.server.McpHttpServer;
import dev.toolbus.mcp.server.McpSampling;
import dev.toolbus.mcp.server.McpToolServer;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * toolbus to toolbus over MCP streamable HTTP, in one JVM: an executor's tools served by
 * {@link McpToolServer} on reactor-netty and consumed by {@link McpToolSource} into a second
 * executor. Covers the result mapping both ways, cancellation across the wire, a server that goes
 * away and comes back.
 */
class McpHttpRoundTripTest {

    final AtomicInteger cancelled = new AtomicInteger();
    ToolExecutor serverExecutor;
    McpHttpServer http;
    McpToolSource source;
    final McpSampling sampling = McpSampling.create();
    ToolExecutor clientExecutor;

    ToolSpec slow() {
        ToolDefinition def = ToolDefinition.builder("slow").description("Waits.")
                .parameter(ToolParameter.of("ms", ToolParamType.INTEGER, "How long")).build();
        return new ToolSpec(def, (args, ctx) -> {
            ctx.onCancel().subscribe(null, null, cancelled::incrementAndGet);
            return Mono.delay(Duration.ofMillis(args.integer("ms", 100))).thenReturn(ToolResult.text("done"));
        });
    }

    @BeforeEach
    void start() {
        List<ToolSpec> tools = new ArrayList<>(McpDemoTools.all());
        tools.add(slow());
        tools.addAll(ConformanceTools.all(sampling));
        tools.add(new ToolSpec(ToolDefinition.builder("low").description("Reads only.").risk(dev.toolbus.protocol.Risk.LOW)
                .build(), (args, ctx) -> Mono.just(ToolResult.text("read"))));
        tools.add(new ToolSpec(ToolDefinition.builder("refuse").description("Always refuses.").build(),
                (args, ctx) -> Mono.just(ToolResult.error("refused: not today"))));
        serverExecutor = ToolExecutor.builder().tools(tools)
                .settings(ExecutionSettings.builder().timeoutMs(60_000).build()).build();
        http = McpToolServer.builder(serverExecutor).parallelCalls(true).sampling(sampling).build()
                .startHttp("127.0.0.1", 0)
                .block(Duration.ofSeconds(10));
        ToolRegistry registry = ToolRegistry.create();
        source = McpToolSource.builder().server(McpServerConfig.http("remote", http.url()))
                .backoff(Duration.ofMillis(50), Duration.ofMillis(200)).build()
                .connect(registry).block(Duration.ofSeconds(30));
        clientExecutor = ToolExecutor.builder().registry(registry)
                .settings(ExecutionSettings.builder().timeoutMs(1000).build()).build();
    }

    @Test
    void progressAndQuestions_crossBothToolbusLayers() throws Exception {
        List<OutboundEvent> events = clientExecutor.execute(dev.toolbus.protocol.ToolCallsEvent.of("rt", "rt-1",
                List.of(dev.toolbus.protocol.ToolCall.of("p1", "test_tool_with_progress", Turns.args("{}")))))
                .collectList().block(Duration.ofSeconds(10));
        assertThat(events).filteredOn(dev.toolbus.protocol.ToolProgressEvent.class::isInstance)
                .extracting(e -> ((dev.toolbus.protocol.ToolProgressEvent) e).progress()).containsExactly(0.0, 50.0, 100.0);
        assertThat(Turns.result(events).content()).isEqualTo("progress reported");

        com.fasterxml.jackson.databind.JsonNode answer = dev.toolbus.protocol.Json.mapper()
                .readTree("{\"username\":\"bob\",\"email\":\"bob@example.org\"}");
        List<OutboundEvent> asked = clientExecutor.execute(dev.toolbus.protocol.ToolCallsEvent.of("rt", "rt-2",
                        List.of(dev.toolbus.protocol.ToolCall.of("e1", "test_elicitation", Turns.args("{\"message\":\"Who?\"}")))))
                .doOnNext(e -> {
                    if (e instanceof dev.toolbus.protocol.InputRequestEvent r) {
                        clientExecutor.control(new dev.toolbus.protocol.InputResponseEvent(r.streamId(), r.inputId(),
                                dev.toolbus.protocol.InputAction.ACCEPT, answer))
                                .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic()).subscribe();
                    }
                }).collectList().block(Duration.ofSeconds(10));
        assertThat(asked).filteredOn(dev.toolbus.protocol.InputRequestEvent.class::isInstance).singleElement()
                .satisfies(e -> assertThat(((dev.toolbus.protocol.InputRequestEvent) e).message()).isEqualTo("Who?"));
        assertThat(Turns.result(asked).content())
                .isEqualTo("User response: action=accept, content={\"username\":\"bob\",\"email\":\"bob@example.org\"}");
    }

    @AfterEach
    void stop() {
        clientExecutor.closeGracefully().block(Duration.ofSeconds(10));
        source.closeGracefully().block(Duration.ofSeconds(10));
        http.closeGracefully().block(Duration.ofSeconds(10));
        serverExecutor.closeGracefully().block(Duration.ofSeconds(10));
    }

    @Test
    void aServersToolListChange_isFollowed_added_changed_removed() {
        followsListChanges(clientExecutor, source);
    }

    @Test
    void aModernServersToolListChange_isFollowed_throughItsListenStream() {
        ToolRegistry registry = ToolRegistry.create();
        McpToolSource modern = McpToolSource.builder().server(McpServerConfig.http("remote", http.url())
                        .withProtocol(McpServerConfig.Protocol.MODERN)).build()
                .connect(registry).block(Duration.ofSeconds(30));
        try (ToolExecutor executor = ToolExecutor.builder().registry(registry).build()) {
            assertThat(modern.protocol("remote")).isEqualTo(McpServerConfig.Protocol.MODERN);
            followsListChanges(executor, modern);
        } finally {
            modern.closeGracefully().block(Duration.ofSeconds(10));
        }
    }

    /** A tool added to the serving registry, then changed, then removed: the client's registry follows. */
    private void followsListChanges(ToolExecutor client, McpToolSource src) {
        ToolRegistry served = serverExecutor.registry();
        served.register(new ToolSpec(ToolDefinition.builder("late").description("Arrives later.").build(),
                (args, ctx) -> Mono.just(ToolResult.text("late one"))), dev.toolbus.tool.ToolSource.PLUGIN);
        await().atMost(Duration.ofSeconds(10)).until(() -> client.registry().find("late") != null);
        assertThat(Turns.result(Turns.run(client, "late", "{}")).content()).isEqualTo("late one");
        assertThat(src.tools()).extracting(ToolSpec::name).contains("late");

        served.replace(new ToolSpec(ToolDefinition.builder("late").description("Arrives later, changed.").build(),
                (args, ctx) -> Mono.just(ToolResult.text("late two"))), dev.toolbus.tool.ToolSource.PLUGIN);
        await().atMost(Duration.ofSeconds(10)).until(() -> "Arrives later, changed."
                .equals(client.registry().find("late").tool().definition().description(dev.toolbus.text.DescriptionLocale.EN)));
        assertThat(Turns.result(Turns.run(client, "late", "{}")).content()).isEqualTo("late two");

        served.removeIf(e -> e.tool().name().equals("late"));
        await().atMost(Duration.ofSeconds(10)).until(() -> client.registry().find("late") == null);
        assertThat(src.tools()).extracting(ToolSpec::name).doesNotContain("late").contains("echo", "slow");
        assertThat(Turns.result(Turns.run(client, "echo", "{\"text\":\"still\"}")).content()).isEqualTo("still");
        assertThat(src.diagnostics()).isEmpty();
    }

    @Test
    void tools_areServedAndRegistered() {
        assertThat(source.tools()).extracting(ToolSpec::name).startsWith("echo", "add", "draw", "slow")
                .hasSize(6 + ConformanceTools.all(sampling).size()).contains("refuse", "test_elicitation");
        // hints travel only where there is evidence: none for a plain tool, read-only for a low-risk one
        assertThat(clientExecutor.registry().find("test_simple_text").tool().definition().metadata())
                .doesNotContainKeys(McpToolHints.READ_ONLY_HINT, McpToolHints.DESTRUCTIVE_HINT);
        assertThat(clientExecutor.registry().find("low").tool().definition().metadata())
                .containsEntry(McpToolHints.READ_ONLY_HINT, true).doesNotContainKey(McpToolHints.DESTRUCTIVE_HINT);
        assertThat(clientExecutor.registry().find("low").tool().definition().sideEffecting()).isFalse();
        ToolDefinition add = clientExecutor.registry().find("add").tool().definition();
        assertThat(add.inputSchema().path("properties").has("a")).isTrue();
        assertThat(add.pluginId()).isEqualTo("remote");
        assertThat(source.diagnostics()).isEmpty();
    }

    @Test
    void call_textDataAndImageCrossTheWire() {
        assertThat(Turns.result(Turns.run(clientExecutor, "echo", "{\"text\":\"over http\"}")).content())
                .isEqualTo("over http");
        ToolResultEvent add = Turns.result(Turns.run(clientExecutor, "add", "{\"a\":40,\"b\":2}"));
        assertThat(add.content()).isEqualTo("42");
        assertThat(add.data().toString()).isEqualTo("{\"sum\":42}");

        List<OutboundEvent> events = Turns.run(clientExecutor, "draw", "{\"color\":\"red\",\"size\":3}");
        assertThat(Turns.media(events)).singleElement().satisfies(m -> {
            assertThat(m.content()).extracting(ContentPart::type).containsExactly("text", "image");
            assertThat(m.content().get(1).mimeType()).isEqualTo("image/png");
        });
    }

    @Test
    void call_serverSideErrorIsAnErrorResult() {
        ToolResultEvent r = Turns.result(Turns.run(clientExecutor, "refuse", "{}"));
        assertThat(r.isError()).isTrue();
        assertThat(r.error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
        assertThat(r.content()).isEqualTo("refused: not today");
        // arguments are checked against the server's schema on this side already
        ToolResultEvent bad = Turns.result(Turns.run(clientExecutor, "echo", "{}"));
        assertThat(bad.error().code()).isEqualTo(ErrorCode.INVALID_ARGUMENTS);
    }

    @Test
    void timeout_cancelsTheCallOnTheServer() {
        ToolResultEvent r = Turns.result(Turns.run(clientExecutor, "slow", "{\"ms\":30000}"));
        assertThat(r.error().code()).isEqualTo(ErrorCode.TIMEOUT);
        await().atMost(Duration.ofSeconds(5)).until(() -> cancelled.get() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> serverExecutor.inflight() == 0);
    }

    @Test
    void serverGoesAway_callsFailFastThenReconnect() {
        int port = http.port();
        assertThat(Turns.result(Turns.run(clientExecutor, "echo", "{\"text\":\"a\"}")).isError()).isFalse();
        http.closeGracefully().block(Duration.ofSeconds(10));

        ToolResultEvent down = Turns.result(Turns.run(clientExecutor, "echo", "{\"text\":\"b\"}"));
        assertThat(down.isError()).isTrue();
        assertThat(down.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(down.content()).contains("remote");

        http = McpToolServer.builder(serverExecutor).build().startHttp("127.0.0.1", port).block(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10)).until(() ->
                "c".equals(Turns.result(Turns.run(clientExecutor, "echo", "{\"text\":\"c\"}")).content()));
    }
}
