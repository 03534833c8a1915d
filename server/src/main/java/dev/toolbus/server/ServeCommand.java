package dev.toolbus.server;

import dev.toolbus.bus.ToolBus;
import dev.toolbus.executor.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.EventCodec;
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
            description = "Where turns come from and events go: stdio (default: ${DEFAULT-VALUE}).")
    BusAddress bus;

    @Option(names = "--sample-tools", description = "Register the sample tools echo, add, sleep, fail and draw.")
    boolean sampleTools;

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
        } else {
            log.warn("no tools registered: every call will be answered UNKNOWN_TOOL (pass --sample-tools)");
        }
        ToolExecutor executor = builder.build();
        ToolBus toolBus = open(bus, codec);
        log.info("serving on {} with {} tools, maxParallel={}, timeout={} ms", bus.address(),
                executor.registry().entries().size(), settings.maxParallel(), settings.timeout().toMillis());
        executor.run(toolBus)
                .then(executor.closeGracefully())
                .then(toolBus.closeGracefully())
                .block();
        log.info("input ended; all turns drained");
        return 0;
    }

    private static ToolBus open(BusAddress address, EventCodec codec) {
        return switch (address.scheme()) {
            case BusAddress.STDIO -> StdioBus.system(codec);
            default -> throw new IllegalStateException("no bus for " + address.address());
        };
    }
}
