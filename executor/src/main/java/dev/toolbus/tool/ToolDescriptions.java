package dev.toolbus.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The description texts of a tool, as the MaiBot SDK renders them. {@link ToolDefinition} uses these;
 * they are public so that text can be rendered for parameters that do not form a valid definition
 * (for example an array parameter without items, which {@link ToolDefinition.Builder#build()} refuses).
 *
 * <p>The detailed description is the parameter block followed, after a blank line, by the given
 * detailed text:
 * <pre>
 * 参数说明：                                   Parameter details:
 * - query：string，必填。搜索关键词              - query: string, required. Search keywords
 * - limit：integer，可选。返回结果数 默认值：5。   - limit: integer, optional. Max results. Default: 5
 * </pre>
 * Types are the schema's {@code type} lower-cased ({@code string} when missing); an empty parameter
 * description reads {@code 无额外说明} / {@code No additional description}; enum values and defaults are
 * printed as Python's {@code str()} prints them ({@code False}, {@code [1, 2]}). See docs/tools.md.
 */
public final class ToolDescriptions {

    private ToolDescriptions() {
    }

    /**
     * The model-facing description rule: {@code briefDescription}, else {@code description}, else
     * {@code Tool {name}} / {@code 工具 {name}}; stripped after that choice; and when the stripped text is
     * empty (a whitespace-only description), the fallback again, as MaiBot's host does.
     *
     * @param name the tool name
     * @param briefDescription the brief description, may be {@code null}
     * @param description the description, may be {@code null}
     * @param locale the language of the fallback
     * @return the description, never empty
     */
    public static String description(String name, String briefDescription, String description,
                                     DescriptionLocale locale) {
        String fallback = Texts.of(locale).toolFallback(name);
        String chosen = briefDescription != null && !briefDescription.isEmpty() ? briefDescription
                : description != null && !description.isEmpty() ? description : fallback;
        String stripped = PythonText.strip(chosen);
        return stripped.isEmpty() ? fallback : stripped;
    }

    /**
     * The detailed description of structured parameters, without validating them: the parameter block,
     * then a blank line and the detailed text. Without parameters it is the stripped detailed text.
     *
     * @param parameters the parameters, in order
     * @param detailedText the extra detailed text, may be {@code null}
     * @param locale the language of the block
     */
    public static String detailedDescription(List<ToolParameter> parameters, String detailedText,
                                             DescriptionLocale locale) {
        return detailedDescription(ToolSchemas.sdk(parameters), detailedText, locale);
    }

    /**
     * The detailed description of an object schema ({@code properties}, {@code required}): the parameter
     * block, then a blank line and the detailed text. Properties that are not objects are skipped; a
     * schema without properties gives the stripped detailed text alone.
     *
     * @param parametersSchema the object schema, may be {@code null}
     * @param detailedText the extra detailed text, may be {@code null}
     * @param locale the language of the block
     */
    public static String detailedDescription(JsonNode parametersSchema, String detailedText,
                                             DescriptionLocale locale) {
        String fallback = PythonText.strip(detailedText);
        String block = parameterBlock(parametersSchema, Texts.of(locale));
        if (block.isEmpty()) {
            return fallback;
        }
        return PythonText.strip(fallback.isEmpty() ? block : block + "\n\n" + fallback);
    }

    /** The detailed description of a definition (legacy Actions get their own parts). */
    static String detailed(ToolDefinition def, DescriptionLocale locale) {
        if (def.legacyAction() != null) {
            return LegacyActions.detailedDescription(def.legacyAction(), def.rawDetailedDescription(), locale);
        }
        return detailedDescription(ToolSchemas.sdk(def, locale), def.rawDetailedDescription(), locale);
    }

    /** The parameter block (not yet stripped), or empty when the schema has no usable property. */
    static String parameterBlock(JsonNode schema, Texts texts) {
        if (schema == null || !schema.path("properties").isObject() || schema.path("properties").isEmpty()) {
            return "";
        }
        Set<String> required = new HashSet<>();
        for (JsonNode n : schema.path("required")) {
            String s = PythonText.strip(PythonText.str(n));
            if (!s.isEmpty()) {
                required.add(s);
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add(texts.parameterBlockHeader());
        for (Map.Entry<String, JsonNode> e : schema.path("properties").properties()) {
            JsonNode p = e.getValue();
            if (!p.isObject()) {
                continue;
            }
            String name = PythonText.strip(e.getKey());
            String description = PythonText.truthy(p.get("description"))
                    ? PythonText.strip(PythonText.str(p.get("description"))) : "";
            List<String> enumValues = new ArrayList<>();
            if (p.path("enum").isArray()) {
                p.path("enum").forEach(v -> enumValues.add(PythonText.str(v)));
            }
            lines.add(texts.parameterLine(name, typeName(p.get("type")), required.contains(name),
                    description.isEmpty() ? texts.noParameterDescription() : description, enumValues,
                    p.has("default") ? PythonText.str(p.get("default")) : null));
        }
        return lines.size() == 1 ? "" : String.join("\n", lines);
    }

    /** The SDK's type name: the schema type lower-cased, {@code string} when missing or empty. */
    static String typeName(JsonNode type) {
        String t = PythonText.truthy(type) ? PythonText.strip(PythonText.str(type)).toLowerCase(java.util.Locale.ROOT)
                : "";
        return t.isEmpty() ? "string" : t;
    }
}
