package dev.toolbus.executor.internal;

import dev.toolbus.tool.ToolDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The tools {@code execution.cacheTools} opts in to the result cache although they do not declare
 * themselves cacheable: entries are tool names or plugin ids, case-insensitive, {@code *} globs allowed.
 */
final class CacheOptIn {

    private static final CacheOptIn NONE = new CacheOptIn(List.of());

    private final List<Pattern> entries;

    private CacheOptIn(List<Pattern> entries) {
        this.entries = entries;
    }

    static CacheOptIn of(List<String> raw) {
        if (raw.isEmpty()) {
            return NONE;
        }
        List<Pattern> out = new ArrayList<>(raw.size());
        for (String r : raw) {
            String[] parts = r.strip().toLowerCase(Locale.ROOT).split("\\*", -1);
            StringBuilder re = new StringBuilder();
            for (int i = 0; i < parts.length; i++) {
                re.append(i > 0 ? ".*" : "").append(Pattern.quote(parts[i]));
            }
            out.add(Pattern.compile(re.toString()));
        }
        return new CacheOptIn(List.copyOf(out));
    }

    /** Whether the config lists the tool, by its name or its plugin's id. */
    boolean lists(ToolDefinition def) {
        if (entries.isEmpty()) {
            return false;
        }
        String name = def.name().toLowerCase(Locale.ROOT);
        String plugin = def.pluginId() == null ? null : def.pluginId().toLowerCase(Locale.ROOT);
        for (Pattern p : entries) {
            if (p.matcher(name).matches() || plugin != null && p.matcher(plugin).matches()) {
                return true;
            }
        }
        return false;
    }
}
