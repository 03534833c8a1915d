package dev.toolbus.benchmarks;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
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
import reactor.core.Disposable;

/**
 * A turn of one call through the bus path without a broker: {@code ToolExecutor.run(bus)} on an
 * {@link InMemoryBus}, each turn sent as the JSON bytes a broker would deliver. Per turn: the decode, the
 * bus loop's bounds, the turn state's admission and ledger (in memory), the executor as in
 * {@code ToolbusExecutorBenchmark.cacheOff} (maxParallel 5), the publish and the acknowledgement. The
 * difference to {@code cacheOff} is what a bus adds before any broker client or encode (the in-memory
 * bus publishes event objects). {@code ledger=off} is the same with the turn ledger off
 * ({@code TurnLedgerSettings.OFF}, toolbus.yaml {@code bus.idempotency.windowMs: 0}): the difference is
 * what the in-memory ledger's admission and record cost a turn. Each invocation sends {@link Workload#CALLS} turns over
 * {@link Workload#STREAMS} streams under turn ids no invocation used before (a repeated id would be
 * answered by the turn ledger), built in the measured method: one string per turn.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.AverageTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@OperationsPerInvocation(Workload.CALLS)
public class BusTurnBenchmark {

    private static final long MAX_WAIT_NANOS = TimeUnit.MINUTES.toNanos(2);

    /** The argument string as a JSON string value, as a model's arguments arrive. */
    private static final String ARGS = "\"" + Workload.ARGS_JSON.replace("\"", "\\\"") + "\"";

    /** The in-memory turn ledger on (the default) or off. */
    @Param({"on", "off"})
    public String ledger;

    private ToolExecutor executor;
    private InMemoryBus bus;
    private Disposable running;
    private Disposable watching;
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private volatile Thread waiter;
    private volatile int target;
    private long round;

    @Setup(Level.Trial)
    public void setUp() {
        executor = ToolbusExecutorBenchmark.builder(ToolbusExecutorBenchmark.echoTool(), 5, false, null,
                        new io.micrometer.core.instrument.simple.SimpleMeterRegistry())
                .idempotency("off".equals(ledger) ? dev.toolbus.executor.state.TurnLedgerSettings.OFF
                        : dev.toolbus.executor.state.TurnLedgerSettings.DEFAULTS)
                .build();
        bus = InMemoryBus.create();
        watching = bus.events().subscribe(this::seen);
        running = executor.run(bus).subscribe();
        sendBatch();
        if (failed.get() != 0) {
            throw new IllegalStateException(failed.get() + " calls failed or answered something else");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (running != null) {
            running.dispose();
        }
        if (watching != null) {
            watching.dispose();
        }
        if (executor != null) {
            executor.closeGracefully().block(Duration.ofSeconds(30));
        }
    }

    /** Sends one batch of turns and waits for every {@code turn_completed}. */
    @Benchmark
    public int oneCallTurns() {
        return sendBatch();
    }

    private int sendBatch() {
        long r = ++round;
        int start = completed.get();
        target = start + Workload.CALLS;
        waiter = Thread.currentThread();
        for (int i = 0; i < Workload.CALLS; i++) {
            bus.send("{\"type\":\"tool_calls\",\"stream_id\":\"bench:stream:" + (i % Workload.STREAMS)
                    + "\",\"turn_id\":\"t" + r + "_" + i + "\",\"calls\":[{\"tool_call_id\":\"call_" + i
                    + "\",\"name\":\"echo\",\"arguments\":" + ARGS + "}]}");
        }
        long deadline = System.nanoTime() + MAX_WAIT_NANOS;
        while (completed.get() < target) {
            LockSupport.parkNanos(this, 100_000);
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException((target - completed.get()) + " turns did not complete in time");
            }
        }
        return completed.get() - start;
    }

    private void seen(OutboundEvent e) {
        if (e instanceof ToolResultEvent t && (t.isError() || !Workload.EXPECTED.equals(t.content()))) {
            failed.incrementAndGet();
        } else if (e instanceof TurnCompletedEvent && completed.incrementAndGet() >= target) {
            Thread w = waiter;
            if (w != null && w != Thread.currentThread()) {
                LockSupport.unpark(w);
            }
        }
    }
}
