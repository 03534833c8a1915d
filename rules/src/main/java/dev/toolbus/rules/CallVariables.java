package dev.toolbus.rules;

import dev.cel.runtime.CelVariableResolver;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The variables of one evaluation, resolved when an expression first reads them: {@code args} is a
 * view over the JSON arguments, {@code turn} is built from the counts, the rest are prepared values.
 * One per call, used by one thread.
 */
final class CallVariables implements CelVariableResolver {

    private final RuleCall call;
    private final MapValue tool;
    private Optional<Object> args;
    private Optional<Object> turn;

    CallVariables(RuleCall call, MapValue tool) {
        this.call = call;
        this.tool = tool;
    }

    @Override
    public Optional<Object> find(String name) {
        switch (name) {
            case "args" -> {
                if (args == null) {
                    args = Optional.of(JsonValues.of(call.args()));
                }
                return args;
            }
            case "ctx" -> {
                return Optional.of(call.context().value());
            }
            case "tool" -> {
                return Optional.of(tool);
            }
            case "turn" -> {
                if (turn == null) {
                    TurnCounts t = call.turn();
                    turn = Optional.of(new MapValue.Fixed(Map.of("calls", t.calls(), "side_effecting_calls",
                            t.sideEffectingCalls(), "dangerous_calls", t.dangerousCalls(), "by_tool",
                            new ByTool(t.byTool()))));
                }
                return turn;
            }
            case "caller" -> {
                return Optional.of(call.caller().value());
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    /** {@code turn.by_tool}: the counts, and 0 for any other tool name. */
    static final class ByTool extends MapValue {
        private static final Long ZERO = 0L;
        private final Map<String, Long> counts;

        ByTool(Map<String, Long> counts) {
            this.counts = counts;
        }

        @Override
        public Object get(Object key) {
            if (!(key instanceof String)) {
                return null;
            }
            Long n = counts.get(key);
            return n == null ? ZERO : n;
        }

        @Override
        public boolean containsKey(Object key) {
            return key instanceof String;
        }

        @Override
        public int size() {
            return counts.size();
        }

        @Override
        @SuppressWarnings({"unchecked", "rawtypes"})
        public Set<Map.Entry<String, Object>> entrySet() {
            return (Set) counts.entrySet();
        }
    }
}
