package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.ModernConformanceTools;
import dev.toolbus.tool.ToolSpec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/**
 * Both eras on one stdio pipe, message by message: a 2026-07-28 request (its {@code _meta} names the
 * version) and a 2025 one interleave; {@code server/discover} answers the probe; a listen stream starts
 * with its acknowledgement, hears a tool list change with its {@code subscriptionId}, and ends with
 * {@code notifications/cancelled}; a cancelled 2026-07-28 call stops its handler; a 2025 client that
 * sent {@code initialize} still gets {@code notifications/tools/list_changed}.
 */
class ModernStdioTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}";

    ToolExecutor executor;
    OutputStream toServer;
    final BlockingQueue<JsonNode> fromServer = new LinkedBlockingQueue<>();
    Disposable serving;

    @BeforeEach
    void start() throws IOException {
        McpSampling sampling = McpSampling.create();
        List<ToolSpec> tools = new ArrayList<>(McpDemoTools.all());
        tools.addAll(ModernConformanceTools.all(sampling, new java.util.concurrent.atomic.AtomicReference<>()));
        executor = ToolExecutor.builder().tools(tools).build();
        PipedInputStream serverIn = new PipedInputStream(1 << 16);
        toServer = new PipedOutputStream(serverIn);
        PipedOutputStream serverOut = new PipedOutputStream();
        PipedInputStream clientIn = new PipedInputStream(serverOut, 1 << 16);
        serving = McpToolServer.builder(executor).sampling(sampling).taskAfter(Duration.ofMillis(100)).build()
                .serveStdio(serverIn, serverOut).subscribe();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(clientIn, StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    fromServer.add(JSON.readTree(line));
                }
            } catch (IOException e) {
                // the pipe closed
            }
        }, "test-stdio-reader");
        reader.setDaemon(true);
        reader.start();
    }

    @AfterEach
    void stop() throws IOException {
        toServer.close();
        serving.dispose();
        executor.close();
    }

    void send(String line) throws IOException {
        toServer.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        toServer.flush();
    }

    /** The next message matching the id (others are kept in order). */
    JsonNode next(String what) throws InterruptedException {
        JsonNode m = fromServer.poll(10, TimeUnit.SECONDS);
        assertThat(m).as("a message for %s", what).isNotNull();
        return m;
    }

    @Test
    void bothEras_interleaveOnOnePipe() throws Exception {
        send("{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"method\":\"server/discover\",\"params\":{" + META + "}}");
        JsonNode discover = next("discover");
        assertThat(discover.path("result").path("supportedVersions").toString()).contains("2026-07-28");
        assertThat(discover.path("result").path("_meta").path("io.modelcontextprotocol/serverInfo").path("name").asText())
                .isEqualTo("toolbus");

        send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
                + "\"capabilities\":{},\"clientInfo\":{\"name\":\"old\",\"version\":\"1\"}}}");
        assertThat(next("initialize").path("result").path("protocolVersion").asText()).isEqualTo("2025-11-25");

        send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":"
                + "{\"text\":\"modern\"}," + META + "}}");
        JsonNode modern = next("modern call");
        assertThat(modern.path("result").path("resultType").asText()).isEqualTo("complete");
        assertThat(modern.path("result").path("content").get(0).path("text").asText()).isEqualTo("modern");

        send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":"
                + "{\"text\":\"legacy\"}}}");
        JsonNode legacy = next("legacy call");
        assertThat(legacy.path("result").has("resultType")).as("a 2025 result has no resultType").isFalse();
        assertThat(legacy.path("result").path("content").get(0).path("text").asText()).isEqualTo("legacy");

        send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"server/discover\",\"params\":{}}");
        assertThat(next("discover without _meta").path("error").path("code").asInt()).isEqualTo(-32602);
    }

    @Test
    void aListenStream_isAcknowledged_hearsAListChange_andEndsWithCancelled() throws Exception {
        send("{\"jsonrpc\":\"2.0\",\"id\":\"L\",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":"
                + "{\"toolsListChanged\":true,\"promptsListChanged\":true}," + META + "}}");
        JsonNode ack = next("ack");
        assertThat(ack.path("method").asText()).isEqualTo("notifications/subscriptions/acknowledged");
        assertThat(ack.path("params").path("_meta").path("io.modelcontextprotocol/subscriptionId").asText()).isEqualTo("L");
        assertThat(ack.path("params").path("notifications").toString())
                .isEqualTo("{\"toolsListChanged\":true}");

        executor.registry().register(new ToolSpec(dev.toolbus.tool.ToolDefinition.builder("late").description("d").build(),
                (a, c) -> reactor.core.publisher.Mono.just(dev.toolbus.tool.ToolResult.text("late"))),
                dev.toolbus.tool.ToolSource.PLUGIN);
        JsonNode changed = next("list changed");
        assertThat(changed.path("method").asText()).isEqualTo("notifications/tools/list_changed");
        assertThat(changed.path("params").path("_meta").path("io.modelcontextprotocol/subscriptionId").asText())
                .isEqualTo("L");

        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"L\"}}");
        executor.registry().removeIf(e -> e.tool().definition().name().equals("late"));
        assertThat(fromServer.poll(1, TimeUnit.SECONDS)).as("nothing more on a cancelled listen").isNull();
    }

    @Test
    void aCancelledModernCall_stopsItsHandler() throws Exception {
        int before = ModernConformanceTools.SLOW_CANCELLED.get();
        send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"slow_compute\",\"arguments\":"
                + "{\"seconds\":30},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 1);
        send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":9}}");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> executor.inflight() == 0);
        assertThat(ModernConformanceTools.SLOW_CANCELLED.get()).isEqualTo(before + 1);
        assertThat(fromServer.poll(500, TimeUnit.MILLISECONDS)).as("a cancelled request gets no response").isNull();
    }
}
