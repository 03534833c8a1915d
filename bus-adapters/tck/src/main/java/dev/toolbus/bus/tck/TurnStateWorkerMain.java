package dev.toolbus.bus.tck;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One executor instance on a bus, run as its own JVM by the turn-state tests so that it can be killed
 * with SIGKILL or stopped with SIGSTOP while a call runs. Its tools count their executions in a file:
 * each run appends {@code <turn_id>/<tool_call_id>} to the file named by the argument {@code file}
 * (before it does anything else); the first run of a file (its first line) then waits {@code hold_ms}
 * (default 0), later runs do not; each answers {@code done <n>}, n being its line in the file.
 * <ul>
 *   <li>{@code charge}: side-effecting, not idempotent (never run twice: the call journal);</li>
 *   <li>{@code lookup}: not side-effecting (retry-safe: may run again).</li>
 * </ul>
 * Args: the {@link WorkerBus} class, then its arguments. Prints {@code READY <args>} once attached; a
 * SIGTERM closes the bus gracefully.
 */
public final class TurnStateWorkerMain {

    private TurnStateWorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        WorkerBus factory = (WorkerBus) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        ToolBus bus = factory.open(rest);
        ToolExecutor executor = ToolExecutor.builder()
                .tool(counting(ToolDefinition.builder("charge").description("Charges a card (counts its runs)")
                        .sideEffecting(true).timeout(Duration.ofMinutes(5)).build()))
                .tool(counting(ToolDefinition.builder("lookup").description("Looks something up (counts its runs)")
                        .timeout(Duration.ofMinutes(5)).build()))
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            bus.closeGracefully().block(Duration.ofSeconds(30));
            executor.close();
        }));
        executor.attach(bus);
        System.out.println("READY " + String.join(" ", rest));
        System.out.flush();
        Thread.currentThread().join();
    }

    private static ToolSpec counting(ToolDefinition definition) {
        return new ToolSpec(definition, (ToolArguments a, ToolContext c) -> Mono.fromCallable(() -> {
            Path file = Path.of(a.string("file"));
            Files.writeString(file, c.turnId() + "/" + c.toolCallId() + "\n", StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
            long n = lines(file);
            System.out.println("RAN " + definition.name() + " " + c.turnId() + "/" + c.toolCallId() + " #" + n);
            System.out.flush();
            return n;
        }).subscribeOn(Schedulers.boundedElastic())
                .flatMap(n -> Mono.delay(Duration.ofMillis(n == 1 ? a.integer("hold_ms", 0) : 0)).thenReturn(n))
                .map(n -> ToolResult.text("done " + n)));
    }

    private static long lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8).size();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
