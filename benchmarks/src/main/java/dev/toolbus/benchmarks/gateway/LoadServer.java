package dev.toolbus.benchmarks.gateway;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.gateway.Gateway;
import dev.toolbus.gateway.GatewayServer;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * The server side of {@link GatewayLoad}: an executor with the {@code echo} tool behind a gateway on
 * 127.0.0.1, JVM memory meters on {@code /metrics}. Prints {@code PORT <n>} and serves until its
 * standard input ends (the harness holds it open), answering the commands on it ({@link #serveCommands}).
 */
public final class LoadServer {

    private LoadServer() {
    }

    /** The tool the load runs: echo(text), non-blocking, no cache. */
    static ToolSpec echo() {
        return new ToolSpec(ToolDefinition.builder("echo").description("Echo the text back")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "text to echo")).build(),
                (a, c) -> Mono.just(ToolResult.text(a.string("text"))));
    }

    static ToolExecutor executor(PrometheusMeterRegistry meters) {
        // GATEWAY_LOAD_IDEMPOTENCY=off runs without the ledger of idempotent turns (on by default, as in serve)
        boolean ledger = !"off".equalsIgnoreCase(System.getenv("GATEWAY_LOAD_IDEMPOTENCY"));
        return ToolExecutor.builder().tool(echo())
                .settings(ExecutionSettings.builder().maxParallel(20).cacheResults(false).build())
                .idempotency(ledger ? dev.toolbus.executor.state.TurnLedgerSettings.DEFAULTS
                        : dev.toolbus.executor.state.TurnLedgerSettings.OFF)
                .meterRegistry(meters).build();
    }

    /** Starts a gateway for the load on an ephemeral loopback port. */
    static GatewayServer start(ToolExecutor executor, PrometheusMeterRegistry meters, String token) {
        return Gateway.builder().executor(executor).host("127.0.0.1").port(0).token(token).meterRegistry(meters)
                .build().start();
    }

    /**
     * Answers the harness's commands on standard input until it ends: {@code gc} with {@code HEAP <bytes>},
     * the heap used after a full collection; {@code jit} with {@code JIT <ms>}, the time the JIT compilers
     * have spent so far (the warm-up waits for it to stop growing).
     */
    static void serveCommands() throws java.io.IOException {
        BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = commands.readLine(); line != null; line = commands.readLine()) {
            String command = line.strip();
            if (command.equals("gc")) {
                System.gc();
                System.out.println("HEAP " + ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
            } else if (command.equals("jit")) {
                System.out.println("JIT " + jitMillis());
            }
            System.out.flush();
        }
    }

    /** Milliseconds the JIT compilers of this JVM have spent so far (0 where the JVM does not say). */
    static long jitMillis() {
        java.lang.management.CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : 0;
    }

    public static void main(String[] args) throws Exception {
        String token = args.length > 0 ? args[0] : "load-token";
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(meters);
        ToolExecutor executor = executor(meters);
        GatewayServer server = start(executor, meters, token);
        System.out.println("PORT " + server.port());
        System.out.flush();
        serveCommands();
        server.closeGracefully(Duration.ofSeconds(10));
        executor.close();
    }
}
