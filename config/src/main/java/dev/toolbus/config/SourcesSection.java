package dev.toolbus.config;

import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads the {@code sources} section: the built-in, custom (stdio plugin) and MCP sources and their
 * {@code disabledTools}. */
final class SourcesSection {

    private SourcesSection() {
    }

    static SourcesConfig read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> s = in.section(root, "sources", "", Set.of("builtin", "custom", "mcp"));
        Map<String, Object> b = in.section(s, "builtin", "sources", Set.of("enabled", "disabledTools"));
        Map<String, Object> c = in.section(s, "custom", "sources",
                Set.of("enabled", "pluginDirs", "path", "autoReload", "disabledTools"));
        Map<String, Object> m = in.section(s, "mcp", "sources",
                Set.of("enabled", "serversFile", "servers", "disabledServers", "disabledTools"));
        SourcesConfig.Builtin builtin = new SourcesConfig.Builtin(in.bool(b, "enabled", "sources.builtin", true),
                in.strings(b, "disabledTools", "sources.builtin", List.of()));
        List<String> dirs = SourcesConfig.Custom.DEFAULTS.pluginDirs();
        if (c.containsKey("pluginDirs")) {
            dirs = in.strings(c, "pluginDirs", "sources.custom", dirs);
            if (c.containsKey("path")) {
                in.warn("sources.custom.path", "is ignored because pluginDirs is set");
            }
        } else if (c.containsKey("path")) {
            String p = in.string(c, "path", "sources.custom", null);
            dirs = p == null || p.isBlank() ? dirs : List.of(p);
        }
        SourcesConfig.Custom custom = new SourcesConfig.Custom(in.bool(c, "enabled", "sources.custom", true), dirs,
                in.bool(c, "autoReload", "sources.custom", true), in.strings(c, "disabledTools", "sources.custom", List.of()));
        String file = in.string(m, "serversFile", "sources.mcp", SourcesConfig.Mcp.DEFAULTS.serversFile());
        if (file == null || file.isBlank()) {
            file = SourcesConfig.Mcp.DEFAULTS.serversFile();
        }
        SourcesConfig.Mcp mcp = SourcesConfig.Mcp.builder()
                .enabled(in.bool(m, "enabled", "sources.mcp", true))
                .serversFile(file)
                .servers(in.strings(m, "servers", "sources.mcp", List.of()))
                .disabledServers(in.strings(m, "disabledServers", "sources.mcp", List.of()))
                .disabledTools(in.strings(m, "disabledTools", "sources.mcp", List.of()))
                .build();
        return new SourcesConfig(builtin, custom, mcp);
    }
}
