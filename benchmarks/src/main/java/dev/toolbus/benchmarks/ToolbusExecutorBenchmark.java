package dev.toolbus.benchmarks;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
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
 * The toolbus executor with validation, metrics (a real {@link SimpleMeterRegistry}) and the per-call
 * timeout on. Each invocation submits {@link Workload#CALLS} single-call turns spread over
 * {@link Workload#STREAMS} streams, all at once (one minimal subscriber per turn, see {@link TurnBatch}),
 * and waits for every {@code turn_completed}; the executor itself bounds the running handlers to {@code maxParallel}. Scores are per call.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(Workload.CALLS)
public class ToolbusExecutorBenchmark {

    @Param({"1", "5", "20"})
    public int maxParallel;

    private ToolExecutor cacheOff;
    private ToolExecutor cacheOffNoHistogram;
    private ToolExecutor cacheOffNoMeters;
    private ToolExecutor cacheHit;
    private ToolExecutor media;
    private ToolExecutor rulesTen;
    private List<ToolCallsEvent> turns;

    static ToolDefinition echoDefinition(String name) {
        return ToolDefinition.builder(name)
                .description("Returns the text it is given.")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "The text to return."))
                .build();
    }

    /** A synchronous, non-blocking handler: no thread hop, completes on the caller's thread. */
    static ToolSpec echoTool() {
        ToolHandler handler = (args, ctx) -> Mono.just(ToolResult.text(Workload.echo(args.string("text"))));
        return new ToolSpec(echoDefinition(Workload.TOOL), handler);
    }

    /** Same tool name and input, but the result carries one small PNG, which the executor splits off. */
    static ToolSpec echoWithImageTool() {
        ToolHandler handler = (args, ctx) -> Mono.just(ToolResult.builder()
                .content(Workload.echo(args.string("text")))
                .item(ContentItem.imageBase64(Workload.PNG_BASE64, "image/png"))
                .build());
        return new ToolSpec(echoDefinition(Workload.TOOL), handler);
    }

    /**
     * Ten rules that all name the called tool and none of which is true for its calls (so all ten are
     * evaluated): {@link RuleSetBenchmark#CONDITIONS} with the amount read as optional, since the echo
     * calls have none (a missing key would deny the call).
     */
    static dev.toolbus.rules.RuleSet tenRulesOnTheTool() {
        dev.toolbus.rules.RuleSet.Builder b = dev.toolbus.rules.RuleSet.builder();
        int i = 0;
        for (String c : RuleSetBenchmark.CONDITIONS) {
            String when = c.replace("args.amount", "args.?amount.orValue(0)");
            b.rule(dev.toolbus.rules.Rule.builder("rule-" + i).tools(Workload.TOOL).when(when)
                    .then(i++ % 2 == 0 ? dev.toolbus.rules.RuleAction.ASK : dev.toolbus.rules.RuleAction.DENY).build());
        }
        return b.build();
    }

    static ToolExecutor executor(ToolSpec tool, int maxParallel, boolean cache) {
        return executor(tool, maxParallel, cache, null);
    }

    static ToolExecutor executor(ToolSpec tool, int maxParallel, boolean cache, dev.toolbus.rules.RuleSet rules) {
        return executor(tool, maxParallel, cache, rules, new SimpleMeterRegistry());
    }

    /** The benchmark's executor: 30 s timeout, no retry, the cache on or off, meters into {@code meters}. */
    static ToolExecutor executor(ToolSpec tool, int maxParallel, boolean cache, dev.toolbus.rules.RuleSet rules,
                                 io.micrometer.core.instrument.MeterRegistry meters) {
        return builder(tool, maxParallel, cache, rules, meters).build();
    }

    /** The builder of {@link #executor(ToolSpec, int, boolean, dev.toolbus.rules.RuleSet, io.micrometer.core.instrument.MeterRegistry)}. */
    static ToolExecutor.Builder builder(ToolSpec tool, int maxParallel, boolean cache, dev.toolbus.rules.RuleSet rules,
                                        io.micrometer.core.instrument.MeterRegistry meters) {
        ExecutionSettings settings = ExecutionSettings.builder()
                .maxParallel(maxParallel)
                .timeout(Workload.TIMEOUT)
                .retryOnError(false)
                .cacheResults(cache)
                .cacheTtl(Duration.ofMinutes(10))
                .build();
        ToolExecutor.Builder b = ToolExecutor.builder()
                .tool(tool)
                .settings(settings)
                .meterRegistry(meters);
        if (rules != null) {
            b.rules(dev.toolbus.rules.LiveRules.of(rules, meters));
        }
        return b;
    }

    /**
     * A registry whose filter turns the percentile histograms off, as an application's own
     * {@code MeterFilter} can: {@code toolbus.tool.duration} then keeps its count, total and maximum only.
     */
    static SimpleMeterRegistry withoutHistograms() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                return DistributionStatisticConfig.builder().percentilesHistogram(false).build().merge(config);
            }
        });
        return registry;
    }

    @Setup(Level.Trial)
    public void setUp() {
        turns = Workload.turns();
        cacheOff = executor(echoTool(), maxParallel, false);
        cacheOffNoHistogram = executor(echoTool(), maxParallel, false, null, withoutHistograms());
        SimpleMeterRegistry denied = new SimpleMeterRegistry();
        denied.config().meterFilter(MeterFilter.deny());
        cacheOffNoMeters = executor(echoTool(), maxParallel, false, null, denied);
        cacheHit = executor(echoTool(), maxParallel, true);
        media = executor(echoWithImageTool(), maxParallel, false);
        rulesTen = executor(echoTool(), maxParallel, false, tenRulesOnTheTool());
        // Check every path once, so a broken executor cannot pass for a fast one, and warm the cache.
        verify(cacheOff, false, false);
        verify(cacheOffNoHistogram, false, false);
        verify(cacheOffNoMeters, false, false);
        verify(cacheHit, false, false);
        verify(cacheHit, true, false);
        verify(media, false, true);
        verify(rulesTen, false, false);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        for (ToolExecutor e : new ToolExecutor[] {cacheOff, cacheOffNoHistogram, cacheOffNoMeters, cacheHit, media, rulesTen}) {
            if (e != null) {
                e.closeGracefully().block(Duration.ofSeconds(30));
            }
        }
    }

    /** Cache off: every call is parsed, validated, run, timed, metered and mapped to events. */
    @Benchmark
    public long cacheOff(Blackhole bh) {
        return runBatch(cacheOff, turns, bh);
    }

    /**
     * {@link #cacheOff} with the registry's percentile histograms turned off by a {@code MeterFilter}:
     * the difference is what the {@code toolbus.tool.duration} histogram costs a call (Micrometer reads
     * the clock for its rotation once more per recording).
     */
    @Benchmark
    public long cacheOffNoHistogram(Blackhole bh) {
        return runBatch(cacheOffNoHistogram, turns, bh);
    }

    /**
     * {@link #cacheOff} with every meter denied by a {@code MeterFilter} (Micrometer then hands out no-op
     * meters): the difference is what the executor's meters cost a call. The call log, validation and the
     * timeout stay on.
     */
    @Benchmark
    public long cacheOffNoMeters(Blackhole bh) {
        return runBatch(cacheOffNoMeters, turns, bh);
    }

    /**
     * {@link #cacheOff} with ten rules over the call ({@code toolbus-rules} through the executor's
     * {@code CallRules} SPI) that all name the tool and are all evaluated, none true: the difference to
     * {@code cacheOff} is what the rules add per call.
     */
    @Benchmark
    public long rulesTen(Blackhole bh) {
        return runBatch(rulesTen, turns, bh);
    }

    /** Cache on, same arguments every time, cache warm: every call is a hit. */
    @Benchmark
    public long cacheHit(Blackhole bh) {
        return runBatch(cacheHit, turns, bh);
    }

    /** Cache off; each result carries one PNG, split into a follow-up {@code user_message}. */
    @Benchmark
    public long mediaSplit(Blackhole bh) {
        return runBatch(media, turns, bh);
    }

    /** Submits every turn at once and waits for all of them; the executor decides how many handlers run. */
    static long runBatch(ToolExecutor executor, List<ToolCallsEvent> turns, Blackhole bh) {
        return TurnBatch.run(executor, turns, bh);
    }

    private void verify(ToolExecutor executor, boolean expectCached, boolean expectMedia) {
        List<OutboundEvent> events = Flux.fromIterable(turns)
                .flatMap(executor::execute, turns.size())
                .collectList()
                .block(Duration.ofMinutes(1));
        if (events == null) {
            throw new IllegalStateException("no events");
        }
        int results = 0;
        int completed = 0;
        int messages = 0;
        for (OutboundEvent e : events) {
            if (e instanceof ToolResultEvent r) {
                results++;
                if (r.isError()) {
                    throw new IllegalStateException("benchmark call failed: " + r);
                }
                if (!r.content().startsWith(Workload.EXPECTED)) {
                    throw new IllegalStateException("unexpected content: " + r.content());
                }
                if (expectCached && !r.cached()) {
                    throw new IllegalStateException("expected a cache hit: " + r);
                }
            } else if (e instanceof TurnCompletedEvent t) {
                completed++;
                if (t.errorCount() != 0) {
                    throw new IllegalStateException("turn with errors: " + t);
                }
            } else if (e instanceof UserMessageEvent) {
                messages++;
            }
        }
        int n = turns.size();
        if (results != n || completed != n || messages != (expectMedia ? n : 0)) {
            throw new IllegalStateException("expected " + n + " results and turns and " + (expectMedia ? n : 0)
                    + " media messages, got " + results + ", " + completed + ", " + messages);
        }
    }
}
