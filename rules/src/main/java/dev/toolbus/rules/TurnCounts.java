package dev.toolbus.rules;

import dev.toolbus.spi.CallRules;
import java.util.Map;
import java.util.Objects;

/**
 * The calls made so far in the call's turn, as the {@code turn} variable shows them: the calls of the
 * turn before this one that passed the policy, their argument checks and the rules (they may still
 * wait for approval), in the order of the turn's calls; this call itself is not counted. The executor
 * gives its own {@link CallRules.Counts}; this adds fixed counts for tests and tools.
 *
 * <p>{@code turn.by_tool[name]} is {@code 0} for a tool not called yet in the turn.
 */
public interface TurnCounts extends CallRules.Counts {

    /** No calls yet: the first call of a turn. */
    TurnCounts NONE = of(0, 0, 0, Map.of());

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
