package dev.toolbus.server;

import dev.toolbus.assembly.BusAddress;
import dev.toolbus.assembly.Toolbus;
import dev.toolbus.assembly.ToolbusAssembly;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.Hosts;
import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigWatcher;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.gateway.GatewayServer;
import java.util.List;
import java.util.ArrayList;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code toolbus serve}: runs an executor on a bus, and the WebSocket/HTTP gateway beside it, until
 * the bus's input ends (stdio) or SIGTERM; then drains the turns in flight and exits 0.
 *
 * <p>What runs: with {@code --config} the config's bus (in-memory by default) and its gateway;
 * without it, {@code --bus} (stdio by default) and a gateway only when {@code --gateway} is given.
 * Flags override the file. The stdio bus never starts the config's gateway unless {@code --gateway}
 * asks for it. The tool policy follows the file live (hot reload); other changed sections are logged
 * as needing a restart. {@link ToolbusAssembly} builds what runs; the flags are its overrides.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run tool calls from a bus and the gateway until input ends (stdio) or SIGTERM.")
final class ServeCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);
    private static final Duration STOP_STEP = Duration.ofSeconds(60);

    @Option(names = "--config", paramLabel = "FILE",
            description = "toolbus.yaml: policy, sources, execution, bus and gateway; watched and reloaded on change.")
    Path configFile;

    @Option(names = "--bus", paramLabel = "BUS", converter = BusAddressConverter.class,
            description = "Where turns come from and events go: stdio, in-memory, redis://HOST:PORT or "
                    + "kafka://HOST:PORT (default: the config's bus, else stdio; in-memory with --gateway).")
    BusAddress bus;

    @Option(names = "--gateway", paramLabel = "HOST:PORT", converter = GatewayAddress.Converter.class,
            description = "Start the WebSocket/HTTP gateway here (port 0: a free port); overrides the config's.")
    GatewayAddress gateway;

    @Option(names = "--no-gateway", description = "Do not start the gateway, whatever the config says.")
    boolean noGateway;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "Bearer token of the gateway with full scope; overrides gateway.token (gateway.tokens "
                    + "stay valid). Default when no token is configured: $TOOLBUS_TOKEN. Required off loopback.")
    String token;

    @Option(names = "--port-file", paramLabel = "PATH",
            description = "Write the gateway's bound port to PATH once it listens (for scripts and port 0).")
    Path portFile;

    @Option(names = "--instance", paramLabel = "NAME",
            description = "This instance's name on a broker (Redis consumer, Kafka client id); "
                    + "default: bus.consumer, else toolbus-<host>-<pid>. Two live instances must not share one.")
    String instance;

    @Option(names = "--group", paramLabel = "NAME",
            description = "The consumer group of the executor instances on a broker (default: bus.group, else toolbus).")
    String group;

    @Option(names = "--max-event-bytes", paramLabel = "BYTES", defaultValue = "1048576",
            description = "The largest input event on the bus (one line on stdio), at least 1024 (default: ${DEFAULT-VALUE}).")
    int maxEventBytes;

    @Mixin
    ToolSourceOptions sources;

    @Mixin
    ExecutionOptions execution;

    @Mixin
    ApprovalOptions approval;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (maxEventBytes < 1024) {
            throw usage("--max-event-bytes must be at least 1024, got " + maxEventBytes);
        }
        return WatchedConfig.run(configFile, this::serve);
    }

    private int serve(Config fileConfig, ConfigWatcher watcher) {
        ToolbusAssembly.Builder b = fileConfig != null ? ToolbusAssembly.from(fileConfig) : ToolbusAssembly.withoutConfig();
        List<String> flagWarnings = new ArrayList<>();
        ExecutionSettings settings = execution.settings((fileConfig != null ? fileConfig : Config.defaults()).execution(),
                flagWarnings);
        ExecutionOptions.printWarnings(flagWarnings, System.err);
        approval.printWarnings(System.err);
        b.execution(settings).maxEventBytes(maxEventBytes).stopStep(STOP_STEP);
        if (approval.given()) {
            b.approval(approval.override());
        }
        sources.applyTo(b);
        if (bus != null) {
            b.bus(bus);
        } else if (fileConfig == null) {
            b.bus(gateway != null ? BusAddress.inMemory() : BusAddress.stdio());
        }
        if (noGateway) {
            if (gateway != null) {
                throw usage("--gateway and --no-gateway contradict each other");
            }
            b.noGateway();
        } else if (gateway != null) {
            b.gateway(gateway.host(), gateway.port());
        }
        if (token != null && !token.isBlank()) {
            b.gatewayToken(token);
        }
        if (instance != null && !instance.isBlank()) {
            b.instanceName(instance);
        }
        if (group != null && !group.isBlank()) {
            b.group(group);
        }
        if (watcher != null) {
            b.watch(watcher);
        }
        Toolbus toolbus;
        try {
            toolbus = b.build();
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        } catch (RuntimeException e) {
            System.err.println("toolbus: cannot load the tools: " + e.getMessage());
            return 1;
        }
        toolbus.warnings().forEach(w -> System.err.println("toolbus: warning: " + w));
        try {
            toolbus.start();
        } catch (IllegalStateException e) {
            System.err.println("toolbus: " + e.getMessage());
            return 1;
        }
        GatewayServer server = toolbus.gateway();
        if (server != null) {
            AccessTokens tokens = toolbus.gatewayTokens();
            System.err.println("toolbus: gateway listening on " + server.baseUrl() + " (port " + server.port()
                    + (!tokens.required() ? ", no token: loopback only)" : ", bearer token required)"));
            if (tokens.required()) {
                System.err.println("toolbus: gateway accepts " + tokens.size() + (tokens.size() == 1 ? " token" : " tokens")
                        + " from " + toolbus.gatewayTokenSource() + " (a context above a token's scope is "
                        + (tokens.onExcess() == AccessTokens.OnExcess.CLAMP ? "clamped" : "refused") + ")");
            }
            writePortFile(server.port());
        }
        // reading the warnings resolves the allow lists against the registered tools now, not at the first call
        int policyWarnings = toolbus.config().policy().warnings().size();
        log.info("serving on {} with {} tools, maxParallel={}, timeout={} ms, {} policy warnings",
                toolbus.busAddress().address(), toolbus.registry().entries().size(), settings.maxParallel(),
                settings.timeout().toMillis(), policyWarnings);
        // SIGTERM / Ctrl-C: the hook runs the same ordered stop, and the JVM waits for it
        Thread hook = new Thread(toolbus::closeGracefully, "toolbus-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int exit = 0;
        try {
            toolbus.busEnded().join();
            log.info("input ended");
        } catch (RuntimeException e) {
            log.error("the bus failed", e);
            exit = 1;
        }
        toolbus.closeGracefully();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running the stop
        }
        return exit;
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

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** Whether every address of {@code host} is a loopback address (the gateway's own rule). */
    static boolean isLoopback(String host) {
        return Hosts.isLoopback(host);
    }
}
