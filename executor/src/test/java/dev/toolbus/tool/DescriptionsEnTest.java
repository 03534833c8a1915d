package dev.toolbus.tool;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.text.DescriptionLocale;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The English texts: the seed's lines, and the rules docs/tools.md states for what the seed does not show. */
class DescriptionsEnTest {

    private static ToolDefinition seedSearchWeb() {
        return ToolDefinition.builder("search_web")
                .briefDescription("Search the internet for information")
                .detailedDescription("Use a search engine to find related information. "
                        + "Returns a list of results that best match the keywords.")
                .parameter(ToolParameter.of("query", ToolParamType.STRING, "Search keywords"))
                .parameter(ToolParameter.builder("limit", ToolParamType.INTEGER)
                        .description("Maximum number of results to return").required(false).defaultValue(5).build())
                .build();
    }

    @Test
    void seed_parameterDetails_byteForByte() {
        String detailed = seedSearchWeb().detailedDescription(DescriptionLocale.EN);
        assertThat(detailed).startsWith("Parameter details:\n"
                + "- query: string, required. Search keywords\n"
                + "- limit: integer, optional. Maximum number of results to return. Default: 5\n");
        assertThat(detailed.lines()).contains("- limit: integer, optional. Maximum number of results to return. Default: 5");
    }

    @Test
    void seed_detailedText_followsTheBlockAfterABlankLine() {
        assertThat(seedSearchWeb().detailedDescription(DescriptionLocale.EN)).isEqualTo("Parameter details:\n"
                + "- query: string, required. Search keywords\n"
                + "- limit: integer, optional. Maximum number of results to return. Default: 5\n"
                + "\n"
                + "Use a search engine to find related information. Returns a list of results that best match the keywords.");
    }

    @Test
    void seed_getWeather_blockOnly() {
        ToolDefinition def = ToolDefinition.builder("get_weather")
                .briefDescription("Get weather information for a specified city")
                .parameter(ToolParameter.of("city", ToolParamType.STRING, "City name"))
                .build();
        assertThat(def.description(DescriptionLocale.EN)).isEqualTo("Get weather information for a specified city");
        assertThat(def.detailedDescription(DescriptionLocale.EN)).isEqualTo("Parameter details:\n- city: string, required. City name");
    }

    @Test
    void description_priority_briefThenDescriptionThenFallback() {
        assertThat(ToolDescriptions.description("x", "b", "d", DescriptionLocale.EN)).isEqualTo("b");
        assertThat(ToolDescriptions.description("x", "", "d", DescriptionLocale.EN)).isEqualTo("d");
        assertThat(ToolDescriptions.description("x", null, null, DescriptionLocale.EN)).isEqualTo("Tool x");
        assertThat(ToolDescriptions.description("x", "", "", DescriptionLocale.ZH)).isEqualTo("工具 x");
    }

    @Test
    void description_strippedAfterTheChoice_andNeverEmpty() {
        assertThat(ToolDescriptions.description("x", "  b  ", "d", DescriptionLocale.EN)).isEqualTo("b");
        // a whitespace-only brief wins the choice, strips to nothing, and the host falls back
        assertThat(ToolDescriptions.description("x", "   ", "d", DescriptionLocale.EN)).isEqualTo("Tool x");
        assertThat(ToolDescriptions.description("ws", "", "\u00a0\n", DescriptionLocale.ZH)).isEqualTo("工具 ws");
    }

    @Test
    void enumAndDefault_joinedWithFullStops() {
        List<ToolParameter> params = List.of(
                ToolParameter.builder("mode", ToolParamType.STRING).enumValues(List.of("a", "b")).defaultValue("a").build(),
                ToolParameter.builder("flag", ToolParamType.BOOLEAN).description("f").defaultValue(false).build(),
                ToolParameter.builder("ratio", ToolParamType.FLOAT).description("r").required(false).build());
        assertThat(ToolDescriptions.detailedDescription(params, null, DescriptionLocale.EN)).isEqualTo(
                "Parameter details:\n"
                        + "- mode: string, required. No additional description. Allowed values: a, b. Default: a\n"
                        + "- flag: boolean, required. f. Default: False\n"
                        + "- ratio: number, optional. r");
    }

    @Test
    void descriptionEndingInPunctuation_getsNoSecondStop() {
        List<ToolParameter> params = List.of(
                ToolParameter.builder("q", ToolParamType.STRING).description("Search keywords.")
                        .enumValues(List.of("x.")).defaultValue("x.").build(),
                ToolParameter.builder("n", ToolParamType.INTEGER).description("How many?").defaultValue(3).build());
        assertThat(ToolDescriptions.detailedDescription(params, "", DescriptionLocale.EN)).isEqualTo(
                "Parameter details:\n"
                        + "- q: string, required. Search keywords. Allowed values: x. Default: x.\n"
                        + "- n: integer, required. How many? Default: 3");
    }

    @Test
    void dictParameters_en() {
        ToolDefinition def = ToolDefinition.builder("t4").parameters(VectorTools.legacyDict())
                .detailedDescription("Use wisely").build();
        assertThat(def.detailedDescription(DescriptionLocale.EN)).isEqualTo("Parameter details:\n"
                + "- query: string, required. kw\n"
                + "- n: integer, optional. No additional description\n"
                + "\n"
                + "Use wisely");
    }

    @Test
    void legacyAction_en_mirrorsTheZhParts() {
        assertThat(VectorTools.greet().detailedDescription(DescriptionLocale.EN)).isEqualTo("Parameter details:\n"
                + "- target: string, optional. 打招呼对象\n"
                + "- style: string, optional. Legacy Action parameter\n"
                + "\n"
                + "Usage notes:\n"
                + "- 需要时使用\n"
                + "\n"
                + "Message types: text, emoji.\n"
                + "\n"
                + "Legacy Action activation: keyword.\n"
                + "Activation keywords: 你好, hello.\n"
                + "Original Action prompt: 打招呼.");
        assertThat(VectorTools.legacy2().detailedDescription(DescriptionLocale.EN))
                .isEqualTo("Legacy Action activation: always.");
        assertThat(VectorTools.legacy2().description(DescriptionLocale.EN)).isEqualTo("Tool legacy2");
    }

    @Test
    void noParameters_detailedIsTheStrippedText() {
        ToolDefinition def = ToolDefinition.builder("t").detailedDescription("  notes \n").build();
        assertThat(def.detailedDescription(DescriptionLocale.EN)).isEqualTo("notes");
        assertThat(def.detailedDescription(DescriptionLocale.ZH)).isEqualTo("notes");
    }

    @Test
    void objectDefault_isPythonStyled() {
        List<ToolParameter> params = List.of(ToolParameter.builder("o", ToolParamType.OBJECT)
                .defaultValue(Map.of("k", List.of(1, 2.5, true))).required(false).build());
        assertThat(ToolDescriptions.detailedDescription(params, "", DescriptionLocale.ZH))
                .isEqualTo("参数说明：\n- o：object，可选。无额外说明 默认值：{'k': [1, 2.5, True]}。");
    }
}
