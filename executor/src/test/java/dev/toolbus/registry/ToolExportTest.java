package dev.toolbus.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.MaiBotVectors;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.VectorTools;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ToolExportTest {

    private static final Map<String, String> VECTORS = MaiBotVectors.llmSchemas();

    static Stream<Arguments> tools() {
        return Stream.of(
                Arguments.of("web_search", (Supplier<ToolDefinition>) VectorTools::webSearch),
                Arguments.of("typed", (Supplier<ToolDefinition>) VectorTools::typed),
                Arguments.of("noparams", (Supplier<ToolDefinition>) VectorTools::noParams),
                Arguments.of("legacy_dict", (Supplier<ToolDefinition>) VectorTools::legacyDictTool),
                Arguments.of("ws", (Supplier<ToolDefinition>) VectorTools::ws));
    }

    @Test
    void vectorFile_hasTheExpectedTools() {
        assertThat(VECTORS).containsOnlyKeys("arr_no_items", "legacy_dict", "noparams", "typed", "web_search", "ws");
    }

    /** Compared as compact JSON of the parsed trees, so values and field order must both match. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("tools")
    void openAi_zh_matchesTheHost(String name, Supplier<ToolDefinition> declared) {
        ObjectNode ours = ToolExport.openAi(declared.get(), DescriptionLocale.ZH);
        JsonNode host = MaiBotVectors.parse(VECTORS.get(name));
        assertThat(MaiBotVectors.compact(ours)).isEqualTo(MaiBotVectors.compact(host));
    }

    @Test
    void arrNoItems_isRefusedLikeTheHost() {
        assertThat(VECTORS.get("arr_no_items")).contains("数组参数必须提供 items_schema");
        assertThatThrownBy(() -> VectorTools.arrNoItems().build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("arr_no_items")
                .hasMessageContaining("'tags'")
                .hasMessageContaining("数组参数必须提供 items_schema");
    }

    @Test
    void anthropic_hasNameDescriptionAndInputSchema() {
        ObjectNode n = ToolExport.anthropic(VectorTools.webSearch(), DescriptionLocale.EN);
        assertThat(n.fieldNames()).toIterable().containsExactly("name", "description", "input_schema");
        assertThat(n.get("input_schema")).isEqualTo(VectorTools.webSearch().inputSchema());
    }

    @Test
    void mcp_hasNameDescriptionAndInputSchema() {
        ObjectNode n = ToolExport.mcp(VectorTools.ws(), DescriptionLocale.EN);
        assertThat(n.toString()).isEqualTo(
                "{\"name\":\"ws\",\"description\":\"Tool ws\",\"inputSchema\":"
                        + "{\"type\":\"object\",\"properties\":{},\"required\":[]}}");
    }

    @Test
    void export_dispatchesOnFormat() {
        ToolDefinition def = VectorTools.noParams();
        for (ListToolsEvent.Format f : ListToolsEvent.Format.values()) {
            ObjectNode n = ToolExport.export(def, f, DescriptionLocale.ZH);
            assertThat(n.toString()).contains("无参工具");
        }
        assertThat(ToolExport.export(def, ListToolsEvent.Format.OPENAI, DescriptionLocale.ZH))
                .isEqualTo(ToolExport.openAi(def, DescriptionLocale.ZH));
    }

    @Test
    void legacyActionSchema_followsTheLocale() {
        ToolDefinition greet = VectorTools.greet();
        assertThat(ToolExport.openAi(greet, DescriptionLocale.ZH).toString()).contains("兼容旧 Action 参数")
                .contains("\"required\":[]");
        assertThat(ToolExport.openAi(greet, DescriptionLocale.EN).toString()).contains("Legacy Action parameter");
    }

    @Test
    void export_isACopy() {
        ToolDefinition def = VectorTools.webSearch();
        ObjectNode n = ToolExport.openAi(def, DescriptionLocale.EN);
        ((ObjectNode) n.get("function").get("parameters")).put("type", "changed");
        assertThat(def.inputSchema(DescriptionLocale.EN).get("type").textValue()).isEqualTo("object");
    }
}
