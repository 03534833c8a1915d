package dev.toolbus.executor.approval;

import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The risk of a tool, first match: its own declaration; the configured high, medium, low lists;
 * dangerous (flag, the policy's list, the well-known destructive names) → high; MCP annotations
 * ({@code destructiveHint} → high, {@code readOnlyHint} → low, from the definition's metadata); name
 * patterns, where read-only verbs win over the medium nouns; else medium. Compiled once per settings.
 */
final class RiskRules {

    /** Metadata keys an MCP source sets from the tool's annotations (Boolean values). */
    static final String DESTRUCTIVE_HINT = "destructiveHint";
    static final String READ_ONLY_HINT = "readOnlyHint";

    /** Names ChatAI treats as high whatever the config says (group administration, files, shell). */
    static final Set<String> KNOWN_HIGH = Set.of("kick_member", "mute_member", "recall_message", "mute_all",
            "set_group_admin", "set_group_card", "set_group_title", "set_group_name", "send_group_notice",
            "delete_group_notice", "write_file", "delete_file", "move_file", "copy_file", "create_directory",
            "execute_command");
    /** Read-only names without one of the verbs. */
    static final Set<String> KNOWN_LOW = Set.of("calculate", "calculator", "calc", "web_search", "search_web",
            "get_time", "get_date", "get_weather");
    private static final Pattern READ_ONLY_VERB = Pattern.compile("^(get_|list_|search|query_|read_|calculate_|calc_)");

    private final List<Entry> high;
    private final List<Entry> medium;
    private final List<Entry> low;
    private final List<Entry> dangerous;
    private final List<Entry> bypass;

    RiskRules(ApprovalSettings s) {
        this.high = compile(s.high());
        this.medium = compile(s.medium());
        this.low = compile(s.low());
        this.dangerous = compile(s.dangerousTools());
        this.bypass = compile(s.bypass());
    }

    /** Classifies a tool whose declared risk is {@code declared} ({@code null}: not declared). */
    Risk classify(ToolDefinition def, Risk declared) {
        if (declared != null) {
            return declared;
        }
        String name = def.name().toLowerCase(Locale.ROOT);
        String plugin = def.pluginId() == null ? null : def.pluginId().toLowerCase(Locale.ROOT);
        if (any(high, name, plugin)) {
            return Risk.HIGH;
        }
        if (any(medium, name, plugin)) {
            return Risk.MEDIUM;
        }
        if (any(low, name, plugin)) {
            return Risk.LOW;
        }
        if (def.dangerous() || any(dangerous, name, plugin) || KNOWN_HIGH.contains(name)) {
            return Risk.HIGH;
        }
        if (Boolean.TRUE.equals(def.metadata().get(DESTRUCTIVE_HINT))) {
            return Risk.HIGH;
        }
        if (Boolean.TRUE.equals(def.metadata().get(READ_ONLY_HINT))) {
            return Risk.LOW;
        }
        return byName(name);
    }

    /**
     * The name rules alone: read-only verbs and known read-only names → low; everything else medium.
     * ChatAI's medium nouns ({@code send_}, {@code _message}, {@code file}, {@code url}, {@code image}, …)
     * need no rule of their own: they are checked after the verbs (so {@code get_file_url} is low, the
     * fix of ChatAI's ordering) and give the same answer as the fallback.
     */
    static Risk byName(String lowerName) {
        return KNOWN_LOW.contains(lowerName) || READ_ONLY_VERB.matcher(lowerName).find() ? Risk.LOW : Risk.MEDIUM;
    }

    /** Whether the tool is on the bypass list. */
    boolean bypassed(ToolDefinition def) {
        return !bypass.isEmpty() && any(bypass, def.name().toLowerCase(Locale.ROOT),
                def.pluginId() == null ? null : def.pluginId().toLowerCase(Locale.ROOT));
    }

    private static boolean any(List<Entry> entries, String name, String plugin) {
        for (Entry e : entries) {
            if (e.matches(name, plugin)) {
                return true;
            }
        }
        return false;
    }

    private static List<Entry> compile(List<String> raw) {
        List<Entry> out = new ArrayList<>(raw.size());
        for (String r : raw) {
            String t = r == null ? "" : r.strip().toLowerCase(Locale.ROOT);
            if (t.isEmpty()) {
                continue;
            }
            out.add(new Entry(t, t.indexOf('*') < 0 ? null : Pattern.compile(glob(t))));
        }
        return out;
    }

    private static String glob(String t) {
        StringBuilder re = new StringBuilder();
        for (String part : t.split("\\*", -1)) {
            if (re.length() > 0 || t.startsWith("*")) {
                re.append(".*");
            }
            if (!part.isEmpty()) {
                re.append(Pattern.quote(part));
            }
        }
        return re.toString();
    }

    private record Entry(String text, Pattern glob) {
        boolean matches(String name, String plugin) {
            if (glob != null) {
                return glob.matcher(name).matches();
            }
            return text.equals(name) || text.equals(plugin);
        }
    }
}
