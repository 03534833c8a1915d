package dev.toolbus.executor.internal;

import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.ErrorCode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * {@value ToolMetrics#EXECUTE_TOOL_DURATION} (the GenAI conventions' tool duration), recorded as an observed
 * call's span ends. One timer per tool, type and {@code error.type}, each resolved once; tool names are
 * bounded as for the {@code toolbus.tool.*} meters ({@code unknown} for names no tool has).
 */
final class GenAiMeters {

    /** The GenAI conventions' explicit bucket boundaries for durations, in seconds. */
    private static final Duration[] BUCKETS = buckets(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12,
            10.24, 20.48, 40.96, 81.92);

    private final MeterRegistry registry;
    /** By tool name and type (a name served first by one source, then by another, has two). */
    private final ConcurrentHashMap<String, ToolTimers> tools = new ConcurrentHashMap<>();

    GenAiMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Records one call; {@code error} is {@code null} for a call that succeeded. */
    void record(String tool, String type, ErrorCode error, long nanos) {
        ToolTimers t = tools.get(tool);
        if (t == null || !t.type.equals(type)) {
            String key = t == null ? tool : tool + '\n' + type;
            t = tools.computeIfAbsent(key, k -> new ToolTimers(tool, type));
        }
        t.timer(error).record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    /** The timers of one tool and type: the successful calls', and one per error code as it first occurs. */
    private final class ToolTimers {
        final String tool;
        final String type;
        final Timer ok;
        final AtomicReferenceArray<Timer> errors = new AtomicReferenceArray<>(ErrorCode.values().length);

        ToolTimers(String tool, String type) {
            this.tool = tool;
            this.type = type;
            this.ok = register(tool, type, null);
        }

        Timer timer(ErrorCode error) {
            if (error == null) {
                return ok;
            }
            Timer t = errors.get(error.ordinal());
            if (t == null) {
                t = register(tool, type, CallObservation.errorType(error));
                if (!errors.compareAndSet(error.ordinal(), null, t)) {
                    t = errors.get(error.ordinal());
                }
            }
            return t;
        }
    }

    private Timer register(String tool, String type, String errorType) {
        Timer.Builder b = Timer.builder(ToolMetrics.EXECUTE_TOOL_DURATION)
                .description("Duration of tool executions")
                .tag(CallObservation.OPERATION_NAME, CallObservation.OPERATION)
                .tag(CallObservation.TOOL_NAME, tool)
                .tag(CallObservation.TOOL_TYPE, type)
                .serviceLevelObjectives(BUCKETS);
        if (errorType != null) {
            b.tag(CallObservation.ERROR_TYPE, errorType);
        }
        return b.register(registry);
    }

    private static Duration[] buckets(double... seconds) {
        Duration[] d = new Duration[seconds.length];
        for (int i = 0; i < seconds.length; i++) {
            d[i] = Duration.ofNanos(Math.round(seconds[i] * 1e9));
        }
        return d;
    }
}
