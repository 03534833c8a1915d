package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ToolDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A tool's argument checks, compiled once per definition. The top level first, with messages of our
 * own: required names, the type of each declared property, enums. Then, unless the schema holds
 * nothing more than that, the whole schema through networknt json-schema-validator (nested objects,
 * array items, bounds, patterns, lengths, {@code additionalProperties}, {@code oneOf}/{@code anyOf},
 * formats, {@code $ref}s), reported as the path and the rule. A {@code null} value of an optional
 * argument counts as absent in both.
 */
final class ArgumentRules {

    private final String[] required;
    private final Map<String, String[]> types = new HashMap<>();
    private final Map<String, List<JsonNode>> enums = new HashMap<>();
    private final Set<String> declared = new HashSet<>();
    private final boolean declaresContext;
    /** The properties with a type or enum check, probed by name (no iterator per call). */
    private final String[] checked;
    /** The whole schema, or {@code null} when the top-level checks decide all it says. */
    private final com.networknt.schema.Schema full;

    private ArgumentRules(ToolDefinition def) {
        JsonNode schema = def.inputSchema();
        List<String> req = new ArrayList<>();
        for (JsonNode r : schema.path("required")) {
            if (r.isTextual()) {
                req.add(r.textValue());
            }
        }
        this.required = req.toArray(String[]::new);
        boolean ctx = false;
        for (String f : new String[] {"stream_id", "chat_id", "user_id", "group_id", "platform"}) {
            ctx |= schema.path("properties").has(f);
        }
        this.declaresContext = ctx;
        com.networknt.schema.Schema compiled = null;
        if (!dev.toolbus.internal.JsonSchemas.simple(schema)) {
            try {
                compiled = dev.toolbus.internal.JsonSchemas.compile(schema);
            } catch (RuntimeException e) {
                // the registry refuses invalid schemas; one that slipped past is checked at the top level only
                compiled = null;
            }
        }
        this.full = compiled;
        Iterator<Map.Entry<String, JsonNode>> it = schema.path("properties").fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            declared.add(e.getKey());
            JsonNode t = e.getValue().get("type");
            if (t != null && t.isTextual()) {
                types.put(e.getKey(), new String[] {t.textValue()});
            } else if (t != null && t.isArray()) {
                List<String> ts = new ArrayList<>();
                t.forEach(x -> ts.add(x.asText()));
                types.put(e.getKey(), ts.toArray(String[]::new));
            }
            JsonNode en = e.getValue().get("enum");
            if (en != null && en.isArray() && !en.isEmpty()) {
                List<JsonNode> values = new ArrayList<>();
                en.forEach(values::add);
                enums.put(e.getKey(), values);
            }
        }
        Set<String> names = new java.util.LinkedHashSet<>(types.keySet());
        names.addAll(enums.keySet());
        this.checked = names.toArray(String[]::new);
    }

    /** How many properties the schema declares (sizes the arguments' map). */
    int declaredCount() {
        return declared.size();
    }

    static ArgumentRules of(ToolDefinition def) {
        return new ArgumentRules(def);
    }

    /** Whether the schema declares any field the context fills ({@code stream_id}, {@code user_id}, …). */
    boolean declaresContextFields() {
        return declaresContext;
    }

    /** Whether the schema declares this property. */
    boolean declares(String name) {
        return declared.contains(name);
    }

    /**
     * Checks the arguments.
     *
     * @return {@code null} when valid, else the violation
     */
    Violation check(ObjectNode args) {
        for (String r : required) {
            JsonNode v = args.get(r);
            if (v == null || v.isNull()) {
                return new Violation(Violation.Kind.MISSING, r, null, null);
            }
        }
        if (types.isEmpty() && enums.isEmpty()) {
            return full == null ? null : checkFull(args);
        }
        if (passesTopLevel(args)) {
            return full == null ? null : checkFull(args);
        }
        // a violation: report the first one in the arguments' order, as the model wrote them
        Iterator<Map.Entry<String, JsonNode>> it = args.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            if (v.isNull()) {
                continue;
            }
            String[] expected = types.get(e.getKey());
            if (expected != null && !matchesAny(v, expected)) {
                return new Violation(Violation.Kind.TYPE, e.getKey(), String.join("|", expected), jsonType(v));
            }
            List<JsonNode> allowed = enums.get(e.getKey());
            if (allowed != null && !contains(allowed, v)) {
                List<String> names = new ArrayList<>(allowed.size());
                allowed.forEach(a -> names.add(a.isTextual() ? a.textValue() : a.toString()));
                return new Violation(Violation.Kind.ENUM, e.getKey(), String.join(", ", names), null);
            }
        }
        return full == null ? null : checkFull(args);
    }

    /** Whether every checked property present in {@code args} has its type and an allowed value. */
    private boolean passesTopLevel(ObjectNode args) {
        for (String name : checked) {
            JsonNode v = args.get(name);
            if (v == null || v.isNull()) {
                continue;
            }
            String[] expected = types.get(name);
            if (expected != null && !matchesAny(v, expected)) {
                return false;
            }
            List<JsonNode> allowed = enums.get(name);
            if (allowed != null && !contains(allowed, v)) {
                return false;
            }
        }
        return true;
    }

    /** The whole schema, on the arguments without their {@code null} optional values. */
    private Violation checkFull(ObjectNode args) {
        ObjectNode input = args;
        for (Iterator<Map.Entry<String, JsonNode>> it = args.fields(); it.hasNext(); ) {
            if (it.next().getValue().isNull()) {
                input = args.deepCopy();
                List<String> nulls = new ArrayList<>();
                input.fields().forEachRemaining(x -> {
                    if (x.getValue().isNull()) {
                        nulls.add(x.getKey());
                    }
                });
                input.remove(nulls);
                break;
            }
        }
        List<com.networknt.schema.Error> errors = full.validate(input);
        if (errors.isEmpty()) {
            return null;
        }
        StringBuilder detail = new StringBuilder();
        int shown = 0;
        for (com.networknt.schema.Error e : errors) {
            if (shown == 3) {
                detail.append("; and ").append(errors.size() - 3).append(" more");
                break;
            }
            if (shown++ > 0) {
                detail.append("; ");
            }
            detail.append(dev.toolbus.internal.JsonSchemas.describe(e, full.getSchemaNode()));
        }
        return new Violation(Violation.Kind.SCHEMA, "", detail.toString(), null);
    }

    private static boolean contains(List<JsonNode> allowed, JsonNode v) {
        for (JsonNode a : allowed) {
            if (a.equals(v) || (a.isNumber() && v.isNumber() && a.decimalValue().compareTo(v.decimalValue()) == 0)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matchesAny(JsonNode v, String[] types) {
        for (String t : types) {
            if (matches(v, t)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(JsonNode v, String type) {
        return switch (type) {
            case "string" -> v.isTextual();
            case "integer" -> v.isIntegralNumber() || (v.isNumber() && isWhole(v));
            case "number" -> v.isNumber();
            case "boolean" -> v.isBoolean();
            case "array" -> v.isArray();
            case "object" -> v.isObject();
            case "null" -> v.isNull();
            default -> true;
        };
    }

    private static boolean isWhole(JsonNode v) {
        try {
            return v.decimalValue().stripTrailingZeros().scale() <= 0;
        } catch (ArithmeticException | NumberFormatException e) {
            return false;
        }
    }

    static String jsonType(JsonNode v) {
        if (v.isTextual()) {
            return "string";
        }
        if (v.isIntegralNumber()) {
            return "integer";
        }
        if (v.isNumber()) {
            return "number";
        }
        if (v.isBoolean()) {
            return "boolean";
        }
        if (v.isArray()) {
            return "array";
        }
        if (v.isObject()) {
            return "object";
        }
        return "null";
    }

    /**
     * A failed check.
     *
     * @param kind what failed
     * @param argument the argument
     * @param expected expected type(s) or allowed values
     * @param actual the actual JSON type, for {@link Kind#TYPE}
     */
    record Violation(Kind kind, String argument, String expected, String actual) {
        enum Kind { MISSING, TYPE, ENUM, SCHEMA }

        /** The message the model reads, in the catalog's locale. */
        String message(Texts texts, String toolName) {
            return switch (kind) {
                case MISSING -> texts.missingArgument(toolName, argument);
                case TYPE -> texts.wrongArgumentType(toolName, argument, expected, actual);
                case SCHEMA -> texts.schemaViolation(toolName, expected);
                case ENUM -> texts.notOneOf(toolName, argument, expected);
            };
        }
    }
}
