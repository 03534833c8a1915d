package dev.toolbus.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every component of {@code sdk_vectors.out}, checked in {@link DescriptionLocale#ZH}. */
class SdkVectorsTest {

    private static final Map<String, JsonNode> COMPONENTS = MaiBotVectors.sdkComponents();
    private static final Map<String, MaiBotVectors.SchemaDump> DUMPS = MaiBotVectors.sdkSchemaDumps();

    static Stream<Arguments> definitions() {
        return Stream.of(
                Arguments.of("web_search", "search", (Supplier<ToolDefinition>) VectorTools::webSearch),
                Arguments.of("t2", "t2", (Supplier<ToolDefinition>) VectorTools::t2),
                Arguments.of("t3", "t3", (Supplier<ToolDefinition>) VectorTools::t3),
                Arguments.of("t4", "t4", (Supplier<ToolDefinition>) VectorTools::t4),
                Arguments.of("t6", "t6", (Supplier<ToolDefinition>) VectorTools::t6),
                Arguments.of("t7", "t7", (Supplier<ToolDefinition>) VectorTools::t7),
                Arguments.of("greet", "greet", (Supplier<ToolDefinition>) VectorTools::greet),
                Arguments.of("legacy2", "legacy2", (Supplier<ToolDefinition>) VectorTools::legacy2));
    }

    @Test
    void vectorFile_hasTheExpectedComponents() {
        assertThat(COMPONENTS).containsOnlyKeys("greet", "legacy2", "t2", "t3", "t4", "t5", "t6", "t7", "web_search");
        assertThat(DUMPS).containsOnlyKeys("search", "t2", "t3", "t4", "t5", "t6", "t7", "greet", "legacy2");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("definitions")
    void component_descriptions(String component, String dump, Supplier<ToolDefinition> declared) {
        ToolDefinition def = declared.get();
        JsonNode meta = COMPONENTS.get(component).get("metadata");
        String sdkDescription = meta.get("description").textValue();
        // The SDK sends "" for a whitespace-only description; the host then falls back to 工具 {name}.
        String expected = sdkDescription.isEmpty() ? "工具 " + def.name() : sdkDescription;
        assertThat(def.description(DescriptionLocale.ZH)).isEqualTo(expected);
        assertThat(meta.get("brief_description").textValue()).isEqualTo(sdkDescription);
        assertThat(def.detailedDescription(DescriptionLocale.ZH))
                .isEqualTo(meta.get("detailed_description").textValue());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("definitions")
    void getParametersSchema(String component, String dump, Supplier<ToolDefinition> declared) {
        ToolDefinition def = declared.get();
        ObjectNode sdk = ToolSchemas.sdk(def, DescriptionLocale.ZH);
        assertThat(MaiBotVectors.compact(sdk)).isEqualTo(MaiBotVectors.compact(DUMPS.get(dump).schema()));
        String brief = DUMPS.get(dump).brief();
        assertThat(def.description(DescriptionLocale.ZH)).isEqualTo(brief);
    }

    /**
     * The SDK's {@code get_detailed_description()} feeds the finished detailed description back in as
     * the fallback, so the dump holds the parameter block twice. We keep the single block of the
     * component dumps; this test pins down that the dump is exactly block + blank line + ours.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("definitions")
    void getDetailedDescription_isTheSdkDoubledBlock(String component, String dump, Supplier<ToolDefinition> declared) {
        ToolDefinition def = declared.get();
        String ours = def.detailedDescription(DescriptionLocale.ZH);
        String block = PythonText.strip(ToolDescriptions.parameterBlock(ToolSchemas.sdk(def, DescriptionLocale.ZH),
                Texts.of(DescriptionLocale.ZH)));
        String doubled = block.isEmpty() ? ours : PythonText.strip(block + "\n\n" + ours);
        assertThat(DUMPS.get(dump).detailed()).isEqualTo(doubled);
    }

    @Test
    void t5_textRenderer_acceptsAnArrayWithoutItems() {
        JsonNode meta = COMPONENTS.get("t5").get("metadata");
        assertThat(ToolDescriptions.detailedDescription(VectorTools.t5Parameters(), "", DescriptionLocale.ZH))
                .isEqualTo(meta.get("detailed_description").textValue());
        assertThat(ToolDescriptions.description("t5", "", "", DescriptionLocale.ZH))
                .isEqualTo(meta.get("description").textValue());
        assertThat(MaiBotVectors.compact(ToolSchemas.sdk(VectorTools.t5Parameters())))
                .isEqualTo(MaiBotVectors.compact(DUMPS.get("t5").schema()));
    }

    @Test
    void t5_definition_refusesTheArrayWithoutItems() {
        ToolDefinition.Builder b = ToolDefinition.builder("t5").parameters(VectorTools.t5Parameters());
        assertThatThrownBy(b::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'tags2'")
                .hasMessageContaining("items");
    }

    @Test
    void greet_metadata_matchesTheSdk() {
        JsonNode expected = COMPONENTS.get("greet").get("metadata").get("metadata");
        JsonNode ours = dev.toolbus.protocol.Json.mapper().valueToTree(VectorTools.greet().metadata());
        assertThat(MaiBotVectors.compact(ours)).isEqualTo(MaiBotVectors.compact(expected));
    }

    @Test
    void legacy2_metadata_matchesTheSdk() {
        JsonNode expected = COMPONENTS.get("legacy2").get("metadata").get("metadata");
        JsonNode ours = dev.toolbus.protocol.Json.mapper().valueToTree(VectorTools.legacy2().metadata());
        assertThat(MaiBotVectors.compact(ours)).isEqualTo(MaiBotVectors.compact(expected));
    }

    @Test
    void greet_parametersRaw_isTheLegacySchema() {
        JsonNode raw = COMPONENTS.get("greet").get("metadata").get("parameters_raw");
        assertThat(MaiBotVectors.compact(ToolSchemas.sdk(VectorTools.greet(), DescriptionLocale.ZH)))
                .isEqualTo(MaiBotVectors.compact(raw));
        assertThat(VectorTools.greet().isLegacyAction()).isTrue();
    }
}
