package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.tool.ToolSource;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Locale;

/**
 * The observation of one call ({@value #NAME}), an {@code execute_tool {gen_ai.tool.name}} span by the
 * OpenTelemetry GenAI semantic conventions. Low-cardinality (span attributes and the tags of a meter an
 * observation handler makes): {@code gen_ai.operation.name} ({@value #OPERATION}), {@code gen_ai.tool.name}
 * ({@code unknown} for names no tool has), {@code gen_ai.tool.type}, {@code outcome} ({@code ok} or the
 * error code in lower case) and {@code cached}. High-cardinality (span attributes only):
 * {@code gen_ai.tool.call.id}, {@code gen_ai.tool.description}, {@code attempts}, and on failure
 * {@code error.type} (the error code in lower case), with the span's status set to error. A child of its
 * turn's observation.
 */
final class CallObservation {

    static final String NAME = "toolbus.call";
    /** {@code gen_ai.operation.name} of a tool call. */
    static final String OPERATION = "execute_tool";
    static final String OPERATION_NAME = "gen_ai.operation.name";
    static final String TOOL_NAME = "gen_ai.tool.name";
    static final String TOOL_TYPE = "gen_ai.tool.type";
    static final String TOOL_CALL_ID = "gen_ai.tool.call.id";
    static final String TOOL_DESCRIPTION = "gen_ai.tool.description";
    static final String ERROR_TYPE = "error.type";
    /** The tool name of calls to a name no tool has (bounded cardinality). */
    static final String UNKNOWN_TOOL = "unknown";
    /** A longer description is cut to this many characters on the span. */
    static final int MAX_DESCRIPTION_CHARS = 1024;

    private CallObservation() {
    }

    /**
     * {@code gen_ai.tool.type}: {@code extension} for an MCP server's tool (a call out to another
     * service), {@code datastore} for {@code read_tool_result} (it reads stored results), else
     * {@code function} (a handler toolbus runs: Java, or a stdio plugin process it owns).
     */
    static String toolType(ToolRegistry.Entry entry) {
        if (entry == null) {
            return "function";
        }
        if (entry.source() == ToolSource.MCP) {
            return "extension";
        }
        if (entry.source() == ToolSource.CORE && BuiltInTools.READ_TOOL_RESULT.equals(entry.tool().definition().name())) {
            return "datastore";
        }
        return "function";
    }

    static Observation observation(String tool, String type, String description, String toolCallId,
                                   ObservationRegistry registry) {
        Observation obs = Observation.createNotStarted(NAME, registry)
                .contextualName(OPERATION + " " + tool)
                .lowCardinalityKeyValue(OPERATION_NAME, OPERATION)
                .lowCardinalityKeyValue(TOOL_NAME, tool)
                .lowCardinalityKeyValue(TOOL_TYPE, type)
                .highCardinalityKeyValue(TOOL_CALL_ID, toolCallId);
        if (description != null && !description.isEmpty()) {
            obs.highCardinalityKeyValue(TOOL_DESCRIPTION, cut(description));
        }
        return obs;
    }

    /** Records the result and stops the observation. */
    static void stop(Observation obs, ToolResultEvent result) {
        ErrorCode code = result.isError() ? result.error().code() : null;
        obs.lowCardinalityKeyValue("outcome", code == null ? "ok" : errorType(code))
                .lowCardinalityKeyValue("cached", Boolean.toString(result.cached()))
                .highCardinalityKeyValue("attempts", Integer.toString(result.attempts()));
        if (code != null) {
            failed(obs, code);
        }
        obs.stop();
    }

    /** Stops an observation whose call never delivered a result (its turn was abandoned). */
    static void abandon(Observation obs) {
        obs.lowCardinalityKeyValue("outcome", errorType(ErrorCode.CANCELLED))
                .lowCardinalityKeyValue("cached", "false")
                .highCardinalityKeyValue("attempts", "0");
        failed(obs, ErrorCode.CANCELLED);
        obs.stop();
    }

    /** {@code error.type} of a failed call: its error code in lower case (as the {@code outcome} tag). */
    static String errorType(ErrorCode code) {
        return code.name().toLowerCase(Locale.ROOT);
    }

    /**
     * {@code error.type} on the span (high-cardinality, so a meter's tag keys stay the same for every
     * outcome) and the span's status set to error through {@link Observation#error}, whose throwable
     * names only the code: the error's text may hold what the user or the tool said.
     */
    private static void failed(Observation obs, ErrorCode code) {
        obs.highCardinalityKeyValue(ERROR_TYPE, errorType(code));
        obs.error(new ToolCallError(code));
    }

    private static String cut(String s) {
        if (s.length() <= MAX_DESCRIPTION_CHARS) {
            return s;
        }
        int end = MAX_DESCRIPTION_CHARS;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end);
    }

    /**
     * The error a failed call's observation records: its message is the error code; no stack trace
     * (nothing threw: the call ended with an error result).
     */
    static final class ToolCallError extends RuntimeException {

        private static final long serialVersionUID = 1L;

        ToolCallError(ErrorCode code) {
            super(code.name(), null, false, false);
        }
    }
}
