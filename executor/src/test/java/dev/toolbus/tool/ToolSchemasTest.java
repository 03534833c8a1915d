package dev.toolbus.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.text.DescriptionLocale;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolSchemasTest {

    private static ObjectNode obj(String json) {
        return (ObjectNode) MaiBotVectors.parse(json);
    }

    private static String schema(ToolDefinition def) {
        return def.inputSchema(DescriptionLocale.ZH).toString();
    }

    @Test
    void rawSchema_keptVerbatim_requiredAddedAtTheEnd() {
        ToolDefinition def = ToolDefinition.builder("raw")
                .inputSchema(obj("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"list\",\"x-extra\":1}},"
                        + "\"additionalProperties\":false}"))
                .build();
        assertThat(schema(def)).isEqualTo("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"list\",\"x-extra\":1}},"
                + "\"additionalProperties\":false,\"required\":[]}");
    }

    @Test
    void rawDraft04Schema_getsNoEmptyRequired_whichItsMetaSchemaRefuses() {
        ObjectNode raw = (ObjectNode) dev.toolbus.protocol.Json.mapper().createObjectNode()
                .put("$schema", "http://json-schema.org/draft-04/schema#").put("type", "object");
        ToolDefinition def = ToolDefinition.builder("t").description("d").inputSchema(raw).build();
        assertThat(def.inputSchema().has("required")).isFalse();
        assertThat(dev.toolbus.internal.JsonSchemas.problems(def.inputSchema())).isEmpty();
        ObjectNode withEmpty = raw.deepCopy();
        withEmpty.putArray("required");
        assertThat(dev.toolbus.internal.JsonSchemas.problems(withEmpty)).isNotEmpty();
    }

    @Test
    void rawSchema_nonListRequired_replacedInPlace() {
        ToolDefinition def = ToolDefinition.builder("raw")
                .inputSchema(obj("{\"type\":\"object\",\"required\":\"a\",\"properties\":{}}"))
                .build();
        assertThat(schema(def)).isEqualTo("{\"type\":\"object\",\"required\":[],\"properties\":{}}");
    }

    @Test
    void rawSchema_keepsItsRequiredList() {
        ToolDefinition def = ToolDefinition.builder("raw")
                .inputSchema(obj("{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]}"))
                .build();
        assertThat(schema(def)).isEqualTo("{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]}");
        assertThat(def.detailedDescription(DescriptionLocale.ZH)).isEqualTo("参数说明：\n- q：string，必填。无额外说明");
    }

    @Test
    void rawSchema_thatIsNotAnObject_isRefused() {
        ToolDefinition.Builder b = ToolDefinition.builder("raw").inputSchema(obj("{\"type\":\"array\"}"));
        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"object\"");
    }

    @Test
    void dict_withPropertiesButNoType_isRefusedLikeTheHost() {
        Map<String, Object> dict = Map.of("properties", Map.of("q", Map.of("type", "string")));
        assertThatThrownBy(() -> ToolDefinition.builder("d").parameters(dict).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tool 'd'");
    }

    @Test
    void dict_noTypeNormalisation() {
        Map<String, Object> dict = new LinkedHashMap<>();
        dict.put("ratio", Map.of("type", "float"));
        dict.put("tags", Map.of("type", "array"));
        ToolDefinition def = ToolDefinition.builder("d").parameters(dict).build();
        assertThat(schema(def)).isEqualTo("{\"type\":\"object\",\"properties\":{\"ratio\":{\"type\":\"float\"},"
                + "\"tags\":{\"type\":\"array\"}},\"required\":[]}");
        assertThat(def.detailedDescription(DescriptionLocale.ZH))
                .isEqualTo("参数说明：\n- ratio：float，可选。无额外说明\n- tags：array，可选。无额外说明");
    }

    @Test
    void dict_propertyNamedRequired_isAProperty() {
        Map<String, Object> dict = Map.of("required", Map.of("type", "boolean", "required", 1));
        ToolDefinition def = ToolDefinition.builder("d").parameters(dict).build();
        assertThat(schema(def)).isEqualTo("{\"type\":\"object\",\"properties\":{\"required\":{\"type\":\"boolean\"}},"
                + "\"required\":[\"required\"]}");
    }

    @Test
    void dict_empty_orOnlyNonDictEntries() {
        assertThat(schema(ToolDefinition.builder("d").parameters(Map.of()).build()))
                .isEqualTo("{\"type\":\"object\",\"properties\":{},\"required\":[]}");
        ToolDefinition onlyBad = ToolDefinition.builder("d").parameters(Map.of("bad", "x")).build();
        assertThat(schema(onlyBad)).isEqualTo("{\"type\":\"object\",\"properties\":{},\"required\":[]}");
        assertThat(onlyBad.detailedDescription(DescriptionLocale.ZH)).isEmpty();
    }

    @Test
    void dict_missingTypeInTheBlock_readsString_andNullDefaultReadsNone() {
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("description", "  kw  ");
        q.put("default", null);
        ToolDefinition def = ToolDefinition.builder("d").parameters(Map.of("q", q)).build();
        assertThat(def.detailedDescription(DescriptionLocale.ZH)).isEqualTo("参数说明：\n- q：string，可选。kw 默认值：None。");
    }

    @Test
    void structured_fieldOrderAndPresence() {
        ToolDefinition def = ToolDefinition.builder("s")
                .parameter(ToolParameter.builder("a", ToolParamType.ARRAY).required(false).defaultValue(List.of(1, 2))
                        .itemsSchema(Map.of("type", "integer")).enumValues(List.of()).build())
                .parameter(ToolParameter.builder("o", ToolParamType.OBJECT).description("obj")
                        .additionalProperties(Map.of("type", "string")).build())
                .build();
        assertThat(schema(def)).isEqualTo("{\"type\":\"object\",\"properties\":{"
                + "\"a\":{\"type\":\"array\",\"description\":\"\",\"default\":[1,2],\"items\":{\"type\":\"integer\"}},"
                + "\"o\":{\"type\":\"object\",\"description\":\"obj\",\"properties\":{},\"required\":[],"
                + "\"additionalProperties\":{\"type\":\"string\"}}},\"required\":[\"o\"]}");
        assertThat(ToolSchemas.sdk(def, DescriptionLocale.ZH).toString()).isEqualTo("{\"type\":\"object\",\"properties\":{"
                + "\"a\":{\"type\":\"array\",\"description\":\"\",\"default\":[1,2],\"items\":{\"type\":\"integer\"}},"
                + "\"o\":{\"type\":\"object\",\"description\":\"obj\",\"properties\":{},"
                + "\"additionalProperties\":{\"type\":\"string\"}}},\"required\":[\"o\"]}");
        assertThat(def.detailedDescription(DescriptionLocale.ZH))
                .isEqualTo("参数说明：\n- a：array，可选。无额外说明 默认值：[1, 2]。\n- o：object，必填。obj");
    }

    @Test
    void itemsSchema_keepsKeyOrder() {
        Map<String, Object> items = new LinkedHashMap<>();
        items.put("type", "object");
        items.put("properties", Map.of("x", Map.of("type", "string")));
        items.put("required", List.of("x"));
        ToolParameter p = ToolParameter.builder("a", ToolParamType.ARRAY).itemsSchema(items).build();
        assertThat(List.copyOf(p.itemsSchema().keySet())).containsExactly("type", "properties", "required");
    }

    @Test
    void inputSchema_withoutLocale_isEnglish() {
        ToolDefinition greet = VectorTools.greet();
        assertThat(greet.inputSchema()).isSameAs(greet.inputSchema(DescriptionLocale.EN));
        assertThat(greet.inputSchema().toString()).isEqualTo("{\"type\":\"object\",\"properties\":{"
                + "\"target\":{\"type\":\"string\",\"description\":\"打招呼对象\"},"
                + "\"style\":{\"type\":\"string\",\"description\":\"Legacy Action parameter\"}},\"required\":[]}");
        assertThat(VectorTools.legacy2().inputSchema().toString())
                .isEqualTo("{\"type\":\"object\",\"properties\":{},\"required\":[]}");
    }

    @Test
    void legacyAction_refusesOtherParameters() {
        ToolDefinition.Builder b = ToolDefinition.fromLegacyAction("a", "d",
                        new ToolDefinition.LegacyAction(null, null, 1.0, null, Map.of("x", "y"), null, null, false, null))
                .inputSchema(obj("{\"type\":\"object\"}"));
        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("legacy Action");
    }

    @Test
    void legacyAction_metadataWinsOverUserKeys_andKeepsTheirOrder() {
        ToolDefinition def = ToolDefinition.fromLegacyAction(" a ".strip(), "",
                        new ToolDefinition.LegacyAction("Random".toLowerCase(), List.of(" k ", " "), 0.5, "focus",
                                Map.of(" ", "dropped"), null, null, false, "  "))
                .metadata("activation_type", "user")
                .metadata("core_tool", true)
                .build();
        assertThat(def.metadata()).containsEntry("activation_type", "random").containsEntry("core_tool", true)
                .containsEntry("activation_probability", 0.5).containsEntry("chat_mode", "focus");
        assertThat(List.copyOf(def.metadata().keySet())).startsWith("activation_type", "core_tool", "legacy_action");
        assertThat(def.detailedDescription(DescriptionLocale.ZH)).isEqualTo("兼容旧 Action 激活方式：random。\n激活关键词：k。");
        assertThat(def.inputSchema(DescriptionLocale.ZH).toString())
                .isEqualTo("{\"type\":\"object\",\"properties\":{},\"required\":[]}");
    }

    @Test
    void legacyAction_extraDetailedTextIsTheLastPart() {
        ToolDefinition def = ToolDefinition.fromLegacyAction("a", "d",
                        new ToolDefinition.LegacyAction(null, null, 1.0, null, null, null, null, false, null))
                .detailedDescription(" more ")
                .build();
        assertThat(def.detailedDescription(DescriptionLocale.ZH)).isEqualTo("兼容旧 Action 激活方式：always。\n\nmore");
    }

    @Test
    void toBuilder_rebuildsTheSameDefinition() {
        ToolDefinition greet = VectorTools.greet();
        ToolDefinition again = greet.toBuilder().build();
        assertThat(again.detailedDescription(DescriptionLocale.ZH)).isEqualTo(greet.detailedDescription(DescriptionLocale.ZH));
        assertThat(again.metadata()).isEqualTo(greet.metadata());
        assertThat(again.inputSchema()).isEqualTo(greet.inputSchema());
    }
}
