package dev.toolbus.server;

import dev.toolbus.bus.ToolBus;
import dev.toolbus.bus.kafka.KafkaBus;
import dev.toolbus.bus.kafka.KafkaBusConfig;
import dev.toolbus.bus.redis.RedisStreamsBus;
import dev.toolbus.bus.redis.RedisStreamsConfig;
import dev.toolbus.executor.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.plugins.skills.SkillCatalog;
import dev.toolbus.plugins.stdio.StdioPluginHost;
import dev.toolbus.plugins.stdio.StdioPlugins;
import dev.toolbus.protocol.EventCodec;
import java.nio.file.Path;
import java.util.List;
import reactor.core.publisher.Mono;
import dev.toolbus.server.samples.SampleTools;
import dev.toolbus.server.stdio.StdioBus;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code toolbus serve}: runs an executor on a bus until the bus's input ends, then drains the turns
 * in flight and exits 0. With {@code --bus stdio} it is a sidecar: JSON lines in on stdin, JSON lines
 * out on stdout.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run tool calls from a bus until its input ends (stdio: until stdin closes).")
final class ServeCommand implements Callable<Integer> {

    private static final Logger log = LoggerFactory.getLogger(ServeCommand.class);

    @Option(names = "--bus", paramLabel = "BUS", defaultValue = BusAddress.STDIO,
            converter = BusAddress.Converter.class,
            description = "Where turns come from and events go: stdio, redis://HOST:PORT or "
                    + "kafka://HOST:PORT (default: ${DEFAULT-VALUE}).")
    BusAddress bus;

    @Option(names = "--instance", paramLabel = "NAME",
            description = "This instance's name on a broker (Redis consumer, Kafka client id); "
                    + "default: toolbus-<host>-<pid>. Two live instances must not share one.")
    String instance;

    @Option(names = "--group", paramLabel = "NAME", defaultValue = "toolbus",
            description = "The consumer group of the executor instances on a broker (default: ${DEFAULT-VALUE}).")
    String group;

    @Option(names = "--sample-tools", description = "Register the sample tools echo, add, sleep, fail and draw.")
    boolean sampleTools;

    @Option(names = "--plugins", paramLabel = "DIR",
            description = "Load the stdio plugins of DIR (one folder per plugin, each with a plugin.json).")
    Path pluginsDir;

    @Option(names = "--skills", paramLabel = "PATH", split = ",",
            description = "Scan these folders for skill documents (SKILL.md, *.skill.yaml, *.skill.json) "
                    + "and offer them through the load_skill tool.")
    List<Path> skills;

    @Option(names = "--max-event-bytes", paramLabel = "BYTES", defaultValue = "1048576",
            description = "The largest input event (one line on stdio), at least 1024 (default: ${DEFAULT-VALUE}).")
    int maxEventBytes;

    @Mixin
    ExecutionOptions execution;

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (maxEventBytes < 1024) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--max-event-bytes must be at least 1024, got " + maxEventBytes);
        }
        ExecutionSettings settings = execution.settings();
        ExecutionOptions.printWarnings(settings, System.err);
        EventCodec codec = maxEventBytes == EventCodec.defaults().maxEventBytes() ? EventCodec.defaults()
                : EventCodec.create(maxEventBytes, () -> UUID.randomUUID().toString());

        ToolExecutor.Builder builder = ToolExecutor.builder().settings(settings).codec(codec);
        if (sampleTools) {
            builder.tools(new SampleTools().specs());
        } else if (pluginsDir == null && (skills == null || skills.isEmpty())) {
            log.warn("no tools registered: every call will be answered UNKNOWN_TOOL (pass --sample-tools or --plugins)");
        }
        ToolExecutor executor = builder.build();
        StdioPluginHost plugins = pluginsDir == null ? null
                : StdioPlugins.load(pluginsDir).registerInto(executor.registry());
        if (skills != null && !skills.isEmpty()) {
            SkillCatalog.scan(skills).registerInto(executor.registry());
        }
        ToolBus toolBus = open(bus, codec, instanceName(), group, maxEventBytes);
        log.info("serving on {} with {} tools, maxParallel={}, timeout={} ms", bus.address(),
                executor.registry().entries().size(), settings.maxParallel(), settings.timeout().toMillis());
        // SIGTERM / Ctrl-C: stop reading; run() then completes once the turns in flight are published
        Thread hook = new Thread(() -> toolBus.closeGracefully().block(java.time.Duration.ofSeconds(60)),
                "toolbus-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        executor.run(toolBus)
                .then(executor.closeGracefully())
                .then(plugins == null ? Mono.empty() : plugins.closeGracefully())
                .then(toolBus.closeGracefully())
                .block();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: it closes the bus
        }
        log.info("input ended; all turns drained");
        return 0;
    }

    private String instanceName() {
        if (instance != null && !instance.isBlank()) {
            return instance;
        }
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "localhost";
        }
        return "toolbus-" + host + "-" + ProcessHandle.current().pid();
    }

    private static ToolBus open(BusAddress address, EventCodec codec, String instance, String group,
                                int maxEventBytes) {
        return switch (address.scheme()) {
            case BusAddress.STDIO -> StdioBus.system(codec);
            case BusAddress.REDIS -> RedisStreamsBus.fromUri(address.address(), RedisStreamsConfig.builder()
                    .consumer(instance).group(group).maxEventBytes(maxEventBytes).build());
            case BusAddress.KAFKA -> KafkaBus.fromUri(address.address(), KafkaBusConfig.builder()
                    .bootstrapServers(address.address()).groupId(group).clientId(instance)
                    .maxEventBytes(maxEventBytes).build());
            default -> throw new IllegalStateException("no bus for " + address.address());
        };
    }
}
