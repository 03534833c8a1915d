package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ToolResultEvent;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;

/**
 * The observation of one call ({@value #NAME}): low-cardinality {@code tool}, {@code outcome}
 * ({@code ok} or the error code in lower case) and {@code cached}; high-cardinality {@code attempts} and
 * {@code tool_call_id}. A child of its turn's observation.
 */
final class CallObservation {

    static final String NAME = "toolbus.call";

    private CallObservation() {
    }

    static Observation observation(String tool, String toolCallId, ObservationRegistry registry) {
        return Observation.createNotStarted(NAME, registry)
                .contextualName("execute_tool " + tool)
                .lowCardinalityKeyValue("tool", tool)
                .highCardinalityKeyValue("tool_call_id", toolCallId);
    }

    /** Records the result and stops the observation. */
    static void stop(Observation obs, ToolResultEvent result) {
        String outcome = result.isError() ? result.error().code().name().toLowerCase(Locale.ROOT) : "ok";
        obs.lowCardinalityKeyValue("outcome", outcome)
                .lowCardinalityKeyValue("cached", Boolean.toString(result.cached()))
                .highCardinalityKeyValue("attempts", Integer.toString(result.attempts()));
        obs.stop();
    }

    /** Stops an observation whose call never delivered a result (its turn was abandoned). */
    static void abandon(Observation obs) {
        obs.lowCardinalityKeyValue("outcome", ErrorCode.CANCELLED.name().toLowerCase(Locale.ROOT))
                .lowCardinalityKeyValue("cached", "false")
                .highCardinalityKeyValue("attempts", "0");
        obs.stop();
    }
}
