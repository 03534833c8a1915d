package dev.toolbus.tool.method;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.Action;
import dev.toolbus.tool.Param;
import dev.toolbus.tool.Tool;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolSpec;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * Reads the {@link Tool @Tool} and {@link Action @Action} methods of a plugin object into tool specs.
 * Public methods of any class are read (also static ones and inherited ones); tools come out sorted by
 * name, because reflection does not keep declaration order.
 */
final class AnnotatedTools {

    /** The shared mapper, but keeping {@code null} map values: a default of {@code null} is meaningful. */
    private static final com.fasterxml.jackson.databind.ObjectMapper TREES = Json.mapper().copy()
            .setDefaultPropertyInclusion(com.fasterxml.jackson.annotation.JsonInclude.Value.construct(
                    com.fasterxml.jackson.annotation.JsonInclude.Include.ALWAYS,
                    com.fasterxml.jackson.annotation.JsonInclude.Include.ALWAYS));

    /** A JSON-like Java value as a JSON tree, nulls kept. */
    private static JsonNode tree(Object value) {
        return TREES.valueToTree(value);
    }

    /** {@code @Tool.outputSchema}: a JSON object. */
    private static ObjectNode outputSchema(String text) {
        JsonNode n;
        try {
            n = Json.mapper().readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("outputSchema is not JSON: " + e.getOriginalMessage());
        }
        if (!(n instanceof ObjectNode o)) {
            throw new IllegalArgumentException("outputSchema must be a JSON object");
        }
        return o;
    }

    private static final TypeReference<LinkedHashMap<String, Object>> LINKED_MAP = new TypeReference<>() {
    };

    private AnnotatedTools() {
    }

    static List<ToolSpec> read(Object plugin, String pluginId) {
        Class<?> type = plugin.getClass();
        Map<String, ToolSpec> byName = new TreeMap<>();
        Map<String, Method> methodOf = new LinkedHashMap<>();
        Method[] methods = type.getMethods();
        Arrays.sort(methods, Comparator.comparing(Method::toGenericString));
        for (Method m : methods) {
            Tool tool = m.getAnnotation(Tool.class);
            @SuppressWarnings("deprecation")
            Action action = m.getAnnotation(Action.class);
            if ((tool == null && action == null) || m.isBridge() || m.isSynthetic()) {
                continue;
            }
            if (tool != null && action != null) {
                throw invalid(m, "has both @Tool and @Action");
            }
            ToolSpec spec;
            try {
                spec = tool != null ? readTool(plugin, m, tool, pluginId) : readAction(plugin, m, action, pluginId);
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw invalid(m, e.getMessage());
            }
            Method other = methodOf.putIfAbsent(spec.name(), m);
            if (other != null) {
                throw new IllegalArgumentException("duplicate tool name '" + spec.name() + "' in " + type.getName()
                        + ": methods " + other.getName() + " and " + m.getName());
            }
            byName.put(spec.name(), spec);
        }
        return List.copyOf(byName.values());
    }

    private static ToolSpec readTool(Object plugin, Method m, Tool t, String pluginId) {
        ToolDefinition.Builder b = ToolDefinition.builder(t.name())
                .description(t.description())
                .briefDescription(t.briefDescription())
                .detailedDescription(t.detailedDescription())
                .sideEffecting(t.sideEffecting())
                .idempotent(t.idempotent())
                .dangerous(t.dangerous())
                .cacheScope(t.cacheScope())
                .visibility(t.visibility())
                .optional(t.optional())
                .groups(List.of(t.groups()))
                .requiredPermission(t.requiredPermission())
                .channels(List.of(t.channels()))
                .pluginId(pluginId)
                .metadata(metadata(t.metadata()));
        b.allowedCallers(List.of(t.allowedCallers()));
        if (!t.outputSchema().isBlank()) {
            b.outputSchema(outputSchema(t.outputSchema()));
        } else {
            b.outputSchema(RecordSchemas.ofReturn(m.getGenericReturnType()));
        }
        if (t.risk().length > 1) {
            throw new IllegalArgumentException("tool '" + t.name() + "' declares more than one risk");
        }
        if (t.risk().length == 1) {
            b.risk(t.risk()[0]);
        }
        if (t.timeoutMs() > 0) {
            b.timeout(Duration.ofMillis(t.timeoutMs()));
        } else if (t.timeoutMs() != -1) {
            throw new IllegalArgumentException("timeoutMs must be positive, or -1 for the executor's timeout");
        }
        if (t.maxResultChars() >= 0) {
            b.maxResultChars(t.maxResultChars());
        } else if (t.maxResultChars() != -1) {
            throw new IllegalArgumentException("maxResultChars must be >= 0, or -1 for the executor's limit");
        }
        List<MethodToolHandler.Slot> slots = new ArrayList<>();
        for (Parameter p : m.getParameters()) {
            Param param = p.getAnnotation(Param.class);
            if (param == null) {
                slots.add(injected(p));
                continue;
            }
            ToolParameter tp = parameter(p, param);
            b.parameter(tp);
            slots.add(MethodToolHandler.argument(tp.name(), p.getParameterizedType(), tp.required(),
                    tp.defaultValue() == null ? null : tree(tp.defaultValue())));
        }
        return new ToolSpec(b.build(), handler(plugin, m, slots, t.blocking()));
    }

    @SuppressWarnings("deprecation")
    private static ToolSpec readAction(Object plugin, Method m, Action a, String pluginId) {
        Map<String, String> actionParameters = new LinkedHashMap<>();
        List<MethodToolHandler.Slot> slots = new ArrayList<>();
        for (Parameter p : m.getParameters()) {
            Param param = p.getAnnotation(Param.class);
            if (param == null) {
                slots.add(injected(p));
                continue;
            }
            String name = argumentName(p, param);
            if (actionParameters.put(name, param.description()) != null) {
                throw new IllegalArgumentException("duplicate parameter '" + name + "'");
            }
            slots.add(MethodToolHandler.argument(name, p.getParameterizedType(), false, null));
        }
        ToolDefinition.LegacyAction legacy = new ToolDefinition.LegacyAction(
                a.activationType().strip().toLowerCase(Locale.ROOT), List.of(a.activationKeywords()),
                a.activationProbability(), a.chatMode().strip().toLowerCase(Locale.ROOT), actionParameters,
                List.of(a.actionRequire()), List.of(a.associatedTypes()), a.parallelAction(), a.actionPrompt());
        ToolDefinition def = ToolDefinition.fromLegacyAction(a.name(), a.description(), legacy)
                .metadata(metadata(a.metadata()))
                .pluginId(pluginId)
                .build();
        return new ToolSpec(def, handler(plugin, m, slots, true));
    }

    private static ToolHandler handler(Object plugin, Method m, List<MethodToolHandler.Slot> slots, boolean blocking) {
        Class<?> returns = m.getReturnType();
        if (Publisher.class.isAssignableFrom(returns) && !Mono.class.isAssignableFrom(returns)) {
            throw new IllegalArgumentException("returns " + returns.getSimpleName()
                    + "; a tool returns Mono, CompletionStage, ToolResult or a value");
        }
        if (!m.trySetAccessible()) {
            throw new IllegalArgumentException("is not accessible by reflection");
        }
        return MethodToolHandler.create(Modifier.isStatic(m.getModifiers()) ? null : plugin, m, slots, blocking);
    }

    /** A parameter without {@code @Param}: the context, the arguments, or all arguments as JSON. */
    private static MethodToolHandler.Slot injected(Parameter p) {
        Class<?> c = p.getType();
        if (c == ToolContext.class) {
            return MethodToolHandler.context();
        }
        if (c == ToolArguments.class) {
            return MethodToolHandler.arguments();
        }
        if (c == JsonNode.class || c == ObjectNode.class) {
            return MethodToolHandler.argumentsJson();
        }
        throw new IllegalArgumentException("parameter '" + p.getName() + "' (" + c.getSimpleName()
                + ") needs @Param; only ToolContext, ToolArguments and JsonNode are injected");
    }

    private static ToolParameter parameter(Parameter p, Param param) {
        Class<?> c = p.getType();
        if (c == ToolContext.class || c == ToolArguments.class) {
            throw new IllegalArgumentException("parameter '" + p.getName() + "' is a " + c.getSimpleName()
                    + " and cannot be a @Param");
        }
        String name = argumentName(p, param);
        ToolParamType type = param.typeSet() ? param.type() : JavaParamTypes.infer(p.getParameterizedType());
        if (type == null) {
            throw new IllegalArgumentException("cannot infer the type of parameter '" + name + "' from "
                    + p.getParameterizedType().getTypeName() + "; set @Param(type = ..., typeSet = true)");
        }
        ToolParameter.Builder b = ToolParameter.builder(name, type)
                .description(param.description())
                .required(param.required());
        List<Object> enumValues = new ArrayList<>();
        for (String v : param.enumValues()) {
            enumValues.add(type == ToolParamType.STRING ? v : javaValue(literal(v, name, "enum value")));
        }
        if (enumValues.isEmpty() && type == ToolParamType.STRING) {
            enumValues.addAll(JavaParamTypes.enumConstants(p.getParameterizedType()));
        }
        b.enumValues(enumValues);
        if (!param.defaultValue().isEmpty()) {
            b.defaultValue(javaValue(defaultValue(param.defaultValue(), type, name)));
        }
        if (!param.items().isEmpty()) {
            JsonNode items = literal(param.items(), name, "items schema");
            if (!items.isObject()) {
                throw new IllegalArgumentException("items of parameter '" + name + "' must be a JSON object");
            }
            b.itemsSchema(Json.mapper().convertValue(items, LINKED_MAP));
        } else if (type == ToolParamType.ARRAY) {
            b.itemsSchema(JavaParamTypes.items(p.getParameterizedType()));
        }
        return b.build();
    }

    private static String argumentName(Parameter p, Param param) {
        if (!param.name().isBlank()) {
            return param.name().strip();
        }
        if (!p.isNamePresent()) {
            throw new IllegalArgumentException("parameter " + p.getName() + " has no name: compile with "
                    + "-parameters or give @Param(name = ...)");
        }
        return p.getName();
    }

    /**
     * A default: a JSON literal; for string parameters a quoted JSON string is unquoted and any other text
     * is taken verbatim ({@code defaultValue = "a"} means the string {@code a}).
     */
    private static JsonNode defaultValue(String text, ToolParamType type, String name) {
        if (type == ToolParamType.STRING) {
            JsonNode n = tryLiteral(text);
            return n != null && n.isTextual() ? n : Json.mapper().getNodeFactory().textNode(text);
        }
        return literal(text, name, "default");
    }

    /** {@code key=value} pairs; values that are JSON literals are parsed, others kept as text. */
    static Map<String, Object> metadata(String[] pairs) {
        Map<String, Object> out = new LinkedHashMap<>();
        for (String pair : pairs) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || pair.substring(0, eq).isBlank()) {
                throw new IllegalArgumentException("metadata entry '" + pair + "' must be key=value");
            }
            String value = pair.substring(eq + 1);
            JsonNode n = tryLiteral(value);
            out.put(pair.substring(0, eq).strip(), n == null ? value : javaValue(n));
        }
        return out;
    }

    private static JsonNode literal(String text, String name, String what) {
        JsonNode n = tryLiteral(text);
        if (n == null) {
            throw new IllegalArgumentException(what + " of parameter '" + name + "' is not valid JSON: " + text);
        }
        return n;
    }

    private static JsonNode tryLiteral(String text) {
        try {
            JsonNode n = Json.mapper().readerFor(JsonNode.class)
                    .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .readValue(text);
            return n == null || n.isMissingNode() ? null : n;
        } catch (JsonProcessingException | IllegalArgumentException e) {
            return null;
        }
    }

    private static Object javaValue(JsonNode n) {
        return Json.mapper().convertValue(n, Object.class);
    }

    private static IllegalArgumentException invalid(Method m, String message) {
        return new IllegalArgumentException("@Tool method " + m.getDeclaringClass().getSimpleName() + "."
                + m.getName() + ": " + message);
    }
}
