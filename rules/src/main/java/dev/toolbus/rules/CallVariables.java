package dev.toolbus.rules;

import dev.cel.runtime.CelVariableResolver;
import dev.toolbus.protocol.Caller;
import dev.toolbus.spi.CallRules;
import java.util.AbstractMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The variables of one evaluation, made when a condition first reads them: {@code args} is a view
 * over the JSON arguments, {@code turn} a view over the counts, the rest are prepared values. Both
 * evaluators read them: CEL's program through {@link #find}, a {@link DirectCondition} through the
 * accessors. One per call, used by one thread.
 */
final class CallVariables implements CelVariableResolver {

    private static final Optional<Object> NONE = Optional.empty();
    /** The fields of {@code caller}, in order. */
    static final MapValue.Layout CALLER = new MapValue.Layout("type", "id");

    /** The {@code caller} of a direct call. */
    private static final MapValue.Struct DIRECT = new MapValue.Struct(CALLER, "direct", "");

    private final CallInputs call;
    private final MapValue.Struct tool;
    private Object args;
    private MapValue turn;
    private MapValue byTool;

    CallVariables(CallInputs call, MapValue.Struct tool) {
        this.call = call;
        this.tool = tool;
    }

    @Override
    public Optional<Object> find(String name) {
        return switch (name) {
            case "args" -> Optional.of(args());
            case "ctx" -> Optional.of(ctx());
            case "tool" -> Optional.of(tool);
            case "turn" -> Optional.of(turn());
            case "caller" -> Optional.of(callerValue());
            default -> NONE;
        };
    }

    CallInputs call() {
        return call;
    }

    Object args() {
        Object a = args;
        if (a == null) {
            a = JsonValues.of(call.args());
            args = a;
        }
        return a;
    }

    MapValue.Struct ctx() {
        return call.ctx();
    }

    MapValue.Struct tool() {
        return tool;
    }

    MapValue callerValue() {
        Caller c = call.caller();
        return c == Caller.DIRECT ? DIRECT : new MapValue.Struct(CALLER, c.type().wireName(), c.id());
    }

    MapValue turn() {
        MapValue t = turn;
        if (t == null) {
            t = new Turn(this);
            turn = t;
        }
        return t;
    }

    MapValue byTool() {
        MapValue b = byTool;
        if (b == null) {
            b = new ByTool(call.turn().byTool());
            byTool = b;
        }
        return b;
    }

    /** {@code turn}: the counts, read when a field is. */
    private static final class Turn extends MapValue {
        private static final Set<String> KEYS = Set.of("calls", "side_effecting_calls", "dangerous_calls", "by_tool");
        private final CallVariables vars;

        Turn(CallVariables vars) {
            this.vars = vars;
        }

        @Override
        public Object get(Object key) {
            if (!(key instanceof String k)) {
                return null;
            }
            CallRules.Counts t = vars.call.turn();
            return switch (k) {
                case "calls" -> t.calls();
                case "side_effecting_calls" -> t.sideEffectingCalls();
                case "dangerous_calls" -> t.dangerousCalls();
                case "by_tool" -> vars.byTool();
                default -> null;
            };
        }

        @Override
        public boolean containsKey(Object key) {
            return key instanceof String && KEYS.contains(key);
        }

        @Override
        public int size() {
            return KEYS.size();
        }

        @Override
        public Set<Map.Entry<String, Object>> entrySet() {
            java.util.LinkedHashSet<Map.Entry<String, Object>> out = new java.util.LinkedHashSet<>();
            for (String k : new String[] {"calls", "side_effecting_calls", "dangerous_calls", "by_tool"}) {
                out.add(new AbstractMap.SimpleImmutableEntry<>(k, get(k)));
            }
            return out;
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
