package dev.toolbus.server;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.Hosts;
import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.bus.kafka.KafkaBus;
import dev.toolbus.bus.kafka.KafkaBusConfig;
import dev.toolbus.bus.redis.RedisStreamsBus;
import dev.toolbus.bus.redis.RedisStreamsConfig;
import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigWatcher;
import dev.toolbus.config.LiveConfig;
import dev.toolbus.dispatch.ChatCompletionsDispatch;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.gateway.Gateway;
import dev.toolbus.gateway.GatewayServer;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.server.stdio.StdioBus;
import dev.toolbus.spi.ToolBus;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import reactor.core.Disposable;

/**
 * {@code toolbus serve}: runs an executor on a bus, and the WebSocket/HTTP gateway beside it, until
 * the bus's input ends (stdio) or SIGTERM; then drains the turns in flight and exits 0.
 *
 * <p>What runs: with {@code --config} the config's bus (in-memory by default) and its gateway;
 * without it, {@code --bus} (stdio by default) and a gateway only when {@code --gateway} is given.
 * Flags override the file. The stdio bus never starts the config's gateway unless {@code --gateway}
 * asks for it. The tool policy follows the file live (hot reload); other changed sections are logged
 * as needing a restart.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run tool calls from a bus and the gateway until input ends (stdio) or SIGTERM.")
final class ServeCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);
    private static final Duration STOP_STEP = Duration.ofSeconds(60);

    @Option(names = "--config", paramLabel = "FILE",
            description = "toolbus.yaml: policy, sources, execution, bus and gateway; watched and reloaded on change.")
    Path configFile;

    @Option(names = "--bus", paramLabel = "BUS", converter = BusAddress.Converter.class,
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
        Config config = fileConfig != null ? fileConfig : Config.defaults();
        BusAddress busAddress = busAddress(fileConfig);
        GatewayPlan plan = gatewayPlan(fileConfig, busAddress);
        List<String> flagWarnings = new ArrayList<>();
        ExecutionSettings settings = execution.settings(config.execution(), flagWarnings);
        ExecutionOptions.printWarnings(flagWarnings, System.err);
        approval.printWarnings(System.err);
        EventCodec codec = maxEventBytes == EventCodec.defaults().maxEventBytes() ? EventCodec.defaults()
                : EventCodec.create(maxEventBytes, () -> UUID.randomUUID().toString());

        ToolRegistry registry = ToolRegistry.create();
        LiveConfig live = LiveConfig.create(config, registry);
        ToolSetup tools;
        try {
            tools = ToolSetup.assemble(registry, fileConfig, sources.sampleTools, sources.pluginsDir, sources.skills, sources.mcpServers, live.policy(),
                    settings.locale(), live);
        } catch (RuntimeException e) {
            System.err.println("toolbus: cannot load the tools: " + e.getMessage());
            return 1;
        }
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ToolExecutor.Builder executorBuilder = ToolExecutor.builder().registry(registry).policy(live.policy())
                .settings(settings).approval(approval.over(live.approval())).codec(codec).meterRegistry(meters)
                .instanceId(controlInstance).limits(live.limits())
                .idempotency(config.bus().idempotency().settings());
        dev.toolbus.bus.redis.RedisRateLimitStore sharedBuckets = SharedLimits.open(config.limits(), busAddress);
        if (sharedBuckets != null) {
            executorBuilder.rateLimitStore(sharedBuckets);
        }
        Config.Dispatch dispatch = config.dispatch();
        if (dispatch.enabled()) {
            executorBuilder.dispatch(ChatCompletionsDispatch.builder().baseUrl(dispatch.baseUrl()).model(dispatch.model())
                    .apiKey(dispatch.apiKey()).timeout(Duration.ofMillis(dispatch.timeoutMs()))
                    .maxGroups(dispatch.maxGroups()).useSummary(dispatch.useSummary()).groups(config.groups()).build(),
                    Duration.ofMillis(dispatch.cacheTtlMs()));
            log.info("dispatch on: {} at {} picks at most {} tool groups for list_tools with a text",
                    dispatch.model(), dispatch.baseUrl(), dispatch.maxGroups());
        }
        if (tools.skills() != null) {
            tools.skills().follow(() -> live.current().documents());
            executorBuilder.skills(tools.skills().library());
        }
        ToolExecutor executor = executorBuilder.build();

        GatewayServer server = null;
        if (plan != null) {
            try {
                server = plan.builder(config).executor(executor).meterRegistry(meters).build().start();
            } catch (RuntimeException e) {
                System.err.println("toolbus: cannot start the gateway on " + plan.host() + ":" + plan.port() + ": "
                        + e.getMessage());
                executor.closeGracefully().then(tools.closeGracefully()).block(STOP_STEP);
                if (sharedBuckets != null) {
                    sharedBuckets.close();
                }
                return 1;
            }
            System.err.println("toolbus: gateway listening on " + server.baseUrl() + " (port " + server.port()
                    + (!plan.tokens().required() ? ", no token: loopback only)" : ", bearer token required)"));
            if (plan.tokens().required()) {
                System.err.println("toolbus: gateway accepts " + plan.tokens().size()
                        + (plan.tokens().size() == 1 ? " token" : " tokens") + " from " + plan.tokenSource()
                        + " (a context above a token's scope is " + (plan.tokens().onExcess()
                        == AccessTokens.OnExcess.CLAMP ? "clamped" : "refused") + ")");
            }
            writePortFile(server.port());
        }
        Disposable follow = watcher == null ? null : live.follow(watcher);
        // stopped last: the reload, then the shared bucket store
        Disposable reload = sharedBuckets == null ? follow
                : reactor.core.Disposables.composite(follow == null ? () -> { } : follow, sharedBuckets::close);
        ToolBus toolBus = open(busAddress, config.bus(), codec);
        // reading the warnings resolves the allow lists against the registered tools now, not at the first call
        int policyWarnings = live.policy().warnings().size();
        log.info("serving on {} with {} tools, maxParallel={}, timeout={} ms, {} policy warnings", busAddress.address(),
                registry.entries().size(), settings.maxParallel(), settings.timeout().toMillis(), policyWarnings);

        CompletableFuture<Void> inputEnded = new CompletableFuture<>();
        Disposable run = executor.run(toolBus).subscribe(null, inputEnded::completeExceptionally,
                () -> inputEnded.complete(null));
        if (toolBus instanceof StdioBus stdio) {
            // nobody reads our output any more: stop as if the bus had failed (exit 1, docs/cli.md)
            stdio.outputFailure().subscribe(inputEnded::completeExceptionally);
        }
        Stopper stopper = new Stopper(server, toolBus, inputEnded, run, executor, tools, reload);
        // SIGTERM / Ctrl-C: the hook runs the same ordered stop, and the JVM waits for it
        Thread hook = new Thread(stopper::stop, "toolbus-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        int exit = 0;
        try {
            inputEnded.join();
            log.info("input ended");
        } catch (RuntimeException e) {
            log.error("the bus failed", e);
            exit = 1;
        }
        stopper.stop();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running the stop
        }
        return exit;
    }

    /**
     * The ordered stop, once, whoever asks first: gateway (drains its turns), bus input, executor
     * (drains the bus's turns), plugin processes, config reload.
     */
    private static final class Stopper {
        private final GatewayServer server;
        private final ToolBus bus;
        private final CompletableFuture<Void> inputEnded;
        private final Disposable run;
        private final ToolExecutor executor;
        private final ToolSetup tools;
        private final Disposable reload;
        private final AtomicBoolean started = new AtomicBoolean();
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        Stopper(GatewayServer server, ToolBus bus, CompletableFuture<Void> inputEnded, Disposable run,
                ToolExecutor executor, ToolSetup tools, Disposable reload) {
            this.server = server;
            this.bus = bus;
            this.inputEnded = inputEnded;
            this.run = run;
            this.executor = executor;
            this.tools = tools;
            this.reload = reload;
        }

        void stop() {
            if (!started.compareAndSet(false, true)) {
                done.join();
                return;
            }
            try {
                step("gateway", () -> {
                    if (server != null) {
                        server.closeGracefully(STOP_STEP);
                    }
                });
                step("bus input", () -> {
                    if (bus instanceof InMemoryBus memory) {
                        memory.complete();
                    } else if (bus instanceof StdioBus && !inputEnded.isDone()) {
                        // stdin cannot be ended from here: let the running turns finish and publish,
                        // then stop the loop and flush stdout
                        executor.closeGracefully().block(STOP_STEP);
                        run.dispose();
                        bus.closeGracefully().block(STOP_STEP);
                        return;
                    } else {
                        bus.closeGracefully().block(STOP_STEP);
                    }
                    try {
                        inputEnded.get(STOP_STEP.toSeconds(), TimeUnit.SECONDS);
                    } catch (TimeoutException e) {
                        log.warn("turns still running after {}; cancelling them", STOP_STEP);
                        run.dispose();
                    } catch (Exception e) {
                        // the bus failed: reported by the main thread
                    }
                });
                step("executor", () -> executor.closeGracefully().block(STOP_STEP));
                step("plugins", () -> tools.closeGracefully().block(STOP_STEP));
                if (reload != null) {
                    reload.dispose();
                }
                // logged here, not by the caller: on SIGTERM the JVM halts as soon as this hook returns
                log.info("all turns drained; stopped");
            } finally {
                done.complete(null);
            }
        }

        private static void step(String what, Runnable r) {
            try {
                r.run();
            } catch (RuntimeException e) {
                log.warn("stopping the {} failed: {}", what, e.toString());
            }
        }
    }

    private BusAddress busAddress(Config fileConfig) {
        if (bus != null) {
            return bus;
        }
        if (fileConfig == null) {
            return gateway != null ? BusAddress.inMemory() : BusAddress.stdio();
        }
        Config.Bus b = fileConfig.bus();
        return switch (b.type()) {
            case "stdio" -> BusAddress.stdio();
            case "redis" -> new BusAddress(BusAddress.REDIS, b.url());
            case "kafka" -> new BusAddress(BusAddress.KAFKA, b.url().contains("://") ? b.url() : "kafka://" + b.url());
            default -> BusAddress.inMemory();
        };
    }

    /** The gateway to start, or {@code null} for none. */
    private GatewayPlan gatewayPlan(Config fileConfig, BusAddress busAddress) {
        if (noGateway) {
            if (gateway != null) {
                throw usage("--gateway and --no-gateway contradict each other");
            }
            return null;
        }
        Config.Gateway g = fileConfig == null ? Config.Gateway.DEFAULTS : fileConfig.gateway();
        boolean on = gateway != null
                || fileConfig != null && g.enabled() && !busAddress.scheme().equals(BusAddress.STDIO);
        if (!on) {
            return null;
        }
        String host = gateway != null ? gateway.host() : g.host();
        int port = gateway != null ? gateway.port() : g.port();
        String flag = token == null || token.isBlank() ? null : token.strip();
        AccessTokens tokens;
        String source;
        try {
            tokens = g.accessTokens(flag);
        } catch (IllegalArgumentException e) {
            throw usage("bad gateway token: " + e.getMessage());
        }
        if (tokens.required()) {
            source = flag != null && !g.tokens().isEmpty() ? "--token and gateway.tokens" : flag != null ? "--token"
                    : "the config";
        } else {
            // never serve without a token while the environment names one
            String env = System.getenv("TOOLBUS_TOKEN");
            tokens = AccessTokens.single(env);
            source = "TOOLBUS_TOKEN";
        }
        if (!tokens.required() && !isLoopback(host)) {
            throw usage("the gateway on " + host + " needs a token: pass --token TOKEN, set gateway.token or "
                    + "gateway.tokens, or TOOLBUS_TOKEN (only loopback addresses may be served without one)");
        }
        return new GatewayPlan(host, port, tokens, source);
    }

    /** Whether every address of {@code host} is a loopback address (the gateway's own rule). */
    static boolean isLoopback(String host) {
        return Hosts.isLoopback(host);
    }

    private record GatewayPlan(String host, int port, AccessTokens tokens, String tokenSource) {
        Gateway.Builder builder(Config config) {
            Config.Gateway g = config.gateway();
            return Gateway.builder().host(host).port(port).tokens(tokens)
                    .maxRequestBytes((int) Math.min(Integer.MAX_VALUE, Math.max(1024, g.maxRequestBytes())))
                    .maxConnections(g.maxConnections())
                    .headerTimeout(Duration.ofMillis(g.headerTimeoutMs()))
                    .bodyTimeout(Duration.ofMillis(g.bodyTimeoutMs()));
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

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** The executor's instance id (in approval and input ids); the Redis bus routes answers by it. */
    private final String controlInstance = String.format("%08x", new java.security.SecureRandom().nextInt());

    private String instanceName(Config.Bus b) {
        if (instance != null && !instance.isBlank()) {
            return instance;
        }
        if (!b.consumer().isBlank()) {
            return b.consumer();
        }
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "localhost";
        }
        return "toolbus-" + host + "-" + ProcessHandle.current().pid();
    }

    private ToolBus open(BusAddress address, Config.Bus fromFile, EventCodec codec) {
        // names from the file apply when the file names the same kind of bus
        boolean sameKind = fromFile.type().equals(address.scheme());
        Config.Bus b = sameKind ? fromFile : Config.Bus.defaults(address.scheme());
        String groupName = group != null ? group : b.group().isBlank() ? "toolbus" : b.group();
        // bus.idempotency also sets the brokers' own records of finished turns (same defaults)
        Config.Idempotency idem = fromFile.idempotency();
        Duration window = Duration.ofMillis(idem.windowMs());
        int recorded = (int) Math.min(Integer.MAX_VALUE, idem.maxRecordedBytes());
        return switch (address.scheme()) {
            case BusAddress.STDIO -> StdioBus.system(codec);
            case BusAddress.IN_MEMORY -> InMemoryBus.create(codec, 1024);
            case BusAddress.REDIS -> RedisStreamsBus.fromUri(address.address(), RedisStreamsConfig.builder()
                    .callsStream(b.calls()).resultsKeyTemplate(b.results()).deadLetterStream(b.deadLetter())
                    .consumer(instanceName(b)).group(groupName).maxEventBytes(maxEventBytes)
                    .instanceId(controlInstance).doneMarkerTtl(window).maxRecordedBytes(recorded)
                    .build()); // control events reach the instance that asked
            case BusAddress.KAFKA -> KafkaBus.fromUri(address.address(), KafkaBusConfig.builder()
                    .bootstrapServers(address.address()).callsTopic(b.calls()).resultsTopic(b.results())
                    .deadLetterTopic(b.deadLetter()).groupId(groupName).clientId(instanceName(b))
                    .maxEventBytes(maxEventBytes).turnLedgerWindow(window).maxRecordedBytes(recorded)
                    .turnLedgerMaxBytes(idem.maxBytes()).build());
            default -> throw new IllegalStateException("no bus for " + address.address());
        };
    }
}
