package dev.toolbus.mcp.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.registry.ToolRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.scheduler.Schedulers;

/**
 * toolbus as a client of a 2026-07-28-only MCP server on the official TypeScript SDK 2.x
 * ({@code src/test/node/ts2-server.mjs}, which rejects {@code initialize}), over stdio and over HTTP,
 * both configured with {@code protocol: auto}: the era is discovered ({@code server/discover}), the
 * tools are listed and called with the {@code _meta} envelope, an {@code input_required} round becomes
 * an {@code input_request} whose answer reaches the server on the retry, a task is polled to its end
 * (its status message arrives as progress) and its question is answered with {@code tasks/update}, a
 * {@code cancel} of a call whose task runs sends {@code tasks/cancel}, and the call's
 * {@code traceparent} reaches the server in {@code _meta}.
 */
class McpModernClientTest {

    static final String TRACE = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    static McpToolSource source;
    static ToolExecutor executor;
    static Process httpServer;
    /** The port file and mcp-servers.json; removed after {@link #stop()}. */
    @TempDir
    static Path tmp;
    static final AtomicInteger SEQ = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        Path dir = NodeTools.install();
        Path portFile = tmp.resolve("ts2-port.txt");
        httpServer = new ProcessBuilder("node", "ts2-server.mjs", "http", portFile.toString()).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(portFile)
                && !Files.readString(portFile).isBlank());
        String url = "http://127.0.0.1:" + Files.readString(portFile).strip() + "/mcp";
        Path file = tmp.resolve("mcp-servers.json"); // the source may watch it while the test runs
        Files.writeString(file, "{\"mcpServers\":{"
                + "\"pipe\":{\"command\":\"node\",\"args\":[\"ts2-server.mjs\",\"stdio\"],\"cwd\":"
                + new ObjectMapper().writeValueAsString(dir.toString()) + "},"
                + "\"web\":{\"url\":\"" + url + "\",\"protocol\":\"auto\"}}}");
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
        if (httpServer != null) {
            httpServer.destroy();
            try {
                if (!httpServer.waitFor(10, TimeUnit.SECONDS)) {
                    httpServer.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A one-call turn (with a trace context); questions are answered accept {@code {"name":"Ada"}}. */
    static List<OutboundEvent> run(String tool, String args) {
        int n = SEQ.incrementAndGet();
        ToolCallsEvent turn = new ToolCallsEvent("modern-" + n, "turn-" + n, List.of(ToolCall.of("call_" + n, tool,
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

    static JsonNode seen(String server) throws Exception {
        // the first server's tools keep their names; the second's are prefixed (a clash)
        return new ObjectMapper().readTree(Turns.result(run(server.equals("pipe") ? "ts_seen" : "web__ts_seen", "{}"))
                .content());
    }

    @Test
    void theEraIsDiscovered_andTheToolsAreListed() {
        assertThat(source.diagnostics()).extracting(McpToolSource.Diagnostic::kind)
                .doesNotContain(McpToolSource.Diagnostic.Kind.SERVER_FAILED);
        assertThat(source.tools()).extracting(t -> t.definition().name())
                .contains("ts_echo", "ts_ask", "ts_task", "ts_seen", "web__ts_echo", "web__ts_task");
        assertThat(source.protocol("pipe")).isEqualTo(McpServerConfig.Protocol.MODERN);
        assertThat(source.protocol("web")).isEqualTo(McpServerConfig.Protocol.MODERN);
    }

    @Test
    void aCall_carriesTheTraceContext() throws Exception {
        for (String server : List.of("pipe", "web")) {
            String tool = server.equals("pipe") ? "ts_echo" : "web__ts_echo";
            assertThat(Turns.result(run(tool, "{\"text\":\"hi\"}")).content()).isEqualTo("ts2: hi");
            assertThat(seen(server).path("traceparents").toString()).as(server).contains(TRACE.substring(3, 35));
        }
    }

    @Test
    void anInputRequiredRound_becomesAnInputRequest_andTheAnswerReachesTheServer() {
        for (String tool : List.of("ts_ask", "web__ts_ask")) {
            List<OutboundEvent> events = run(tool, "{}");
            InputRequestEvent asked = events.stream().filter(InputRequestEvent.class::isInstance)
                    .map(InputRequestEvent.class::cast).findFirst().orElseThrow();
            assertThat(asked.message()).isEqualTo("What is your name?");
            assertThat(asked.schema().path("required").toString()).contains("name");
            assertThat(Turns.result(events).content()).as(tool).isEqualTo("Hello, Ada!");
        }
    }

    @Test
    void aTask_isPolledToItsEnd_andItsQuestionIsAnsweredWithTasksUpdate() {
        for (String tool : List.of("ts_task", "web__ts_task")) {
            List<OutboundEvent> done = run(tool, "{\"seconds\":0.5}");
            assertThat(Turns.result(done).content()).as(tool).isEqualTo("ts2 task done");
            assertThat(done).filteredOn(ToolProgressEvent.class::isInstance).extracting(e -> ((ToolProgressEvent) e).message())
                    .as("the task's status message as progress").contains("started");

            List<OutboundEvent> asked = run(tool, "{\"seconds\":0.3,\"ask\":true}");
            assertThat(asked).filteredOn(InputRequestEvent.class::isInstance).hasSize(1);
            assertThat(Turns.result(asked).content()).as(tool).isEqualTo("ts2 task done: Ada");
        }
    }

    @Test
    void aCancelOfACallWhoseTaskRuns_sendsTasksCancel() throws Exception {
        for (String server : List.of("pipe", "web")) {
            String tool = server.equals("pipe") ? "ts_task" : "web__ts_task";
            int n = SEQ.incrementAndGet();
            ToolCallsEvent turn = ToolCallsEvent.of("cancel-" + n, "turn-" + n,
                    List.of(ToolCall.of("call_" + n, tool, Turns.args("{\"seconds\":30}"))));
            List<OutboundEvent> events = new CopyOnWriteArrayList<>();
            var run = executor.execute(turn).doOnNext(events::add).collectList().toFuture();
            // the task runs once the server's first status message ("started") came back as progress
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                    events.stream().anyMatch(ToolProgressEvent.class::isInstance));
            executor.control(CancelEvent.builder().streamId("cancel-" + n).turnId("turn-" + n).toolCallId("call_" + n)
                    .reason("the user said stop").build())
                    .block(Duration.ofSeconds(5));
            run.get(10, TimeUnit.SECONDS);
            ToolResultEvent result = Turns.result(events);
            assertThat(result.error().code()).isEqualTo(ErrorCode.CANCELLED);
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(seen(server).path("cancelled").size()).as("%s saw tasks/cancel", server).isPositive());
        }
    }
}
