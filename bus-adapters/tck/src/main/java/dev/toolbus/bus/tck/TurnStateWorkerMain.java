package dev.toolbus.bus.tck;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.protocol.Risk;
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
 *   <li>{@code lookup}: not side-effecting (retry-safe: may run again);</li>
 *   <li>{@code wipe}: side-effecting and of high risk: asks for approval (approval {@code auto}; the
 *       others are classified low and run without asking);</li>
 *   <li>{@code ask_city}: retry-safe; asks "Which city?" once it counted its run, answers
 *       {@code city <answer>} or {@code no answer (<outcome>)}.</li>
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
                .tool(counting(ToolDefinition.builder("wipe").description("Wipes a disk (counts its runs)")
                        .sideEffecting(true).risk(Risk.HIGH).timeout(Duration.ofMinutes(5)).build()))
                .tool(askCity())
                .approval(ApprovalSettings.builder().mode(ApprovalMode.AUTO).low(List.of("charge", "lookup", "ask_city"))
                        .build())
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
        return new ToolSpec(definition, (ToolArguments a, ToolContext c) -> Mono.fromCallable(
                () -> count(Path.of(a.string("file")), definition, c)).subscribeOn(Schedulers.boundedElastic())
                .flatMap(n -> Mono.delay(Duration.ofMillis(n == 1 ? a.integer("hold_ms", 0) : 0)).thenReturn(n))
                .map(n -> ToolResult.text("done " + n)));
    }

    private static ToolSpec askCity() {
        ToolDefinition d = ToolDefinition.builder("ask_city").description("Asks for a city (counts its runs)")
                .timeout(Duration.ofMinutes(5)).build();
        return new ToolSpec(d, (a, c) -> Mono.fromCallable(() -> count(Path.of(a.string("file")), d, c))
                .subscribeOn(Schedulers.boundedElastic())
                .then(c.ask("Which city?", ControlTools.CITY_SCHEMA, Duration.ofMinutes(2)))
                .map(ans -> ToolResult.text(ans.accepted() ? "city " + ans.content().get("city").asText()
                        : "no answer (" + ans.outcome().name().toLowerCase(java.util.Locale.ROOT) + ")")));
    }

    /** Appends the run to the file; its line number. */
    private static long count(Path file, ToolDefinition d, ToolContext c) throws IOException {
        Files.writeString(file, c.turnId() + "/" + c.toolCallId() + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
        long n = lines(file);
        System.out.println("RAN " + d.name() + " " + c.turnId() + "/" + c.toolCallId() + " #" + n);
        System.out.flush();
        return n;
    }

    private static long lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8).size();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
