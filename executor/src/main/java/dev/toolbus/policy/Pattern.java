package dev.toolbus.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** One compiled list entry: {@code *}, {@code group:plugins}, {@code group:<name>}, a glob, or a name/plugin id. */
record Pattern(String text, Kind kind, java.util.regex.Pattern regex) {

    enum Kind { ALL, PLUGINS, GROUP, GLOB, EXACT }

    static final String PLUGINS = "group:plugins";

    static String norm(String s) {
        return s == null ? null : s.strip().toLowerCase(Locale.ROOT);
    }

    /** Compiles an entry; {@code null} for a blank one. */
    static Pattern compile(String raw) {
        String t = norm(raw);
        if (t == null || t.isEmpty()) {
            return null;
        }
        if (t.equals("*")) {
            return new Pattern(t, Kind.ALL, null);
        }
        if (t.equals(PLUGINS)) {
            return new Pattern(t, Kind.PLUGINS, null);
        }
        if (t.startsWith("group:")) {
            return new Pattern(t.substring("group:".length()), Kind.GROUP, null);
        }
        if (t.indexOf('*') >= 0) {
            return new Pattern(t, Kind.GLOB, java.util.regex.Pattern.compile(globRegex(t)));
        }
        return new Pattern(t, Kind.EXACT, null);
    }

    private static String globRegex(String t) {
        StringBuilder re = new StringBuilder();
        int start = 0;
        for (int i = 0; i < t.length(); i++) {
            if (t.charAt(i) == '*') {
                if (i > start) {
                    re.append(java.util.regex.Pattern.quote(t.substring(start, i)));
                }
                re.append(".*");
                start = i + 1;
            }
        }
        if (start < t.length()) {
            re.append(java.util.regex.Pattern.quote(t.substring(start)));
        }
        return re.toString();
    }

    static List<Pattern> compileAll(List<String> raw) {
        List<Pattern> out = new ArrayList<>(raw.size());
        for (String r : raw) {
            Pattern p = compile(r);
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * Whether this entry of a restricting list (deny, disabled, dangerous) matches the tool, without
     * looking into groups' own patterns for GROUP. A tool renamed on a clash is matched by its original
     * name and {@code <pluginId>:<tool>} as well.
     */
    boolean matches(Facts t) {
        return matches(t, false);
    }

    /** Whether this entry of an allow list matches: as {@link #matches(Facts)}, but not by a bare original name. */
    boolean grants(Facts t) {
        return matches(t, true);
    }

    private boolean matches(Facts t, boolean granting) {
        return switch (kind) {
            case ALL -> true;
            case PLUGINS -> t.plugin();
            case GROUP -> t.groups().contains(text);
            case GLOB -> globMatches(t, granting);
            case EXACT -> (granting ? t.isGranted(text) : t.isNamed(text)) || text.equals(t.pluginId());
        };
    }

    private boolean globMatches(Facts t, boolean granting) {
        // a glob reads plugin ids as a plain id does: `deny: [mem*]` takes every tool of plugin memory-x
        if (regex.matcher(t.name()).matches() || t.pluginId() != null && regex.matcher(t.pluginId()).matches()) {
            return true;
        }
        for (String a : t.aliases()) {
            // a server:tool alias answers only to globs that name a server part too
            boolean colon = a.indexOf(':') >= 0;
            if ((colon ? text.indexOf(':') >= 0 : !granting) && regex.matcher(a).matches()) {
                return true;
            }
        }
        return false;
    }

    /** Whether an entry of this allow list grants the tool. */
    static boolean anyGrants(List<Pattern> patterns, Facts t) {
        for (Pattern p : patterns) {
            if (p.grants(t)) {
                return true;
            }
        }
        return false;
    }

    static boolean any(List<Pattern> patterns, Facts t) {
        for (Pattern p : patterns) {
            if (p.matches(t)) {
                return true;
            }
        }
        return false;
    }
}
