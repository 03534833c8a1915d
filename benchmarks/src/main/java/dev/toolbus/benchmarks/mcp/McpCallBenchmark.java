package dev.toolbus.benchmarks.mcp;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.benchmarks.FreshTurns;
import dev.toolbus.benchmarks.OneCallTurns;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.client.McpServerConfig;
import dev.toolbus.mcp.client.McpToolSource;
import dev.toolbus.mcp.server.McpDemoTools;
import dev.toolbus.mcp.server.McpHttpServer;
import dev.toolbus.mcp.server.McpServerMain;
import dev.toolbus.mcp.server.McpToolServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What toolbus adds to a call of an MCP server's tool. The server is toolbus's own MCP server with the
 * sample {@code echo} tool ({@link McpServerMain} / {@link McpToolServer}, calls in parallel), reached
 * <ul>
 *   <li>{@link #toolbus}: through the executor, with the server's tools registered by
 *       {@link McpToolSource} (validation, timeout, meters, call log, events, the cancellation tag);</li>
 *   <li>{@link #sdkClient}: by the MCP Java SDK 2.1.0 client on its own ({@link McpAsyncClient#callTool}),
 *       from the same tool name and argument string, checking the text of the answer.</li>
 * </ul>
 * {@code transport}: {@code stdio} starts the server as a child JVM ({@code McpServerMain}, this jar
 * as its classpath), one per side; toolbus talks to it through its own process transport, the SDK
 * through its {@link StdioClientTransport}. {@code http} starts the server in this JVM on
 * 127.0.0.1 (its CPU and allocation count on both sides alike); both clients use the SDK's
 * {@link HttpClientStreamableHttpTransport}. {@code inFlight} calls at once; each invocation is
 * {@link #CALLS} calls and scores are per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(McpCallBenchmark.CALLS)
public class McpCallBenchmark {

    /** Calls per invocation. */
    static final int CALLS = 200;

    @Param({"stdio", "http"})
    public String transport;

    @Param({"1", "20"})
    public int inFlight;

    private final ObjectMapper mapper = new ObjectMapper();
    private final McpJsonMapper json = new JacksonMcpJsonMapper(mapper);

    private ToolExecutor serverExecutor;
    private McpHttpServer httpServer;

    private ToolExecutor executor;
    private McpToolSource source;
    private FreshTurns fresh;

    private McpAsyncClient client;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) {
        String url = null;
        if (transport.equals("http")) {
            serverExecutor = ToolExecutor.builder().tool(McpDemoTools.echo())
                    .settings(ExecutionSettings.builder().maxParallel(20).cacheResults(false).build())
                    .meterRegistry(new SimpleMeterRegistry()).build();
            httpServer = McpToolServer.builder(serverExecutor).parallelCalls(true).build()
                    .startHttp("127.0.0.1", 0).block(Duration.ofSeconds(30));
            url = httpServer.url();
        } else if (!transport.equals("stdio")) {
            throw new IllegalArgumentException("unknown transport " + transport);
        }
        if (params.getBenchmark().endsWith(".sdkClient")) {
            McpClientTransport t;
            if (url == null) {
                t = new StdioClientTransport(ServerParameters.builder(java()).args(serverArgs()).build(), json);
            } else {
                URI u = URI.create(url);
                t = HttpClientStreamableHttpTransport.builder(u.getScheme() + "://" + u.getRawAuthority())
                        .endpoint(u.getRawPath()).jsonMapper(json).build();
            }
            client = McpClient.async(t).requestTimeout(Duration.ofSeconds(30))
                    .initializationTimeout(Duration.ofSeconds(60)).build();
            client.initialize().block(Duration.ofSeconds(60));
            sdkBatch(null);
            return;
        }
        McpServerConfig config = url == null
                ? McpServerConfig.stdio("bench", java(), serverArgs(), Map.of())
                : McpServerConfig.http("bench", url);
        executor = ToolExecutor.builder()
                .settings(ExecutionSettings.builder().maxParallel(Math.max(5, inFlight))
                        .timeout(Duration.ofSeconds(30)).retryOnError(false).cacheResults(false).build())
                .meterRegistry(new SimpleMeterRegistry())
                .build();
        source = McpToolSource.builder().server(config).build().connect(executor.registry())
                .block(Duration.ofSeconds(90));
        if (source.tools().stream().noneMatch(s -> s.definition().name().equals("echo"))) {
            throw new IllegalStateException("echo not registered from the MCP server: " + source.diagnostics());
        }
        fresh = new FreshTurns(OneCallTurns.turns("echo", CALLS, 64));
        OneCallTurns.run(executor, fresh.next(), inFlight, null);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (client != null) {
            client.closeGracefully().onErrorResume(e -> Mono.empty()).block(Duration.ofSeconds(15));
            client = null;
        }
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(30));
            executor = null;
        }
        if (source != null) {
            source.closeGracefully().block(Duration.ofSeconds(30));
            source = null;
        }
        if (httpServer != null) {
            httpServer.close();
            httpServer = null;
        }
        if (serverExecutor != null) {
            serverExecutor.close();
            serverExecutor = null;
        }
    }

    /** Through toolbus: executor, McpToolSource, SDK client session, the server. */
    @Benchmark
    public int toolbus(Blackhole bh) {
        return OneCallTurns.run(executor, fresh.next(), inFlight, bh);
    }

    /** The MCP Java SDK client alone, from the same tool name and argument string. */
    @Benchmark
    public int sdkClient(Blackhole bh) {
        return sdkBatch(bh);
    }

    private int sdkBatch(Blackhole bh) {
        AtomicInteger ok = new AtomicInteger();
        Flux.range(0, CALLS)
                .flatMap(i -> client.callTool(new McpSchema.CallToolRequest(json, "echo", OneCallTurns.ARGS_JSON)),
                        inFlight)
                .doOnNext(r -> {
                    if (Boolean.TRUE.equals(r.isError()) || r.content().isEmpty()
                            || !(r.content().get(0) instanceof McpSchema.TextContent text)
                            || !OneCallTurns.EXPECTED.equals(text.text())) {
                        throw new IllegalStateException("unexpected MCP result: " + r);
                    }
                    ok.incrementAndGet();
                    if (bh != null) {
                        bh.consume(r);
                    }
                })
                .blockLast(Duration.ofMinutes(2));
        if (ok.get() != CALLS) {
            throw new IllegalStateException("expected " + CALLS + " results, got " + ok.get());
        }
        return ok.get();
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** The child server JVM: this jar's classpath, a small heap, the sample tools, parallel calls. */
    private static List<String> serverArgs() {
        return List.of("-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                McpServerMain.class.getName(), "--parallel");
    }
}
