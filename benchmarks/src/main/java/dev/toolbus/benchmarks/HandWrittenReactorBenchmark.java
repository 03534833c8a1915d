package dev.toolbus.benchmarks;

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
import org.openjdk.jmh.infra.Blackhole;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What a user would write by hand in Reactor: {@code flatMap} over the calls with the same
 * {@code maxParallel}, each call parsed with Jackson, looked up by name and run, with and without a
 * per-call {@code Mono.timeout}. Same batch of {@link Workload#CALLS} calls; scores are per call.
 * No validation, no metrics, no events, no per-stream ordering.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(Workload.CALLS)
public class HandWrittenReactorBenchmark {

    @Param({"1", "5", "20"})
    public int maxParallel;

    private HandDispatch dispatch;
    private List<Workload.RawCall> calls;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        dispatch = new HandDispatch();
        calls = Workload.rawCalls();
        if (!Workload.EXPECTED.equals(dispatch.dispatch(Workload.TOOL, Workload.ARGS_JSON))) {
            throw new IllegalStateException("hand dispatch broken");
        }
    }

    /** {@code flatMap} + {@code Mono.timeout(30 s)} per call: the baseline of the target. */
    @Benchmark
    public long flatMapTimeout(Blackhole bh) {
        return check(Flux.fromIterable(calls)
                .flatMap(c -> Mono.fromCallable(() -> dispatch.dispatch(c.name(), c.argumentsJson()))
                        .timeout(Workload.TIMEOUT), maxParallel)
                .filter(r -> {
                    bh.consume(r);
                    return true;
                })
                .count()
                .block());
    }

    /** The same without the timeout: the floor of a Reactor pipeline. */
    @Benchmark
    public long flatMapNoTimeout(Blackhole bh) {
        return check(Flux.fromIterable(calls)
                .flatMap(c -> Mono.fromCallable(() -> dispatch.dispatch(c.name(), c.argumentsJson())), maxParallel)
                .filter(r -> {
                    bh.consume(r);
                    return true;
                })
                .count()
                .block());
    }

    private long check(Long n) {
        if (n == null || n != calls.size()) {
            throw new IllegalStateException("expected " + calls.size() + " results, got " + n);
        }
        return n;
    }
}
