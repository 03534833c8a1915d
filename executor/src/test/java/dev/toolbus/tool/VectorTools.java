package dev.toolbus.tool;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The Java declarations of the tools behind the MaiBot vectors. */
public final class VectorTools {

    private VectorTools() {
    }

    /** {@code Tool("web_search", description=…, parameters=[query, limit])} (handler {@code search}). */
    public static ToolDefinition webSearch() {
        return ToolDefinition.builder("web_search")
                .description("查询互联网信息并返回结果摘要")
                .parameter(ToolParameter.of("query", ToolParamType.STRING, "搜索关键词"))
                .parameter(ToolParameter.builder("limit", ToolParamType.INTEGER).description("返回结果数")
                        .required(false).defaultValue(5).build())
                .timeout(Duration.ofMillis(5000))
                .visibility(Visibility.VISIBLE)
                .build();
    }

    public static ToolDefinition t2() {
        return ToolDefinition.builder("t2").briefDescription("brief").description("desc")
                .detailedDescription("extra notes").build();
    }

    public static ToolDefinition t3() {
        return ToolDefinition.builder("t3").build();
    }

    /** The dict-style parameters of t4 and legacy_dict, with a non-dict entry. */
    public static Map<String, Object> legacyDict() {
        Map<String, Object> query = new LinkedHashMap<>();
        query.put("type", "string");
        query.put("description", "kw");
        query.put("required", true);
        Map<String, Object> dict = new LinkedHashMap<>();
        dict.put("query", query);
        dict.put("n", Map.of("type", "integer"));
        dict.put("bad", "x");
        return dict;
    }

    public static ToolDefinition t4() {
        return ToolDefinition.builder("t4").parameters(legacyDict()).detailedDescription("Use wisely").build();
    }

    /** The parameters of t5; {@code tags2} is an array without items, which a definition refuses. */
    public static List<ToolParameter> t5Parameters() {
        return List.of(
                ToolParameter.builder("ratio", ToolParamType.FLOAT).description("r").required(false).build(),
                ToolParameter.builder("mode", ToolParamType.STRING).enumValues(List.of("a", "b")).defaultValue("a")
                        .build(),
                ToolParameter.builder("tags", ToolParamType.ARRAY).description("tags")
                        .itemsSchema(Map.of("type", "string")).build(),
                ToolParameter.builder("tags2", ToolParamType.ARRAY).description("no items").build(),
                ToolParameter.builder("opts", ToolParamType.OBJECT).description("o")
                        .properties(Map.of("x", Map.of("type", "integer"))).requiredProperties(List.of("x"))
                        .additionalProperties(false).build(),
                ToolParameter.builder("opts2", ToolParamType.OBJECT).description("o2").build(),
                ToolParameter.builder("flag", ToolParamType.BOOLEAN).description("f").defaultValue(false).build());
    }

    public static ToolDefinition t6() {
        Map<String, Object> dict = new LinkedHashMap<>();
        dict.put("type", "object");
        dict.put("properties", Map.of("q", Map.of("type", "string")));
        dict.put("required", List.of("q"));
        return ToolDefinition.builder("t6").parameters(dict).build();
    }

    public static ToolDefinition t7() {
        return ToolDefinition.builder("t7").description("  ").build();
    }

    /** The legacy Action {@code greet}, with the extra metadata {@code foo=bar}. */
    public static ToolDefinition greet() {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("target", "打招呼对象");
        params.put("style", "");
        return ToolDefinition.fromLegacyAction("greet", "向用户打招呼", new ToolDefinition.LegacyAction("keyword",
                        List.of("你好", "hello"), 1.0, "normal", params, List.of("需要时使用", " "),
                        List.of("text", "emoji"), true, "打招呼"))
                .metadata("foo", "bar")
                .build();
    }

    public static ToolDefinition legacy2() {
        return ToolDefinition.fromLegacyAction("legacy2", "",
                new ToolDefinition.LegacyAction(null, null, 1.0, null, null, null, null, false, null)).build();
    }

    /** The {@code typed} tool of the host vectors (t5 without tags2, with mode described). */
    public static ToolDefinition typed() {
        ToolDefinition.Builder b = ToolDefinition.builder("typed");
        for (ToolParameter p : t5Parameters()) {
            if (p.name().equals("tags2") || p.name().equals("flag")) {
                continue;
            }
            b.parameter(p.name().equals("mode") ? ToolParameter.builder("mode", ToolParamType.STRING)
                    .description("m").enumValues(List.of("a", "b")).defaultValue("a").build() : p);
        }
        return b.build();
    }

    public static ToolDefinition noParams() {
        return ToolDefinition.builder("noparams").description("无参工具").build();
    }

    public static ToolDefinition legacyDictTool() {
        return ToolDefinition.builder("legacy_dict").parameters(legacyDict()).build();
    }

    public static ToolDefinition ws() {
        return ToolDefinition.builder("ws").description("  ").build();
    }

    /** The builder of {@code arr_no_items}: an array parameter without items. */
    public static ToolDefinition.Builder arrNoItems() {
        return ToolDefinition.builder("arr_no_items")
                .parameter(ToolParameter.builder("tags", ToolParamType.ARRAY).description("tags").build());
    }
}
