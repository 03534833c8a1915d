package dev.toolbus.auth;

import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/** A compiled list of {@code *} globs; an empty list matches everything. */
final class Globs {

    private final List<String> raw;
    private final List<Pattern> patterns;

    private Globs(List<String> raw, boolean ignoreCase) {
        this.raw = List.copyOf(raw);
        this.patterns = this.raw.stream().map(g -> compile(g, ignoreCase)).toList();
    }

    static Globs of(List<String> globs, boolean ignoreCase) {
        for (String g : globs) {
            if (g == null || g.isBlank()) {
                throw new IllegalArgumentException("a scope entry must not be blank");
            }
        }
        return new Globs(globs.stream().map(String::strip).toList(), ignoreCase);
    }

    boolean any() {
        return raw.isEmpty();
    }

    List<String> raw() {
        return raw;
    }

    boolean matches(String value) {
        if (raw.isEmpty()) {
            return true;
        }
        if (value == null) {
            return false;
        }
        for (Pattern p : patterns) {
            if (p.matcher(value).matches()) {
                return true;
            }
        }
        return false;
    }

    private static Pattern compile(String glob, boolean ignoreCase) {
        StringBuilder re = new StringBuilder();
        int start = 0;
        for (int i = 0; i < glob.length(); i++) {
            if (glob.charAt(i) == '*') {
                if (i > start) {
                    re.append(Pattern.quote(glob.substring(start, i)));
                }
                re.append(".*");
                start = i + 1;
            }
        }
        if (start < glob.length()) {
            re.append(Pattern.quote(glob.substring(start)));
        }
        return ignoreCase ? Pattern.compile(re.toString(), Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE | Pattern.DOTALL)
                : Pattern.compile(re.toString(), Pattern.DOTALL);
    }

    @Override
    public String toString() {
        return raw.isEmpty() ? "*" : String.join(",", raw).toLowerCase(Locale.ROOT);
    }
}
