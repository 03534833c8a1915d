package dev.toolbus.server;

import dev.toolbus.assembly.BusAddress;
import dev.toolbus.assembly.Toolbus;
import dev.toolbus.assembly.ToolbusAssembly;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigWatcher;
import dev.toolbus.config.LiveConfig;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.server.McpHttpServer;
import dev.toolbus.mcp.server.McpToolServer;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.registry.ToolRegistry;
import java.util.List;
import java.util.ArrayList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * {@code toolbus mcp}: serves the tools (sample tools, plugins, skills, MCP servers, assembled by
 * {@link ToolbusAssembly} as for {@code serve}, with the config's policy, approval and limits) to one
 * MCP client over stdio, or to MCP clients over streamable HTTP with {@code --http}. An approval the
 * config asks for becomes an elicitation to the client. Plugin folders are watched and the config is reloaded as under {@code serve}; the
 * clients get {@code notifications/tools/list_changed} when the tools they may see change.
 */
@Command(name = "mcp", mixinStandardHelpOptions = true,
        description = "Serve the tools to MCP clients: over stdio (default) or streamable HTTP (--http).")
final class McpCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(McpCommand.class);
    private static final Duration STOP_STEP = Duration.ofSeconds(60);

    @Option(names = "--config", paramLabel = "FILE",
            description = "toolbus.yaml: policy, sources, execution, approval, limits, plugins; watched and reloaded on change.")
    Path configFile;

    @Option(names = "--http", paramLabel = "HOST:PORT", converter = GatewayAddress.Converter.class,
            description = "Serve streamable HTTP at http://HOST:PORT/mcp (port 0: a free port) instead of stdio.")
    GatewayAddress http;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "--http: the bearer token clients must send (default: $TOOLBUS_TOKEN); required off loopback.")
    String token;

    @Option(names = "--port-file", paramLabel = "PATH", description = "--http: write the bound port to PATH.")
    Path portFile;

    @Option(names = "--stream", paramLabel = "STREAM_ID", defaultValue = "mcp",
            description = "stream_id of the calls (default: ${DEFAULT-VALUE}).")
    String stream;

    @Option(names = "--parallel", description = "Run calls concurrently, each as its own stream.")
    boolean parallel;

    @Mixin
    ToolSourceOptions sources;

    @Mixin
    ExecutionOptions execution;

    @Mixin
    ApprovalOptions approval;

    @Mixin
    ContextOptions context;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        return WatchedConfig.run(configFile, this::serve);
    }

    private int serve(Config fileConfig, ConfigWatcher watcher) {
        AccessTokens tokens = AccessTokens.single(token != null && !token.isBlank() ? token.strip()
                : System.getenv("TOOLBUS_TOKEN"));
        if (http != null && !tokens.required() && !ServeCommand.isLoopback(http.host())) {
            throw new CommandLine.ParameterException(spec.commandLine(), "MCP on " + http.host()
                    + " needs a token: pass --token TOKEN or set TOOLBUS_TOKEN (only loopback addresses may be served without one)");
        }
        ToolbusAssembly.Builder b = fileConfig != null ? ToolbusAssembly.from(fileConfig) : ToolbusAssembly.withoutConfig();
        List<String> flagWarnings = new ArrayList<>();
        ExecutionSettings settings = execution.settings((fileConfig != null ? fileConfig : Config.defaults()).execution(),
                flagWarnings);
        ExecutionOptions.printWarnings(flagWarnings, System.err);
        approval.printWarnings(System.err);
        // the MCP endpoint is the only way in: no bus, no gateway; approval and limits as configured
        b.execution(settings).bus(BusAddress.none()).noGateway().stopStep(STOP_STEP);
        if (approval.given()) {
            b.approval(approval.override());
        }
        sources.applyTo(b);
        if (watcher != null) {
            b.watch(watcher);
        }
        Toolbus toolbus;
        try {
            toolbus = b.build().start();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        } catch (RuntimeException e) {
            System.err.println("toolbus: cannot load the tools: " + e.getMessage());
            return 1;
        }
        toolbus.warnings().forEach(w -> System.err.println("toolbus: warning: " + w));
        ToolExecutor executor = toolbus.executor();
        ToolRegistry registry = toolbus.registry();
        LiveConfig live = toolbus.config();
        CallContext who = CallContext.builder().userId(context.user).groupId(context.groupId)
                .platform(context.platform).permission(context.permission).channel(context.channel)
                .provider(context.provider).model(context.model).agentId(context.agent).build();
        McpToolServer server = McpToolServer.builder(executor).context(who).streamId(stream).parallelCalls(parallel)
                .tokens(tokens).build();
        // the registry tells the server of plugin reloads; a new policy only the config knows of
        Disposable refresh = live.onReload(r -> server.refreshTools());
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean stopping = new AtomicBoolean();
        McpHttpServer[] endpoint = new McpHttpServer[1];
        Runnable stop = () -> {
            if (!stopping.compareAndSet(false, true)) {
                return;
            }
            try {
                // closing first, so that calls the endpoint's close cancels see the reason "shutdown"
                Mono<Void> drained = executor.closeGracefully().cache();
                Disposable draining = drained.subscribe(null, e -> { });
                if (endpoint[0] != null) {
                    step("MCP endpoint", endpoint[0]::close);
                }
                step("executor", () -> drained.block(STOP_STEP));
                draining.dispose();
                refresh.dispose();
                // the rest of the assembly: tool sources, config follow
                toolbus.closeGracefully();
                log.info("MCP server stopped");
            } finally {
                stopped.countDown();
            }
        };
        Thread hook = new Thread(stop, "toolbus-mcp-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        log.info("serving {} tools over MCP ({})", registry.entries().size(), http == null ? "stdio" : "http");
        try {
            if (http == null) {
                server.serveStdio(System.in, System.out).block();
                log.info("MCP client went away (input ended)");
            } else {
                try {
                    endpoint[0] = server.startHttp(http.host(), http.port()).block(Duration.ofSeconds(30));
                } catch (RuntimeException e) {
                    System.err.println("toolbus: cannot serve MCP on " + http.host() + ":" + http.port() + ": "
                            + e.getMessage());
                    stop.run();
                    return 1;
                }
                System.err.println("toolbus: MCP listening on " + endpoint[0].url()
                        + (tokens.required() ? " (bearer token required)" : " (no token: loopback only)"));
                writePortFile(endpoint[0].port());
                stopped.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stop.run();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running the stop
        }
        return 0;
    }

    private static void step(String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            log.warn("stopping the {} failed: {}", what, e.toString());
        }
    }

    private void writePortFile(int port) {
        if (portFile == null) {
            return;
        }
        try {
            Path abs = portFile.toAbsolutePath();
            Path tmp = abs.resolveSibling(abs.getFileName() + ".tmp");
            Files.writeString(tmp, port + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("toolbus: warning: cannot write the port file " + portFile + ": " + e.getMessage());
        }
    }
}
