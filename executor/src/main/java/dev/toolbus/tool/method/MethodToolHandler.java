package dev.toolbus.tool.method;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.result.ForeignValues;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletionStage;
import reactor.core.publisher.Mono;

/**
 * Runs one annotated method as a tool: binds the call's arguments to the method's parameters with
 * Jackson, invokes it, and maps what it returns. Built by {@link AnnotatedTools}.
 */
final class MethodToolHandler {

    private final Object target;
    private final Method method;
    private final List<Slot> slots;

    private MethodToolHandler(Object target, Method method, List<Slot> slots) {
        this.target = target;
        this.method = method;
        this.slots = List.copyOf(slots);
    }

    /**
     * The handler of a method: non-blocking for {@code Mono} and {@code CompletionStage} returns,
     * otherwise {@link ToolHandler#blocking} (or {@link ToolHandler#sync} when {@code blocking} is false).
     */
    static ToolHandler create(Object target, Method method, List<Slot> slots, boolean blocking) {
        MethodToolHandler h = new MethodToolHandler(target, method, slots);
        Class<?> returns = method.getReturnType();
        if (Mono.class.isAssignableFrom(returns) || CompletionStage.class.isAssignableFrom(returns)) {
            return (args, ctx) -> Mono.defer(() -> {
                try {
                    Object r = h.invoke(args, ctx);
                    Mono<?> mono = r instanceof CompletionStage<?> cs ? Mono.fromCompletionStage(cs) : (Mono<?>) r;
                    return mono == null ? Mono.<ToolResult>empty() : mono.map(MethodToolHandler::toResult);
                } catch (Exception e) {
                    return Mono.error(e);
                }
            });
        }
        boolean isVoid = returns == void.class || returns == Void.class;
        ToolHandler.BlockingToolHandler call = (args, ctx) -> {
            Object r = h.invoke(args, ctx);
            return isVoid ? ToolResult.empty() : toResult(r);
        };
        return blocking ? ToolHandler.blocking(call) : ToolHandler.sync(call);
    }

    /**
     * A returned value as a result: a {@link ToolResult} as is; a record or bean as the JSON object of
     * its properties (so the model reads the same JSON the bot core gets as {@code data}, not a
     * {@code toString()}); anything else via {@link dev.toolbus.result.ForeignValues#toResult(Object)}.
     */
    static ToolResult toResult(Object value) {
        if (value instanceof ToolResult r) {
            return r;
        }
        if (value != null && !plainValue(value)) {
            try {
                value = dev.toolbus.protocol.Json.mapper().valueToTree(value);
            } catch (IllegalArgumentException e) {
                // not serialisable as JSON: its text is all there is
            }
        }
        return ForeignValues.toResult(value);
    }

    private static boolean plainValue(Object v) {
        return v instanceof CharSequence || v instanceof Number || v instanceof Boolean || v instanceof Character
                || v instanceof java.util.Map || v instanceof java.util.Collection || v instanceof Enum
                || v instanceof com.fasterxml.jackson.databind.JsonNode || v.getClass().isArray();
    }

    private Object invoke(ToolArguments args, ToolContext ctx) throws Exception {
        Object[] values = new Object[slots.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = slots.get(i).resolve(args, ctx);
        }
        try {
            return method.invoke(target, values);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception ex) {
                throw ex;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    /** What one method parameter receives. */
    interface Slot {
        Object resolve(ToolArguments args, ToolContext ctx);
    }

    /** The call's context. */
    static Slot context() {
        return (args, ctx) -> ctx;
    }

    /** All arguments. */
    static Slot arguments() {
        return (args, ctx) -> args;
    }

    /** All arguments as a JSON object. */
    static Slot argumentsJson() {
        return (args, ctx) -> args.node();
    }

    /**
     * One argument, converted to the parameter's Java type.
     *
     * @param name the argument name
     * @param type the parameter's generic type
     * @param required whether a missing argument is an error (when there is no default)
     * @param defaultValue the declared default as JSON, or {@code null}
     */
    static Slot argument(String name, java.lang.reflect.Type type, boolean required, JsonNode defaultValue) {
        JavaType javaType = Json.mapper().getTypeFactory().constructType(type);
        Class<?> raw = javaType.getRawClass();
        String typeName = type.getTypeName();
        return (args, ctx) -> {
            JsonNode v = args.get(name);
            if (v == null || v.isNull()) {
                if (defaultValue != null) {
                    v = defaultValue;
                } else if (required) {
                    throw new IllegalArgumentException("missing required argument '" + name + "'");
                } else {
                    return zero(raw);
                }
            }
            if (JsonNode.class.isAssignableFrom(raw)) {
                if (!raw.isInstance(v)) {
                    throw new IllegalArgumentException("argument '" + name + "' must be a JSON "
                            + raw.getSimpleName().replace("Node", "").toLowerCase(java.util.Locale.ROOT));
                }
                return v;
            }
            try {
                return Json.mapper().convertValue(v, javaType);
            } catch (IllegalArgumentException e) {
                String detail = String.valueOf(e.getMessage());
                int nl = detail.indexOf('\n');
                throw new IllegalArgumentException("argument '" + name + "' cannot be read as "
                        + typeName + ": "
                        + (nl < 0 ? detail : detail.substring(0, nl)), e);
            }
        };
    }

    private static Object zero(Class<?> c) {
        if (!c.isPrimitive()) {
            return null;
        }
        if (c == boolean.class) {
            return false;
        }
        if (c == char.class) {
            return '\0';
        }
        if (c == double.class) {
            return 0.0;
        }
        if (c == float.class) {
            return 0f;
        }
        if (c == long.class) {
            return 0L;
        }
        if (c == short.class) {
            return (short) 0;
        }
        return c == byte.class ? (byte) 0 : 0;
    }
}
