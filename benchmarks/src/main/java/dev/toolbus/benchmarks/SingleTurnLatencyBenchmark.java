package dev.toolbus.benchmarks;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import reactor.core.publisher.Mono;

/**
 * Latency of one idle turn of one call, from subscription to {@code turn_completed}, with the
 * default {@code maxParallel} (5) and the cache off; next to one hand-written call with
 * {@code Mono.timeout}. SampleTime gives the percentiles.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SingleTurnLatencyBenchmark {

    private ToolExecutor executor;
    private ToolCallsEvent turn;
    private HandDispatch dispatch;
    private Workload.RawCall call;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        executor = ToolbusExecutorBenchmark.executor(ToolbusExecutorBenchmark.echoTool(), 5, false);
        turn = Workload.turns().get(0);
        dispatch = new HandDispatch();
        call = Workload.rawCalls().get(0);
        List<OutboundEvent> events = executor.execute(turn).collectList().block(Duration.ofSeconds(30));
        if (events == null || events.size() != 2 || !(events.get(1) instanceof TurnCompletedEvent t) || t.errorCount() != 0) {
            throw new IllegalStateException("unexpected events: " + events);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(30));
        }
    }

    /** One turn of one call through the toolbus executor; returns the last event. */
    @Benchmark
    public OutboundEvent toolbusTurn(Blackhole bh) {
        return executor.execute(turn).doOnNext(bh::consume).blockLast();
    }

    /** One hand-written call: parse, look up, run, under {@code Mono.timeout}. */
    @Benchmark
    public String handWrittenTimeout() {
        return Mono.fromCallable(() -> dispatch.dispatch(call.name(), call.argumentsJson()))
                .timeout(Workload.TIMEOUT)
                .block();
    }
}
