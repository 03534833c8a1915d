package dev.toolbus.plugins.stdio;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.Visibility;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The per-tool policy attributes of an {@code activate} declaration, under camelCase or snake_case
 * keys: {@code optional}, {@code groups}, {@code requiredPermission}, {@code visibility}
 * ({@code visible | deferred | hidden}), {@code cacheable} (also {@code readOnly}) and
 * {@code maxResultChars} (a whole number >= 0; 0: never cut). A plugin tool is never cached unless it
 * declares itself cacheable.
 */
final class ToolDeclarations {

    private ToolDeclarations() {
    }

    /**
     * Copies the attributes of a declaration onto a builder.
     *
     * @throws IllegalArgumentException for a visibility that is not one of the three
     */
    static void apply(JsonNode t, ToolDefinition.Builder b) {
        b.optional(flag(t, "optional", "optional"));
        b.cacheable(flag(t, "cacheable", "cacheable") || flag(t, "readOnly", "read_only"));
        JsonNode groups = t.get("groups");
        if (groups != null && groups.isArray()) {
            List<String> gs = new ArrayList<>();
            groups.forEach(g -> {
                if (g.isTextual() && !g.textValue().isBlank()) {
                    gs.add(g.textValue());
                }
            });
            b.groups(gs);
        }
        JsonNode permission = first(t, "requiredPermission", "required_permission");
        if (permission != null && permission.isTextual()) {
            b.requiredPermission(permission.textValue());
        }
        JsonNode maxChars = first(t, "maxResultChars", "max_result_chars");
        if (maxChars != null && !maxChars.isNull()) {
            if (!maxChars.canConvertToInt() || !maxChars.isIntegralNumber() || maxChars.intValue() < 0) {
                throw new IllegalArgumentException("tool '" + t.path("name").asText()
                        + "': maxResultChars must be a whole number >= 0 but was " + maxChars);
            }
            b.maxResultChars(maxChars.intValue());
        }
        JsonNode visibility = t.get("visibility");
        if (visibility != null && visibility.isTextual()) {
            String v = visibility.textValue().strip().toUpperCase(Locale.ROOT);
            try {
                b.visibility(Visibility.valueOf(v));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("tool '" + t.path("name").asText()
                        + "': visibility must be visible, deferred or hidden but was '" + visibility.textValue() + "'");
            }
        }
    }

    private static boolean flag(JsonNode t, String camel, String snake) {
        JsonNode v = first(t, camel, snake);
        return v != null && v.asBoolean(false);
    }

    private static JsonNode first(JsonNode t, String camel, String snake) {
        JsonNode v = t.get(camel);
        return v != null && !v.isNull() ? v : t.get(snake);
    }
}
