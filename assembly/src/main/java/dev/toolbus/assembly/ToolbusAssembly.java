package dev.toolbus.assembly;

import dev.toolbus.config.Config;
import dev.toolbus.config.DispatchConfig;
import dev.toolbus.config.BusConfig;
import dev.toolbus.config.ConfigWatcher;
import dev.toolbus.config.LiveConfig;
import dev.toolbus.dispatch.ChatCompletionsDispatch;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place that turns a {@link Config} (a {@code toolbus.yaml}, or the {@code toolbus.*}
 * properties of a Spring application) plus overrides into a running toolbus: the registry; the tool
 * sources (the caller's Java tools, the sample tools when asked, stdio plugin folders with hot reload,
 * framework hosts, MCP servers, skill documents, {@code tool_search}, {@code read_tool_result}); the
 * policy (live: it follows the config when the config is watched); approval; limits (in the bus's
 * Redis when rules are shared); dispatch; idempotent turns; the executor; the bus; and the gateway
 * with every {@code gateway} key. {@code toolbus serve}, {@code toolbus mcp}, {@code toolbus tools
 * --local}, the Spring Boot starter and the Java example all assemble through here, so every face
 * honours every section of the config.
 *
 * <pre>{@code
 * Config config = ConfigLoader.load(Path.of("toolbus.yaml")).config();
 * try (Toolbus toolbus = ToolbusAssembly.from(config)
 *         .tools(Tools.fromObject(new WeatherTools()))   // Java tools of the caller
 *         .build()                                      // registry, sources, executor
 *         .start()) {                                   // gateway and bus
 *     toolbus.busEnded().join();                        // until the bus's input ends
 * }                                                     // the ordered, graceful close
 * }</pre>
 *
 * <p>{@link Builder#build()} loads the tool sources and builds the executor; it starts no server and
 * reads no bus. {@link Toolbus#start()} starts the gateway, opens the bus and runs the executor on it,
 * and follows the watched config. {@link Toolbus#closeGracefully()} stops all of it in order. Bad
 * overrides fail {@code build()} with {@link IllegalArgumentException} before anything starts; a tool
 * source, the gateway or a bus that cannot start fails with {@link IllegalStateException} (or the
 * source's own exception) after what was started is stopped again.
 */
public final class ToolbusAssembly {

    private static final Logger log = LoggerFactory.getLogger(ToolbusAssembly.class);

    /** How long each step of the close may take by default. */
    public static final Duration DEFAULT_STOP_STEP = Duration.ofSeconds(60);

    private ToolbusAssembly() {
    }

    /**
     * Starts a builder over a config that came from a file or properties: its paths name tool sources
     * (plugin folders, skill folders and the MCP servers file, each skipped when missing), its bus is
     * the bus and its gateway starts when {@code gateway.enabled} (not on the stdio bus).
     */
    public static Builder from(Config config) {
        return new Builder(Objects.requireNonNull(config, "config"), true);
    }

    /**
     * Starts a builder without a config: every setting at its default, no tool source but those the
     * overrides name, no gateway unless {@link Builder#gateway(String, int)} asks for one, the
     * in-memory bus unless {@link Builder#bus(BusAddress)} names another.
     */
    public static Builder withoutConfig() {
        return new Builder(Config.defaults(), false);
    }

    /** Collects the config and the overrides; {@link #build()} assembles. Setters check their arguments. */
    public static final class Builder {
        private final Config config;
        private final boolean configFile;
        private ConfigWatcher watcher;
        private ToolRegistry registry;
        private final List<ToolSpec> tools = new ArrayList<>();
        private boolean sampleTools;
        private Path pluginDir;
        private List<Path> skillPaths;
        private Path mcpServersFile;
        private ExecutionSettings execution;
        private UnaryOperator<ApprovalSettings> approval;
        private ToolPolicy policy;
        private MeterRegistry meters;
        private ObservationRegistry observations;
        private int maxEventBytes = EventCodec.defaults().maxEventBytes();
        private BusAddress bus;
        private String instance;
        private String group;
        private String gatewayHost;
        private int gatewayPort;
        private boolean gatewayOff;
        private String token;
        private Function<String, String> env = System::getenv;
        private Duration stopStep = DEFAULT_STOP_STEP;

        private Builder(Config config, boolean configFile) {
            this.config = config;
            this.configFile = configFile;
        }

        /**
         * Follows this watcher's configs while running: the policy, {@code approval}, {@code limits},
         * {@code plugins} and the {@code documents} settings apply live; other sections are logged as
         * needing a restart. The caller closes the watcher after the toolbus.
         */
        public Builder watch(ConfigWatcher watcher) {
            this.watcher = Objects.requireNonNull(watcher, "watcher");
            return this;
        }

        /** The registry to fill (default: a new one); tools already in it, or added later, are served too. */
        public Builder registry(ToolRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Java tools of the caller (e.g. {@code Tools.fromObject(bean)}), registered as plugin tools. */
        public Builder tools(List<ToolSpec> specs) {
            for (ToolSpec s : Objects.requireNonNull(specs, "specs")) {
                tools.add(Objects.requireNonNull(s, "a tool spec"));
            }
            return this;
        }

        /** Registers the sample tools (echo, add, sleep, fail, draw, progress, greet, ask_city, wipe, count). */
        public Builder sampleTools(boolean value) {
            this.sampleTools = value;
            return this;
        }

        /** A plugin folder (one sub-folder per plugin) that replaces {@code sources.custom.pluginDirs}; it must exist. */
        public Builder pluginDir(Path dir) {
            this.pluginDir = Objects.requireNonNull(dir, "dir");
            return this;
        }

        /** Skill folders that replace {@code documents.paths}; {@code load_skill} is offered even when they hold none. */
        public Builder skillPaths(List<Path> paths) {
            this.skillPaths = List.copyOf(Objects.requireNonNull(paths, "paths"));
            return this;
        }

        /** An {@code mcp-servers.json} that replaces {@code sources.mcp.serversFile}. */
        public Builder mcpServersFile(Path file) {
            this.mcpServersFile = Objects.requireNonNull(file, "file");
            return this;
        }

        /** Execution settings that replace the config's {@code execution} (command-line flags merged in). */
        public Builder execution(ExecutionSettings settings) {
            this.execution = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /**
         * Applied to the config's {@code approval} settings, and again after each reload that changes
         * them (command-line flags that keep replacing the file's values).
         */
        public Builder approval(UnaryOperator<ApprovalSettings> override) {
            this.approval = Objects.requireNonNull(override, "override");
            return this;
        }

        /** A policy that replaces the config's tool policy ({@code tool_search} still answers under the config's). */
        public Builder policy(ToolPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** The registry the executor's meters go to (default: a new Prometheus registry the gateway serves). */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meters = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** The registry that observes turns and calls (and traces them, with micrometer-tracing). */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observations = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** The largest input event on the bus, at least 1024 bytes (default 1 MiB). */
        public Builder maxEventBytes(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxEventBytes must be at least 1024, got " + bytes);
            }
            this.maxEventBytes = bytes;
            return this;
        }

        /** The bus, replacing the config's {@code bus.type} and {@code bus.url}; {@link BusAddress#none()} for none. */
        public Builder bus(BusAddress address) {
            this.bus = Objects.requireNonNull(address, "address");
            return this;
        }

        /** This instance's name on a broker (Redis consumer, Kafka client id), replacing {@code bus.consumer}. */
        public Builder instanceName(String name) {
            this.instance = nonBlank(name, "name");
            return this;
        }

        /** The consumer group on a broker, replacing {@code bus.group}. */
        public Builder group(String name) {
            this.group = nonBlank(name, "name");
            return this;
        }

        /** Starts the gateway here (port 0: a free port), whatever {@code gateway.enabled} says. */
        public Builder gateway(String host, int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be within 0..65535, got " + port);
            }
            this.gatewayHost = nonBlank(host, "host");
            this.gatewayPort = port;
            return this;
        }

        /** Starts no gateway, whatever the config says. */
        public Builder noGateway() {
            this.gatewayOff = true;
            return this;
        }

        /** A bearer token with full scope that replaces {@code gateway.token} ({@code gateway.tokens} stay valid). */
        public Builder gatewayToken(String token) {
            this.token = nonBlank(token, "token");
            return this;
        }

        /** Where {@code TOOLBUS_TOKEN} is read when no gateway token is configured (default: the process environment). */
        public Builder environment(Function<String, String> env) {
            this.env = Objects.requireNonNull(env, "env");
            return this;
        }

        /** How long each step of {@link Toolbus#closeGracefully()} may take (default 60 s). */
        public Builder stopStep(Duration step) {
            Objects.requireNonNull(step, "step");
            if (step.isNegative() || step.isZero()) {
                throw new IllegalArgumentException("stopStep must be positive, got " + step);
            }
            this.stopStep = step;
            return this;
        }

        private static String nonBlank(String s, String what) {
            Objects.requireNonNull(s, what);
            if (s.isBlank()) {
                throw new IllegalArgumentException(what + " must not be blank");
            }
            return s.strip();
        }

        /**
         * Loads the tool sources and builds the executor. Starts no server and reads no bus: see
         * {@link Toolbus#start()}.
         *
         * @throws IllegalArgumentException when overrides contradict each other or the gateway would
         *     serve a non-loopback address without a token (nothing was started)
         * @throws RuntimeException when a tool source cannot be loaded (what was started is stopped)
         */
        public Toolbus build() {
            if (gatewayOff && gatewayHost != null) {
                throw new IllegalArgumentException("a gateway address and no gateway contradict each other");
            }
            BusAddress address = bus != null ? bus : BusAddress.of(config.bus());
            GatewayPlan plan = gatewayOff ? null : GatewayPlan.of(config.gateway(),
                    configFile && !address.scheme().equals(BusAddress.STDIO), gatewayHost, gatewayPort, token, env);
            ExecutionSettings settings = execution != null ? execution : config.execution();
            EventCodec codec = maxEventBytes == EventCodec.defaults().maxEventBytes() ? EventCodec.defaults()
                    : EventCodec.create(maxEventBytes, () -> UUID.randomUUID().toString());
            ToolRegistry reg = registry != null ? registry : ToolRegistry.create();
            LiveConfig live = LiveConfig.create(config, reg);
            List<String> warnings = new ArrayList<>();
            ToolSources sources = ToolSources.load(reg, new ToolSources.Plan(configFile, tools, sampleTools, pluginDir,
                    skillPaths, mcpServersFile), live, live.policy(), settings.locale());
            String instanceId = String.format("%08x", new SecureRandom().nextInt());
            Buses.SharedBuckets buckets = null;
            ToolExecutor executor;
            try {
                MeterRegistry m = meters != null ? meters : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
                ToolExecutor.Builder b = ToolExecutor.builder().registry(reg)
                        .policy(policy != null ? policy : live.policy())
                        .settings(settings).codec(codec).meterRegistry(m).instanceId(instanceId)
                        .approval(approval == null ? live.approval() : new ApprovalOverride(live.approval(), approval))
                        .limits(live.limits())
                        .rules(dev.toolbus.rules.LiveRules.of(live.rules(), m))
                        .idempotency(config.bus().idempotency().settings());
                if (observations != null) {
                    b.observationRegistry(observations);
                }
                buckets = SharedLimits.open(config.limits(), address, w -> {
                    log.warn(w);
                    warnings.add(w);
                });
                if (buckets != null) {
                    b.rateLimitStore(buckets.store());
                }
                DispatchConfig d = config.dispatch();
                if (d.enabled()) {
                    b.dispatch(ChatCompletionsDispatch.builder().baseUrl(d.baseUrl()).model(d.model())
                            .apiKey(d.apiKey()).timeout(Duration.ofMillis(d.timeoutMs()))
                            .maxGroups(d.maxGroups()).useSummary(d.useSummary()).groups(config.groups())
                            .maxConcurrent(d.maxConcurrent()).build(),
                            Duration.ofMillis(d.cacheTtlMs()));
                    log.info("dispatch on: {} at {} picks at most {} tool groups for list_tools with a text",
                            d.model(), d.baseUrl(), d.maxGroups());
                }
                if (sources.skills() != null) {
                    sources.skills().follow(() -> live.current().documents());
                    b.skills(sources.skills().library());
                }
                executor = b.build();
                meters = m;
            } catch (RuntimeException e) {
                if (buckets != null) {
                    buckets.close().run();
                }
                sources.closeGracefully().block(stopStep);
                throw e;
            }
            BusConfig section = Buses.section(address, config.bus());
            Buses.Names names = new Buses.Names(section, config.bus().idempotency(),
                    group != null ? group : section.group().isBlank() ? "toolbus" : section.group(),
                    Buses.instanceName(instance, section), instanceId, maxEventBytes, config.bus().redis());
            return new Toolbus(new Toolbus.Parts(executor, reg, live, sources, buckets, address, names, codec, plan,
                    meters, watcher, stopStep, warnings, settings.locale()));
        }
    }
}
