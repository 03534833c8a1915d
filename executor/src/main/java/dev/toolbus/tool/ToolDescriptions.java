package dev.toolbus.tool;

/** Renders descriptions and the parameter block (MaiBot SDK rules). Placeholder: refined with vectors. */
final class ToolDescriptions {

    private ToolDescriptions() {
    }

    static String description(ToolDefinition def, DescriptionLocale locale) {
        String d = firstNonEmpty(def.rawBriefDescription(), def.rawDescription()).strip();
        if (d.isEmpty()) {
            return (locale == DescriptionLocale.ZH ? "工具 " : "Tool ") + def.name();
        }
        return d;
    }

    static String detailed(ToolDefinition def, DescriptionLocale locale) {
        return def.rawDetailedDescription().strip();
    }

    private static String firstNonEmpty(String a, String b) {
        return a != null && !a.isEmpty() ? a : b == null ? "" : b;
    }
}
