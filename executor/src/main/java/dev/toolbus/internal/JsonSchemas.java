package dev.toolbus.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Tool input schemas through networknt json-schema-validator: JSON Schema 2020-12 (MCP's default)
 * unless the schema's {@code $schema} names draft-07, 2019-09, draft-06 or draft-04. Internal: used by
 * the registry (a schema that is itself invalid is refused) and by the executor's argument checks. Not
 * API: may change without notice.
 */
public final class JsonSchemas {

    /** Formats are checked (2020-12 makes them annotations by default); messages in English, whatever the JVM's locale. */
    private static final com.networknt.schema.SchemaRegistryConfig CONFIG = com.networknt.schema.SchemaRegistryConfig
            .builder().formatAssertionsEnabled(true).locale(java.util.Locale.ENGLISH).build();
    private static final SchemaRegistry R2020 = registryOf(SpecificationVersion.DRAFT_2020_12);
    private static final SchemaRegistry R2019 = registryOf(SpecificationVersion.DRAFT_2019_09);
    private static final SchemaRegistry R7 = registryOf(SpecificationVersion.DRAFT_7);
    private static final SchemaRegistry R6 = registryOf(SpecificationVersion.DRAFT_6);
    private static final SchemaRegistry R4 = registryOf(SpecificationVersion.DRAFT_4);

    private static SchemaRegistry registryOf(SpecificationVersion v) {
        return SchemaRegistry.withDefaultDialect(v, b -> b.schemaRegistryConfig(CONFIG));
    }

    /** Keywords the executor's fast path understands at the top level of a tool schema. */
    private static final Set<String> SIMPLE_TOP = Set.of("type", "properties", "required", "description", "title",
            "$schema", "$id", "examples", "$comment");
    /** Keywords the fast path understands in a property's schema. */
    private static final Set<String> SIMPLE_PROPERTY = Set.of("type", "description", "title", "enum", "default",
            "examples", "$comment");
    private static final Set<String> PRIMITIVE = Set.of("string", "integer", "number", "boolean", "null");

    private JsonSchemas() {
    }

    private static SpecificationVersion version(JsonNode schema) {
        String s = schema.path("$schema").asText("");
        if (s.contains("draft-07")) {
            return SpecificationVersion.DRAFT_7;
        }
        if (s.contains("2019-09")) {
            return SpecificationVersion.DRAFT_2019_09;
        }
        if (s.contains("draft-06")) {
            return SpecificationVersion.DRAFT_6;
        }
        if (s.contains("draft-04")) {
            return SpecificationVersion.DRAFT_4;
        }
        return SpecificationVersion.DRAFT_2020_12;
    }

    private static SchemaRegistry registry(SpecificationVersion v) {
        return switch (v) {
            case DRAFT_7 -> R7;
            case DRAFT_2019_09 -> R2019;
            case DRAFT_6 -> R6;
            case DRAFT_4 -> R4;
            default -> R2020;
        };
    }

    /** What is wrong with a schema by its own meta-schema (empty when it is a valid schema). */
    public static List<String> problems(JsonNode schema) {
        SpecificationVersion v = version(schema);
        Schema meta = registry(v).getSchema(SchemaLocation.of(v.getDialectId()));
        List<String> out = new ArrayList<>();
        for (Error e : meta.validate(schema)) {
            out.add(describe(e));
        }
        if (out.isEmpty()) {
            try {
                compile(schema);
            } catch (RuntimeException e) {
                out.add(String.valueOf(e.getMessage()));
            }
        }
        return out;
    }

    /** The compiled schema (compile once per definition: it is the expensive part). */
    public static Schema compile(JsonNode schema) {
        return registry(version(schema)).getSchema(schema);
    }

    /**
     * Whether the executor's own top-level checks (required, primitive types, enums) decide exactly
     * what the full schema decides, so the library need not run.
     */
    public static boolean simple(JsonNode schema) {
        if (!schema.isObject() || !"object".equals(schema.path("type").asText(""))) {
            return false;
        }
        for (var it = schema.fieldNames(); it.hasNext(); ) {
            if (!SIMPLE_TOP.contains(it.next())) {
                return false;
            }
        }
        JsonNode props = schema.path("properties");
        if (!props.isMissingNode() && !props.isObject()) {
            return false;
        }
        for (var it = props.fields(); it.hasNext(); ) {
            JsonNode p = it.next().getValue();
            if (!p.isObject()) {
                return false;
            }
            for (var f = p.fieldNames(); f.hasNext(); ) {
                if (!SIMPLE_PROPERTY.contains(f.next())) {
                    return false;
                }
            }
            JsonNode t = p.get("type");
            if (t != null && !(t.isTextual() && PRIMITIVE.contains(t.textValue()))) {
                if (!t.isArray()) {
                    return false;
                }
                for (JsonNode x : t) {
                    if (!x.isTextual() || !PRIMITIVE.contains(x.textValue())) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    /** {@code /filters/site} → {@code filters.site}, {@code /tags/1} → {@code tags[1]}; {@code $.a} forms too. */
    static String readable(String location) {
        String p = location;
        if (p.startsWith("$")) {
            p = p.substring(1);
            return p.startsWith(".") ? p.substring(1) : p;
        }
        if (p.isEmpty() || p.equals("/")) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        for (String seg : p.substring(p.startsWith("/") ? 1 : 0).split("/", -1)) {
            String name = seg.replace("~1", "/").replace("~0", "~");
            if (!name.isEmpty() && name.chars().allMatch(Character::isDigit) && out.length() > 0) {
                out.append('[').append(name).append(']');
            } else {
                if (out.length() > 0) {
                    out.append('.');
                }
                out.append(name);
            }
        }
        return out.toString();
    }

    /** A message the model can act on: the argument's path and the rule, e.g. {@code limit: must be >= 1}. */
    public static String describe(Error e) {
        return describe(e, null);
    }

    /**
     * {@link #describe(Error)} for an error of validating against {@code root}, which tells a draft-04
     * exclusive bound ({@code "exclusiveMinimum": true} beside {@code minimum}) from an inclusive one.
     */
    public static String describe(Error e, JsonNode root) {
        String path = readable(e.getInstanceLocation() == null ? "" : e.getInstanceLocation().toString());
        String msg = bound(e, root);
        if (msg == null) {
            msg = e.getMessage() == null ? "is invalid" : e.getMessage();
        }
        return path.isEmpty() ? msg : path + ": " + msg;
    }

    /** Numeric bounds read as comparisons ({@code must be >= 1}), shorter than the library's sentence. */
    private static String bound(Error e, JsonNode root) {
        Object[] args = e.getArguments();
        if (e.getMessageKey() == null || args == null || args.length == 0 || args[0] == null) {
            return null;
        }
        String op = switch (e.getMessageKey()) {
            case "minimum" -> exclusiveBeside(e, root, "exclusiveMinimum") ? ">" : ">=";
            case "maximum" -> exclusiveBeside(e, root, "exclusiveMaximum") ? "<" : "<=";
            case "exclusiveMinimum" -> ">";
            case "exclusiveMaximum" -> "<";
            default -> null;
        };
        return op == null ? null : "must be " + op + " " + args[0];
    }

    /** Whether the schema holding the failed keyword says {@code <keyword>: true} (draft-04's exclusive bounds). */
    private static boolean exclusiveBeside(Error e, JsonNode root, String keyword) {
        if (root == null || e.getSchemaLocation() == null) {
            return false;
        }
        String loc = e.getSchemaLocation().toString();
        int hash = loc.indexOf('#');
        String pointer = hash < 0 ? "" : loc.substring(hash + 1);
        int slash = pointer.lastIndexOf('/');
        if (slash < 0) {
            return false;
        }
        try {
            return root.at(pointer.substring(0, slash)).path(keyword).asBoolean(false);
        } catch (IllegalArgumentException bad) {
            return false;
        }
    }
}
