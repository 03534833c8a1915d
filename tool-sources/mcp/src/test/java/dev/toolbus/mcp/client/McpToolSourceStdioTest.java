package dev.toolbus.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.FixtureServerMain;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * An external stdio MCP server (this module's fixture server, in its own JVM) as a tool source:
 * registration with a clash, text, structured data, an image split into a follow-up, a timeout that
 * sends a cancellation, a crash mid-call, the reconnect after it, and no process left after close.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class McpToolSourceStdioTest {

    static final List<String> stderr = new CopyOnWriteArrayList<>();
    static McpToolSource source;
    static ToolExecutor executor;

    @BeforeAll
    static void start() {
        ToolRegistry registry = ToolRegistry.create();
        registry.register(Tools.function("echo", "core echo", s -> "core"), ToolSource.CORE);
        List<String> cmd = NodeTools.javaMain(FixtureServerMain.class.getName());
        source = McpToolSource.builder()
                .server(McpServerConfig.stdio("fixture", cmd.get(0), cmd.subList(1, cmd.size()), Map.of()))
                .backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
                .closeGrace(Duration.ofMillis(500))
                .stderr((server, line) -> stderr.add(server + ": " + line))
                .build()
                .connect(registry)
                .block(Duration.ofSeconds(60));
        executor = ToolExecutor.builder().registry(registry)
                .settings(ExecutionSettings.builder().timeoutMs(1500).build()).build();
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

    @Test
    @Order(1)
    void connect_registersToolsAndPrefixesAClash() {
        ToolRegistry r = executor.registry();
        assertThat(r.find("add").source()).isEqualTo(ToolSource.MCP);
        assertThat(r.find("add").tool().definition().pluginId()).isEqualTo("fixture");
        assertThat(r.find("echo").source()).isEqualTo(ToolSource.CORE);
        assertThat(r.find("fixture__echo").source()).isEqualTo(ToolSource.MCP);
        // the renamed tool keeps its original name, which deny, disabledTools and dangerousTools match
        assertThat(r.find("fixture__echo").tool().definition().originalName()).isEqualTo("echo");
        assertThat(r.find("add").tool().definition().originalName()).isNull();
        assertThat(source.diagnostics()).anySatisfy(d -> {
            assertThat(d.kind()).isEqualTo(McpToolSource.Diagnostic.Kind.RENAMED);
            assertThat(d.registeredAs()).isEqualTo("fixture__echo");
        });
        assertThat(source.tools()).extracting(s -> s.name())
                .contains("fixture__echo", "add", "draw", "sleep", "crash", "pid");
    }

    @Test
    @Order(2)
    void call_textAndStructuredData() {
        ToolResultEvent echo = Turns.result(Turns.run(executor, "fixture__echo", "{\"text\":\"hi there\"}"));
        assertThat(echo.isError()).isFalse();
        assertThat(echo.content()).isEqualTo("hi there");

        ToolResultEvent add = Turns.result(Turns.run(executor, "add", "{\"a\":2,\"b\":3.5}"));
        assertThat(add.content()).isEqualTo("5.5");
        assertThat(add.data().toString()).contains("\"sum\":5.5");
    }

    @Test
    @Order(3)
    void call_imageBecomesMediaFollowUp() {
        List<OutboundEvent> events = Turns.run(executor, "draw", "{\"color\":\"green\",\"size\":4}");
        ToolResultEvent r = Turns.result(events);
        assertThat(r.media()).singleElement().satisfies(m -> assertThat(m.type()).isEqualTo("image"));
        List<UserMessageEvent> media = Turns.media(events);
        assertThat(media).hasSize(1);
        assertThat(media.get(0).content()).extracting(ContentPart::type).containsExactly("text", "image");
        assertThat(media.get(0).content().get(1).mimeType()).isEqualTo("image/png");
    }

    @Test
    @Order(4)
    void timeout_sendsCancellationToTheServer() {
        long t0 = System.nanoTime();
        ToolResultEvent r = Turns.result(Turns.run(executor, "sleep", "{\"ms\":20000}"));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
        assertThat(r.isError()).isTrue();
        assertThat(r.error().code()).isEqualTo(ErrorCode.TIMEOUT);
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(stderr).contains("fixture: fixture: sleep cancelled"));
        // the session survives a cancellation
        assertThat(Turns.result(Turns.run(executor, "fixture__echo", "{\"text\":\"still here\"}")).content())
                .isEqualTo("still here");
    }

    @Test
    @Order(4)
    void cancelEvent_sendsCancellationToTheServer() {
        stderr.clear();
        dev.toolbus.protocol.ToolCallsEvent turn = dev.toolbus.protocol.ToolCallsEvent.of("cancel-stream", "cancel-turn",
                List.of(dev.toolbus.protocol.ToolCall.of("cancel_call", "sleep", Turns.args("{\"ms\":20000}"))));
        reactor.test.StepVerifier.create(executor.execute(turn).filter(ToolResultEvent.class::isInstance))
                .then(() -> await().atMost(Duration.ofSeconds(10)).until(() -> executor.inflight() > 0))
                .then(() -> executor.control(dev.toolbus.protocol.CancelEvent.builder().streamId("cancel-stream")
                        .turnId("cancel-turn").reason("the user said stop").build()).block(Duration.ofSeconds(5)))
                .assertNext(e -> assertThat(((ToolResultEvent) e).error().code()).isEqualTo(ErrorCode.CANCELLED))
                .expectComplete()
                .verify(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(stderr).contains("fixture: fixture: sleep cancelled"));
    }

    @Test
    @Order(5)
    void crash_failsTheCallAtOnceAndTheNextCallRestartsTheServer() {
        long before = source.pid("fixture");
        assertThat(before).isPositive();
        long t0 = System.nanoTime();
        ToolResultEvent r = Turns.result(Turns.run(executor, "crash", "{}"));
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofMillis(1400));
        assertThat(r.isError()).isTrue();
        assertThat(r.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(r.content()).contains("fixture").contains("stopped");
        assertThat(ProcessHandle.of(before).map(ProcessHandle::isAlive).orElse(false)).isFalse();

        // the next call restarts the server; a JVM may take longer to start than the 1.5 s call timeout,
        // so the first calls may time out while it starts
        ToolResultEvent[] pid = new ToolResultEvent[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            pid[0] = Turns.result(Turns.run(executor, "pid", "{}"));
            return !pid[0].isError();
        });
        assertThat(Long.parseLong(pid[0].content())).isNotEqualTo(before).isEqualTo(source.pid("fixture"));
    }

    @Test
    @Order(6)
    void close_stopsTheServerProcess() {
        long pid = source.pid("fixture");
        assertThat(pid).isPositive();
        source.closeGracefully().block(Duration.ofSeconds(20));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
        ToolResultEvent r = Turns.result(Turns.run(executor, "pid", "{}"));
        assertThat(r.isError()).isTrue();
        assertThat(r.content()).contains("closed");
    }
}
