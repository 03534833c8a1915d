package dev.toolbus.benchmarks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What single guarantees of {@code ToolbusExecutorBenchmark.cacheOff} cost, one row each, at
 * {@code maxParallel} 5. The executor cannot run without them (nothing here is an option a user has), so
 * each row takes one away in the only way a benchmark can, and the difference to {@code everything} is
 * its price:
 * <ul>
 *   <li>{@code everything}: {@code cacheOff} as it is;</li>
 *   <li>{@code noMeters}: meters into an empty {@link CompositeMeterRegistry}, whose meters do nothing;</li>
 *   <li>{@code noSchema}: the tool declares an object schema without properties, so the argument check
 *       has nothing to check (the arguments are still parsed);</li>
 *   <li>{@code ownStreams}: every turn on a stream of its own, so no turn waits for one before it on its
 *       stream (order is kept either way; this is what the queueing behind a stream costs).</li>
 * </ul>
 * {@link #twoCallTurns} runs the same 1,000 calls as 500 turns of two calls: per call, what the common
 * small turn costs against a turn of one.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(Workload.CALLS)
public class GuaranteeCostBenchmark {

    @Param({"everything", "noMeters", "noSchema", "ownStreams"})
    public String without;

    private ToolExecutor executor;
    private List<ToolCallsEvent> turns;
    private List<ToolCallsEvent> pairs;

    @Setup(Level.Trial)
    public void setUp() {
        ToolSpec tool = ToolbusExecutorBenchmark.echoTool();
        MeterRegistry meters = new SimpleMeterRegistry();
        turns = Workload.turns();
        switch (without) {
            case "everything" -> { }
            case "noMeters" -> meters = new CompositeMeterRegistry();
            case "noSchema" -> tool = schemaless();
            case "ownStreams" -> turns = ownStreams(turns);
            default -> throw new IllegalArgumentException("unknown variant: " + without);
        }
        pairs = pairs();
        executor = ToolbusExecutorBenchmark.executor(tool, 5, false, null, meters);
        verify(turns);
        verify(pairs);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(30));
        }
    }

    /** 1,000 turns of one call, as {@code cacheOff}, less what {@link #without} names. */
    @Benchmark
    public long oneCallTurns(Blackhole bh) {
        return TurnBatch.run(executor, turns, bh);
    }

    /** The same 1,000 calls as 500 turns of two. */
    @Benchmark
    public long twoCallTurns(Blackhole bh) {
        return TurnBatch.run(executor, pairs, bh);
    }

    private static ToolSpec schemaless() {
        ToolDefinition def = ToolDefinition.builder(Workload.TOOL)
                .description("Returns the text it is given.")
                .inputSchema(JsonNodeFactory.instance.objectNode().put("type", "object"))
                .build();
        ToolHandler handler = (args, ctx) -> Mono.just(ToolResult.text(Workload.echo(args.string("text"))));
        return new ToolSpec(def, handler);
    }

    private static List<ToolCallsEvent> ownStreams(List<ToolCallsEvent> turns) {
        List<ToolCallsEvent> out = new ArrayList<>(turns.size());
        for (int i = 0; i < turns.size(); i++) {
            ToolCallsEvent t = turns.get(i);
            out.add(ToolCallsEvent.of("bench:own:" + i, t.turnId(), t.calls()));
        }
        return List.copyOf(out);
    }

    private static List<ToolCallsEvent> pairs() {
        List<ToolCallsEvent> out = new ArrayList<>(Workload.CALLS / 2);
        for (int i = 0; i < Workload.CALLS / 2; i++) {
            out.add(ToolCallsEvent.of("bench:stream:" + (i % Workload.STREAMS), "pair_" + i, List.of(
                    ToolCall.ofJson("call_" + (2 * i), Workload.TOOL, Workload.ARGS_JSON),
                    ToolCall.ofJson("call_" + (2 * i + 1), Workload.TOOL, Workload.ARGS_JSON))));
        }
        return List.copyOf(out);
    }

    /** Every call of the batch answered {@code hello}, no error, every turn completed. */
    private void verify(List<ToolCallsEvent> batch) {
        List<OutboundEvent> events = Flux.fromIterable(batch)
                .flatMap(executor::execute, batch.size())
                .collectList()
                .block(Duration.ofMinutes(1));
        int results = 0;
        int completed = 0;
        for (OutboundEvent e : events == null ? List.<OutboundEvent>of() : events) {
            if (e instanceof ToolResultEvent r) {
                if (r.isError() || !r.content().startsWith(Workload.EXPECTED)) {
                    throw new IllegalStateException("benchmark call failed: " + r);
                }
                results++;
            } else if (e instanceof TurnCompletedEvent t) {
                if (t.errorCount() != 0) {
                    throw new IllegalStateException("turn with errors: " + t);
                }
                completed++;
            }
        }
        if (results != Workload.CALLS || completed != batch.size()) {
            throw new IllegalStateException("expected " + Workload.CALLS + " results and " + batch.size()
                    + " completed turns, got " + results + " and " + completed);
        }
    }
}
