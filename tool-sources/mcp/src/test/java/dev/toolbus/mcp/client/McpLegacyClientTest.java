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
 * toolbus as a client of a 2025-11-25 MCP server on the official TypeScript SDK 1.x
 * ({@code src/test/node/ts1-server.mjs}), over stdio ({@code old}) and streamable HTTP ({@code oldweb}),
 * both with {@code protocol: auto}: the {@code server/discover} probe gets no modern answer, so the era
 * is legacy and the {@code initialize} handshake runs (on a fresh process for stdio); tools are listed
 * and called, the server's {@code elicitation/create} is the call's {@code input_request}, and the
 * call's {@code traceparent} reaches the server in {@code _meta}. The server declares the revision's
 * tasks for {@code tools/call} and its {@code ts1_task} says {@code taskSupport: optional}, so toolbus
 * calls it as a task: the server sees the {@code task} parameter and {@code tasks/get} for the task's
 * id, the status messages arrive as progress, the task's question (queued by the SDK for
 * {@code tasks/result}) is the call's {@code input_request} and its answer reaches the tool, and a
 * {@code cancel} sends {@code tasks/cancel}, which the tool sees.
 */
class McpLegacyClientTest {

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
        Path portFile = tmp.resolve("ts1-port.txt");
        httpServer = new ProcessBuilder("node", "ts1-server.mjs", "http", portFile.toString()).directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(portFile)
                && !Files.readString(portFile).isBlank());
        String url = "http://127.0.0.1:" + Files.readString(portFile).strip() + "/mcp";
        Path file = tmp.resolve("mcp-servers.json"); // the source may watch it while the test runs
        Files.writeString(file, "{\"servers\":{\"old\":{\"type\":\"stdio\",\"command\":\"node\",\"args\":[\"ts1-server.mjs\"],"
                + "\"cwd\":" + new ObjectMapper().writeValueAsString(dir.toString()) + "},"
                + "\"oldweb\":{\"type\":\"http\",\"url\":\"" + url + "\",\"protocol\":\"auto\"}}}");
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

    @Test
    void bothTransports_speakTheLegacyEra() {
        assertThat(source.protocol("oldweb")).isEqualTo(McpServerConfig.Protocol.LEGACY);
        assertThat(source.tools()).extracting(t -> t.definition().name()).contains("oldweb__ts1_echo", "oldweb__ts1_task");
        assertThat(Turns.result(run("oldweb__ts1_echo", "{\"text\":\"hi\"}")).content()).isEqualTo("ts1: hi");
    }

    /** The first server's tools keep their names; the second's are prefixed (a clash). */
    static String tool(String server, String name) {
        return server.equals("old") ? name : server + "__" + name;
    }

    static JsonNode seen(String server) throws Exception {
        return new ObjectMapper().readTree(Turns.result(run(tool(server, "ts1_seen"), "{}")).content());
    }

    /** The ids of the tasks the server created, oldest first. */
    static List<String> created(JsonNode seen) {
        List<String> ids = new java.util.ArrayList<>();
        seen.path("created").forEach(id -> ids.add(id.asText()));
        return ids;
    }

    static String lastTask(JsonNode seen) {
        List<String> ids = created(seen);
        return ids.get(ids.size() - 1);
    }

    @Test
    void aTaskCapableTool_runsAsATask_withItsStatusAsProgress() throws Exception {
        for (String server : List.of("old", "oldweb")) {
            int before = created(seen(server)).size();
            List<OutboundEvent> done = run(tool(server, "ts1_task"), "{\"seconds\":0.8}");
            assertThat(Turns.result(done).content()).as(server).isEqualTo("ts1 task done");
            assertThat(done).filteredOn(ToolProgressEvent.class::isInstance)
                    .extracting(e -> ((ToolProgressEvent) e).message())
                    .as("%s: the task's status messages as progress", server).contains("half way");
            JsonNode seen = seen(server);
            assertThat(seen.path("taskCalls").toString()).as(server).contains("\"name\":\"ts1_task\"", "\"ttl\":");
            assertThat(created(seen)).as("%s: a task was created", server).hasSize(before + 1);
            String taskId = lastTask(seen);
            assertThat(seen.path("taskRequests").toString()).as("%s: tasks/get and tasks/result of the task", server)
                    .contains("{\"method\":\"tasks/get\",\"taskId\":\"" + taskId + "\"}",
                            "{\"method\":\"tasks/result\",\"taskId\":\"" + taskId + "\"}");

            // a tool that is a task only (its server refuses it as a plain call)
            assertThat(Turns.result(run(tool(server, "ts1_task_required"), "{\"seconds\":0.2}")).content()).as(server)
                    .isEqualTo("ts1 task done");
            assertThat(created(seen(server))).as(server).hasSize(before + 2);
        }
    }

    @Test
    void aTasksQuestion_becomesAnInputRequest_andItsAnswerReachesTheTool() throws Exception {
        for (String server : List.of("old", "oldweb")) {
            List<OutboundEvent> asked = run(tool(server, "ts1_task"), "{\"seconds\":0.3,\"ask\":true}");
            assertThat(asked).filteredOn(InputRequestEvent.class::isInstance)
                    .extracting(e -> ((InputRequestEvent) e).message()).as(server).containsExactly("Who asks?");
            assertThat(Turns.result(asked).content()).as(server).isEqualTo("ts1 task done: Ada");
            JsonNode seen = seen(server);
            String taskId = lastTask(seen);
            assertThat(seen.path("answers").toString()).as("%s: the answer reached the task's tool", server)
                    .contains("{\"taskId\":\"" + taskId + "\",\"answer\":\"Ada\"}");
        }
    }

    @Test
    void aCancelOfACallWhoseTaskRuns_sendsTasksCancel_andTheToolSeesIt() throws Exception {
        for (String server : List.of("old", "oldweb")) {
            int n = SEQ.incrementAndGet();
            ToolCallsEvent turn = ToolCallsEvent.of("cancel-" + n, "turn-" + n,
                    List.of(ToolCall.of("call_" + n, tool(server, "ts1_task"), Turns.args("{\"seconds\":30}"))));
            List<OutboundEvent> events = new CopyOnWriteArrayList<>();
            var running = executor.execute(turn).doOnNext(events::add).collectList().toFuture();
            // the task runs once its first status message came back as progress
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                    events.stream().anyMatch(ToolProgressEvent.class::isInstance));
            executor.control(CancelEvent.builder().streamId("cancel-" + n).turnId("turn-" + n).toolCallId("call_" + n)
                    .reason("the user said stop").build())
                    .block(Duration.ofSeconds(5));
            running.get(10, TimeUnit.SECONDS);
            ToolResultEvent result = Turns.result(events);
            assertThat(result.error().code()).as(server).isEqualTo(ErrorCode.CANCELLED);
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                JsonNode seen = seen(server);
                String taskId = lastTask(seen);
                assertThat(seen.path("taskRequests").toString()).as("%s sent tasks/cancel", server)
                        .contains("{\"method\":\"tasks/cancel\",\"taskId\":\"" + taskId + "\"}");
                assertThat(seen.path("cancelled").toString()).as("%s: the tool saw the cancel", server).contains(taskId);
            });
        }
    }
}
