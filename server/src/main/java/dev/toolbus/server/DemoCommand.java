package dev.toolbus.server;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.assembly.samples.SampleTools;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import reactor.core.publisher.Mono;

/**
 * {@code toolbus demo}: sends the {@link DemoTurns} through the in-memory bus to an executor with the
 * sample tools and prints every output event as one JSON line on stdout, as it is published.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Run sample turns through the in-memory bus and print every output event as a JSON line.")
final class DemoCommand implements Callable<Integer> {

    @Mixin
    ExecutionOptions execution;

    @Override
    public Integer call() throws Exception {
        List<String> flagWarnings = new ArrayList<>();
        ExecutionSettings settings = execution.settings(flagWarnings);
        ExecutionOptions.printWarnings(flagWarnings, System.err);
        EventCodec codec = EventCodec.defaults();
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
        InMemoryBus bus = InMemoryBus.create(codec, 65_536);
        try (ToolExecutor executor = ToolExecutor.builder()
                .settings(settings)
                .codec(codec)
                .tools(new SampleTools().specs())
                .build()) {
            CompletableFuture<Void> printed = bus.events().doOnNext(event -> print(out, codec, event)).then()
                    .toFuture();
            Mono<Void> running = executor.run(bus);
            DemoTurns.lines().forEach(bus::send);
            bus.complete();
            running.then(bus.closeGracefully()).block();
            printed.get();
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
