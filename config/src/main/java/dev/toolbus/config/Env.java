package dev.toolbus.config;

import java.util.List;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code ${NAME}} and {@code ${NAME:-default}} in string values; {@code $${} is a literal
 * {@code ${}. A variable that is unset (or empty, with {@code :-}) takes the default; unset without a
 * default → empty, with a warning.
 */
final class Env {

    private static final Pattern REF = Pattern.compile("\\$\\$\\{|\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?}");

    private Env() {
    }

    static String expand(String value, Function<String, String> env, String path, List<String> warnings) {
        if (value.indexOf("${") < 0) {
            return value;
        }
        Matcher m = REF.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String rep;
            if (m.group().equals("$${")) {
                rep = "${";
            } else {
                String v = env.apply(m.group(1));
                String def = m.group(2);
                if (def != null && (v == null || v.isEmpty())) {
                    rep = def;
                } else if (v == null) {
                    warnings.add(path + ": environment variable " + m.group(1) + " is not set; using an empty value");
                    rep = "";
                } else {
                    rep = v;
                }
            }
            m.appendReplacement(out, Matcher.quoteReplacement(rep));
        }
        m.appendTail(out);
        return out.toString();
    }
}
