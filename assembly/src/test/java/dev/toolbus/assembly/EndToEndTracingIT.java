package dev.toolbus.assembly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.bus.tck.Brokers;
import dev.toolbus.bus.tck.OtelTracing;
import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigLoader;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.server.McpHttpServer;
import dev.toolbus.mcp.server.McpToolServer;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.tracing.handler.TracingObservationHandler;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;

/**
 * One bot-core turn traced end to end, on the spans the OpenTelemetry SDK exports (its in-memory
 * exporter behind the Micrometer bridge). The bot core is the Python client ({@code clients/python}, a
 * real {@code python3} process on its Redis transport) continuing the bot core's span: its turn goes over
 * a real Redis to a toolbus assembled from a {@code toolbus.yaml} with a stdio plugin (a real Python
 * process on the plugin SDK) and an MCP server (toolbus's own, over streamable HTTP), and the results come
 * back over Redis to the client. The bot core's span, toolbus's turn and one {@code execute_tool} span per
 * call with the GenAI attributes are one trace; the plugin reports the trace context it was called in, a
 * child of its call's span; every result the client receives names its call's span; the client's traced
 * answer to the turn's {@code approval_request} and its {@code cancel} are spans of the same trace; {@code gen_ai.execute_tool.duration} counts both calls.
 */
class EndToEndTracingIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    /** The repository root (holding the plugin SDKs). */
    static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("tool-sources/hosts/python/toolbus_plugin"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("tool-sources/hosts/python not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    /** A stdio plugin on the Python SDK whose tool answers with the trace context it runs in. */
    static Path plugin(Path plugins) throws Exception {
        Path dir = Files.createDirectories(plugins.resolve("lookup"));
        Files.writeString(dir.resolve("lookup.py"), """
                from toolbus_plugin import current_trace, run, tool


                @tool(description="Looks a word up, and says which trace it ran in.")
                def lookup(word: str) -> dict:
                    trace = current_trace()
                    return {"word": word, "seen": trace.headers() if trace else None}


                if __name__ == "__main__":
                    run()
                """);
        String sdk = repoRoot().resolve("tool-sources/hosts/python").toString();
        Files.writeString(dir.resolve("plugin.json"), "{\"id\":\"lookup\",\"command\":\"python3\",\"args\":[\"-u\","
                + "\"lookup.py\"],\"env\":{\"PYTHONPATH\":" + Json.mapper().writeValueAsString(sdk) + "}}");
        return plugins;
    }

    /** The Python interpreter that runs the client: Debian's, which sees python3-redis (scripts/test.sh installs it). */
    static final String CLIENT_PYTHON = System.getenv().getOrDefault("TOOLBUS_CLIENT_PYTHON", "/usr/bin/python3");

    /**
     * The bot core: the Python client on Redis runs one turn in the trace context given on its command
     * line, approves its calls in that context when asked, then cancels what is left of its stream in the same context (a cancel naming the finished
     * turn would be settled by the Redis bus without reaching the executor), and prints the raw events of the turn.
     */
    static Path botCore(Path dir) throws Exception {
        return Files.writeString(Files.createDirectories(dir).resolve("bot_core.py"), """
                import asyncio
                import json
                import sys

                from toolbus import Client, RedisOptions


                async def main(url, calls, results, stream, traceparent):
                    options = RedisOptions(calls_stream=calls, results_key=results)

                    async def approve(request):  # the user's yes, answered in the same trace
                        await tb.respond_approval(request, "approve", traceparent=traceparent, tracestate="core=1")

                    async with Client(url, transport=options, timeout=90, on_approval_request=approve) as tb:
                        turn = await tb.run_turn(stream, [
                            {"tool_call_id": "c1", "name": "lookup", "arguments": {"word": "trace"}},
                            {"type": "tool_use", "id": "c2", "name": "remote_echo", "input": {"text": "hi"}}],
                            turn_id="t1", traceparent=traceparent, tracestate="core=1")
                        await tb.cancel(stream, reason="answered", traceparent=traceparent, tracestate="core=1")
                    print(json.dumps([e.raw for e in turn.events]))


                asyncio.run(main(*sys.argv[1:]))
                """);
    }

    /** Runs the bot core to its end; its stdout (the events as a JSON array). */
    static JsonNode runBotCore(Path script, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(CLIENT_PYTHON, "-u", script.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(script.resolveSibling("bot_core.err").toFile());
        pb.environment().put("PYTHONPATH", repoRoot().resolve("clients/python").toString());
        Process p = pb.start();
        String out;
        try (var in = p.getInputStream()) {
            out = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        } finally {
            if (!p.waitFor(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        assertThat(p.exitValue()).as("the bot core (%s) exited with %s; stdout: %s; stderr: %s", CLIENT_PYTHON,
                p.exitValue(), out, Files.readString(script.resolveSibling("bot_core.err"))).isZero();
        return Json.mapper().readTree(out);
    }

    /** The MCP server's one tool. */
    static ToolSpec remoteEcho() {
        return new ToolSpec(ToolDefinition.builder("remote_echo").description("Echoes a text, on an MCP server.")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "the text")).build(),
                (a, c) -> Mono.just(ToolResult.text("echo: " + a.string("text"))));
    }

    static String attr(SpanData s, String key) {
        return s.getAttributes().get(AttributeKey.stringKey(key));
    }

    /** The one span of this name whose parent is {@code parent}. */
    static SpanData child(List<SpanData> spans, String name, SpanData parent) {
        List<SpanData> found = spans.stream().filter(sp -> sp.getName().equals(name)
                && sp.getParentSpanId().equals(parent.getSpanId())).toList();
        assertThat(found).as("%s under %s in %s", name, parent.getName(), tree(spans)).hasSize(1);
        return found.get(0);
    }

    static SpanData one(List<SpanData> spans, String name) {
        List<SpanData> named = spans.stream().filter(s -> s.getName().equals(name)).toList();
        assertThat(named).as("spans named '%s' among %s", name, spans.stream().map(SpanData::getName).toList())
                .hasSize(1);
        return named.get(0);
    }

    /** The spans as an indented tree with their kinds and attributes (in the failsafe report, for a failure). */
    static String tree(List<SpanData> spans) {
        StringBuilder b = new StringBuilder();
        for (SpanData s : spans) {
            if (spans.stream().noneMatch(p -> p.getSpanId().equals(s.getParentSpanId()))) {
                tree(spans, s, 0, b);
            }
        }
        return b.toString();
    }

    private static void tree(List<SpanData> spans, SpanData s, int depth, StringBuilder b) {
        b.append("  ".repeat(depth)).append(s.getName()).append("  [").append(s.getKind()).append(", trace ")
                .append(s.getTraceId()).append(", span ").append(s.getSpanId()).append(", status ")
                .append(s.getStatus().getStatusCode()).append("]\n");
        java.util.TreeMap<String, Object> attributes = new java.util.TreeMap<>();
        s.getAttributes().forEach((k, v) -> attributes.put(k.getKey(), v));
        attributes.forEach((k, v) -> b.append("  ".repeat(depth + 2)).append(k).append(" = ").append(v).append('\n'));
        spans.stream().filter(c -> c.getParentSpanId().equals(s.getSpanId()))
                .sorted(java.util.Comparator.comparing(SpanData::getName)).forEach(c -> tree(spans, c, depth + 1, b));
    }

    @Test
    void oneTraceCrossesTheBusTheStdioPluginAndTheMcpServer(@TempDir Path tmp) throws Exception {
        String redisUrl = Brokers.redisUrl();
        String ns = "e2e-trace:" + UUID.randomUUID();
        String stream = "s-" + UUID.randomUUID();
        Config config = ConfigLoader.parse("""
                bus:
                  type: redis
                  url: "%s"
                  calls: "%s:calls"
                  results: "%s:results:{stream_id}"
                  deadLetter: "%s:dead"
                  group: e2e
                gateway: {enabled: false}
                approval: {mode: confirm_all}
                """.formatted(redisUrl, ns, ns, ns), n -> null).config();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        RedisClient redisClient = RedisClient.create(redisUrl);
        try (OtelTracing tracing = new OtelTracing();
             // the MCP server's own executor, traced too: it joins the trace from the request's _meta
             ToolExecutor mcpSide = ToolExecutor.builder().tool(remoteEcho()).observationRegistry(tracing.registry).build();
             McpHttpServer mcp = McpToolServer.builder(mcpSide).build().startHttp("127.0.0.1", 0).block(WAIT);
             StatefulRedisConnection<String, String> redis = redisClient.connect()) {
            Path servers = Files.writeString(tmp.resolve("mcp-servers.json"),
                    "{\"mcpServers\":{\"remote\":{\"url\":" + Json.mapper().writeValueAsString(mcp.url()) + "}}}");
            Toolbus toolbus = ToolbusAssembly.from(config).pluginDir(plugin(tmp.resolve("plugins")))
                    .mcpServersFile(servers).observationRegistry(tracing.registry).meterRegistry(meters)
                    .environment(n -> null).build().start();
            try {
                await().atMost(WAIT).until(() -> toolbus.registry().find("lookup") != null
                        && toolbus.registry().find("remote_echo") != null);

                // the bot core's span (the LLM turn whose tool calls it sends), continued by the client
                Observation botCore = Observation.start("bot.core.turn", tracing.registry);
                TracingObservationHandler.TracingContext botTracing = botCore.getContext()
                        .get(TracingObservationHandler.TracingContext.class);
                io.micrometer.tracing.TraceContext bot = botTracing.getSpan().context();
                String traceparent = "00-" + bot.traceId() + "-" + bot.spanId() + "-01";
                List<JsonNode> events = new ArrayList<>();
                runBotCore(botCore(tmp.resolve("bot")), redisUrl, ns + ":calls", ns + ":results:{stream_id}", stream,
                        traceparent).forEach(events::add);
                botCore.stop();
                await().atMost(Duration.ofSeconds(10)).until(() -> tracing.named("toolbus turn").size() == 2
                        && tracing.named("toolbus cancel").size() == 1 && tracing.named("toolbus approval_response").size() == 1
                        && tracing.named("bot.core.turn").size() == 1);
                List<SpanData> spans = tracing.finished();
                System.out.println(tree(spans));

                // one trace: the bot core's span, toolbus's turn under it, a GenAI execute_tool span per call
                assertThat(spans).extracting(SpanData::getTraceId).containsOnly(bot.traceId());
                SpanData root = one(spans, "bot.core.turn");
                SpanData turn = child(spans, "toolbus turn", root);
                SpanData lookup = one(spans, "execute_tool lookup");
                SpanData echo = child(spans, "execute_tool remote_echo", turn);
                // across the MCP boundary: the server's turn is a child of toolbus's call span, its call of that turn
                SpanData remoteTurn = child(spans, "toolbus turn", echo);
                SpanData remoteCall = child(spans, "execute_tool remote_echo", remoteTurn);
                assertThat(attr(remoteCall, "gen_ai.tool.name")).isEqualTo("remote_echo");
                assertThat(attr(remoteCall, "outcome")).isEqualTo("ok");
                assertThat(root.getParentSpanContext().isValid()).isFalse();
                assertThat(turn.getParentSpanId()).isEqualTo(root.getSpanId());
                assertThat(turn.getKind()).isEqualTo(SpanKind.CONSUMER);
                for (SpanData call : List.of(lookup, echo)) {
                    assertThat(call.getParentSpanId()).isEqualTo(turn.getSpanId());
                    assertThat(call.getKind()).isEqualTo(SpanKind.INTERNAL);
                    assertThat(attr(call, "gen_ai.operation.name")).isEqualTo("execute_tool");
                    assertThat(attr(call, "outcome")).isEqualTo("ok");
                    assertThat(attr(call, "error.type")).isNull();
                }
                assertThat(attr(lookup, "gen_ai.tool.name")).isEqualTo("lookup");
                assertThat(attr(lookup, "gen_ai.tool.call.id")).isEqualTo("c1");
                assertThat(attr(lookup, "gen_ai.tool.type")).isEqualTo("function");
                assertThat(attr(lookup, "gen_ai.tool.description")).isEqualTo("Looks a word up, and says which trace it ran in.");
                assertThat(attr(echo, "gen_ai.tool.name")).isEqualTo("remote_echo");
                assertThat(attr(echo, "gen_ai.tool.call.id")).isEqualTo("c2");
                assertThat(attr(echo, "gen_ai.tool.type")).isEqualTo("extension");

                // the client's yes to the approval_request: a span of the bot core's trace
                SpanData approval = one(spans, "toolbus approval_response");
                assertThat(approval.getParentSpanId()).isEqualTo(root.getSpanId());
                assertThat(approval.getKind()).isEqualTo(SpanKind.CONSUMER);
                assertThat(attr(approval, "decision")).isEqualTo("approve");
                assertThat(attr(approval, "outcome")).isEqualTo("applied");

                // the client's cancel of the stream after the turn: a span of the bot core's, nothing left to cancel
                SpanData cancel = one(spans, "toolbus cancel");
                assertThat(cancel.getParentSpanId()).isEqualTo(root.getSpanId());
                assertThat(cancel.getKind()).isEqualTo(SpanKind.CONSUMER);
                assertThat(attr(cancel, "outcome")).isEqualTo("nothing_to_do");
                assertThat(attr(cancel, "stream_id")).isEqualTo(stream);

                // the events the client received over Redis: the approval_request and turn_completed name the
                // turn's span, each result its call's
                assertThat(events).extracting(e -> e.path("type").asText())
                        .containsExactly("approval_request", "tool_result", "tool_result", "turn_completed");
                JsonNode asked = events.remove(0);
                assertThat(asked.path("traceparent").asText())
                        .isEqualTo("00-" + bot.traceId() + "-" + turn.getSpanId() + "-01");
                assertThat(asked.path("tracestate").asText()).isEqualTo("core=1");
                assertThat(events.get(0).path("traceparent").asText())
                        .isEqualTo("00-" + bot.traceId() + "-" + lookup.getSpanId() + "-01");
                assertThat(events.get(1).path("traceparent").asText())
                        .isEqualTo("00-" + bot.traceId() + "-" + echo.getSpanId() + "-01");
                assertThat(events.get(2).path("traceparent").asText())
                        .isEqualTo("00-" + bot.traceId() + "-" + turn.getSpanId() + "-01");
                assertThat(events).allSatisfy(e -> assertThat(e.path("tracestate").asText()).isEqualTo("core=1"));
                assertThat(events.get(1).path("content").asText()).isEqualTo("echo: hi");

                // the plugin process ran in the call's span: its context is a child of execute_tool lookup
                JsonNode seen = events.get(0).path("data").path("seen");
                TraceContext plugin = TraceContext.parse(seen.path("traceparent").asText(null),
                        seen.path("tracestate").asText(null));
                assertThat(plugin).as("the plugin's reported context: %s", events.get(0)).isNotNull();
                assertThat(plugin.traceId()).isEqualTo(bot.traceId());
                assertThat(plugin.spanId()).isEqualTo(lookup.getSpanId());
                assertThat(plugin.sampled()).isTrue();
                assertThat(plugin.tracestate()).isEqualTo("core=1");

                // the GenAI duration metric beside the toolbus meters, one per call
                assertThat(meters.get(ToolMetrics.EXECUTE_TOOL_DURATION).tag("gen_ai.tool.name", "lookup")
                        .tag("gen_ai.tool.type", "function").timer().count()).isEqualTo(1);
                assertThat(meters.get(ToolMetrics.EXECUTE_TOOL_DURATION).tag("gen_ai.tool.name", "remote_echo")
                        .tag("gen_ai.tool.type", "extension").timer().count()).isEqualTo(1);
            } finally {
                toolbus.closeGracefully();
                redis.sync().del(ns + ":calls", ns + ":results:" + stream, ns + ":dead");
            }
        } finally {
            redisClient.shutdown();
        }
    }
}
