package dev.toolbus.rules;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One entry of a rule's {@code tools} or of a group's members, matched as the policy matches its
 * restricting lists (deny, disabledTools, group members): {@code *}, {@code group:plugins},
 * {@code group:<name>}, a {@code *} glob (over the name, the plugin id, the original name, and
 * {@code <plugin>:<tool>} when the glob has a {@code :}), or an exact name, original name,
 * {@code <plugin>:<tool>} or plugin id. Case is ignored.
 */
record ToolPattern(String text, Kind kind, java.util.regex.Pattern regex) {

    enum Kind { ALL, PLUGINS, GROUP, GLOB, EXACT }

    static String norm(String s) {
        return s.strip().toLowerCase(Locale.ROOT);
    }

    /** Compiles an entry; {@code null} for a blank one. */
    static ToolPattern compile(String raw) {
        String t = raw == null ? "" : norm(raw);
        if (t.isEmpty()) {
            return null;
        }
        if (t.equals("*")) {
            return new ToolPattern(t, Kind.ALL, null);
        }
        if (t.equals("group:plugins")) {
            return new ToolPattern(t, Kind.PLUGINS, null);
        }
        if (t.startsWith("group:")) {
            return new ToolPattern(t.substring("group:".length()), Kind.GROUP, null);
        }
        if (t.indexOf('*') >= 0) {
            StringBuilder re = new StringBuilder();
            for (String part : t.split("\\*", -1)) {
                if (re.length() > 0 || t.startsWith("*")) {
                    re.append(".*");
                }
                if (!part.isEmpty()) {
                    re.append(java.util.regex.Pattern.quote(part));
                }
            }
            return new ToolPattern(t, Kind.GLOB, java.util.regex.Pattern.compile(re.toString()));
        }
        return new ToolPattern(t, Kind.EXACT, null);
    }

    static List<ToolPattern> compileAll(List<String> raw) {
        List<ToolPattern> out = new ArrayList<>(raw.size());
        for (String r : raw) {
            ToolPattern p = compile(r);
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    boolean matches(Names t) {
        return switch (kind) {
            case ALL -> true;
            case PLUGINS -> t.plugin();
            case GROUP -> t.groups().contains(text);
            case GLOB -> regex.matcher(t.name()).matches()
                    || t.pluginId() != null && regex.matcher(t.pluginId()).matches()
                    || aliasGlob(t);
            case EXACT -> text.equals(t.name()) || t.aliases().contains(text) || text.equals(t.pluginId());
        };
    }

    private boolean aliasGlob(Names t) {
        boolean colonGlob = text.indexOf(':') >= 0;
        for (String a : t.aliases()) {
            // a <plugin>:<tool> alias answers only to globs that name a plugin part too
            if ((a.indexOf(':') < 0 || colonGlob) && regex.matcher(a).matches()) {
                return true;
            }
        }
        return false;
    }

    static boolean any(List<ToolPattern> patterns, Names t) {
        for (ToolPattern p : patterns) {
            if (p.matches(t)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A tool's names, normalised: its registered name, plugin id, whether it is a plugin tool, its
     * groups, and its aliases (original name, {@code <plugin>:<original or registered name>}).
     */
    record Names(String name, String pluginId, boolean plugin, Set<String> groups, Set<String> aliases) {

        static Names of(ToolFacts t, Set<String> groups) {
            String pid = t.pluginId() == null ? null : norm(t.pluginId());
            String original = t.originalName() == null ? null : norm(t.originalName());
            java.util.LinkedHashSet<String> aliases = new java.util.LinkedHashSet<>(4);
            if (original != null) {
                aliases.add(original);
            }
            if (pid != null) {
                aliases.add(pid + ":" + (original != null ? original : norm(t.name())));
            }
            return new Names(norm(t.name()), pid, t.plugin(), groups, Set.copyOf(aliases));
        }
    }
}
