package dev.toolbus.executor.internal;

import dev.toolbus.spi.CallRules;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The calls of a turn that passed the rules so far ({@link CallRules.Counts}). A turn makes it when it
 * counts its first such call, so turns without rules carry none; touched only by the thread that starts
 * the turn's calls.
 */
final class RuledCalls implements CallRules.Counts {

    /** The counts of a turn that has counted nothing yet (never counted into). */
    static final CallRules.Counts NONE = new RuledCalls();

    private long calls;
    private long sideEffecting;
    private long dangerous;
    private Map<String, Long> byTool;

    /** Counts a call that passed the rules. */
    void count(String tool, boolean sideEffectingTool, boolean dangerousTool) {
        calls++;
        if (sideEffectingTool) {
            sideEffecting++;
        }
        if (dangerousTool) {
            dangerous++;
        }
        if (byTool == null) {
            byTool = new HashMap<>(4);
        }
        byTool.merge(tool, 1L, Long::sum);
    }

    @Override
    public long calls() {
        return calls;
    }

    @Override
    public long sideEffectingCalls() {
        return sideEffecting;
    }

    @Override
    public long dangerousCalls() {
        return dangerous;
    }

    @Override
    public Map<String, Long> byTool() {
        return byTool == null ? Map.of() : Collections.unmodifiableMap(byTool);
    }
}
