package dev.toolbus.rules;

import java.util.Map;
import java.util.Objects;

/**
 * The calls made so far in the call's turn, as the {@code turn} variable shows them. The engine counts
 * the calls of the turn that passed every check before this one (the policy, the rules, approval)
 * and started, in the order of the turn's calls; this call itself is not counted.
 *
 * <p>{@code turn.by_tool[name]} is {@code 0} for a tool not called yet in the turn.
 */
public interface TurnCounts {

    /** No calls yet: the first call of a turn. */
    TurnCounts NONE = of(0, 0, 0, Map.of());

    /** {@code turn.calls}: every call so far. */
    long calls();

    /** {@code turn.side_effecting_calls}: calls of side-effecting tools so far. */
    long sideEffectingCalls();

    /** {@code turn.dangerous_calls}: calls of dangerous tools so far. */
    long dangerousCalls();

    /** {@code turn.by_tool}: calls so far by tool name (as registered); tools not called may be absent. */
    Map<String, Long> byTool();

    /**
     * Fixed counts.
     *
     * @throws IllegalArgumentException when a count is negative
     */
    static TurnCounts of(long calls, long sideEffectingCalls, long dangerousCalls, Map<String, Long> byTool) {
        return new Fixed(calls, sideEffectingCalls, dangerousCalls, byTool);
    }

    /** {@link #of}'s counts. */
    record Fixed(long calls, long sideEffectingCalls, long dangerousCalls, Map<String, Long> byTool)
            implements TurnCounts {
        public Fixed {
            if (calls < 0 || sideEffectingCalls < 0 || dangerousCalls < 0) {
                throw new IllegalArgumentException("negative call count");
            }
            byTool = Map.copyOf(Objects.requireNonNull(byTool, "byTool"));
            for (Long n : byTool.values()) {
                if (n < 0) {
                    throw new IllegalArgumentException("negative call count in byTool");
                }
            }
        }
    }
}
