package dev.toolbus.server;

import dev.toolbus.executor.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.server.samples.SampleTools;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import reactor.core.publisher.Flux;

/**
 * {@code toolbus demo}: pushes the {@link DemoTurns} through an executor with the sample tools and
 * prints every output event as one JSON line on stdout.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run sample turns through the in-memory bus and print every output event as a JSON line.")
final class DemoCommand implements Callable<Integer> {

    @Mixin
    ExecutionOptions execution;

    @Override
    public Integer call() throws IOException {
        ExecutionSettings settings = execution.settings();
        ExecutionOptions.printWarnings(settings, System.err);
        EventCodec codec = EventCodec.defaults();
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        try (ToolExecutor executor = ToolExecutor.builder()
                .settings(settings)
                .tools(new SampleTools().specs())
                .build()) {
            Flux.fromIterable(DemoTurns.decode(codec))
                    .flatMap(executor::execute)
                    .doOnNext(event -> print(out, codec, event))
                    .blockLast();
        }
        out.flush();
        return 0;
    }

    private static synchronized void print(BufferedWriter out, EventCodec codec, OutboundEvent event) {
        try {
            out.write(codec.encode(event));
            out.write('\n');
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
