package dev.toolbus.benchmarks;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.infra.Blackhole;
import reactor.core.publisher.Flux;

/**
 * Batches of single-call turns for the benchmarks of out-of-process tools (stdio plugins, MCP servers),
 * where one call costs tens of microseconds and the harness's own Reactor operators (well under a
 * microsecond) do not matter. A batch runs with at most {@code inFlight} turns subscribed at once, and
 * every result is checked: an error result or a wrong text fails the benchmark instead of passing for
 * a fast call.
 */
public final class OneCallTurns {

    /** The argument string of every call. */
    public static final String ARGS_JSON = Workload.ARGS_JSON;

    /** What every call must answer. */
    public static final String EXPECTED = Workload.EXPECTED;

    /** How long one batch may take before the benchmark fails. */
    private static final Duration MAX_BATCH = Duration.ofMinutes(2);

    private OneCallTurns() {
    }

    /** {@code n} one-call turns of {@code tool} spread round robin over {@code streams} streams. */
    public static List<ToolCallsEvent> turns(String tool, int n, int streams) {
        List<ToolCallsEvent> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(ToolCallsEvent.of("bench:s" + (i % streams), "turn_" + i,
                    List.of(ToolCall.ofJson("call_" + i, tool, ARGS_JSON))));
        }
        return List.copyOf(out);
    }

    /**
     * Runs the turns with at most {@code inFlight} of them at once, every event to the Blackhole;
     * returns the number of completed turns (always all of them, or it throws).
     */
    public static int run(ToolExecutor executor, List<ToolCallsEvent> turns, int inFlight, Blackhole bh) {
        AtomicInteger completed = new AtomicInteger();
        Flux.fromIterable(turns)
                .flatMap(executor::execute, inFlight)
                .doOnNext(e -> {
                    check(e, completed);
                    if (bh != null) {
                        bh.consume(e);
                    }
                })
                .blockLast(MAX_BATCH);
        if (completed.get() != turns.size()) {
            throw new IllegalStateException("expected " + turns.size() + " turn_completed, got " + completed.get());
        }
        return completed.get();
    }

    private static void check(OutboundEvent e, AtomicInteger completed) {
        if (e instanceof ToolResultEvent r) {
            if (r.isError() || !EXPECTED.equals(r.content())) {
                throw new IllegalStateException("benchmark call failed or answered wrongly: " + r);
            }
        } else if (e instanceof TurnCompletedEvent t) {
            if (t.errorCount() != 0) {
                throw new IllegalStateException("turn with errors: " + t);
            }
            completed.incrementAndGet();
        }
    }
}
