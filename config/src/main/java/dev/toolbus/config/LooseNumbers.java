package dev.toolbus.config;

/**
 * Numbers in configuration values as YAML, JSON or a flag give them: a {@link Number}, or a string
 * holding one. Builders that fall back with a warning read their values through here, so "not a
 * number" means the same everywhere.
 */
final class LooseNumbers {

    private LooseNumbers() {
    }

    /** The value as a finite double, or {@code null} when it is not a number (NaN and infinities included). */
    static Double number(Object v) {
        double d;
        if (v instanceof Number n) {
            d = n.doubleValue();
        } else if (v instanceof String s && !s.isBlank()) {
            try {
                d = Double.parseDouble(s.strip());
            } catch (NumberFormatException e) {
                return null;
            }
        } else {
            return null;
        }
        return Double.isNaN(d) || Double.isInfinite(d) ? null : d;
    }

    /** The value as a whole number of at most 10^15 in size, or {@code null} when it is not one. */
    static Long integer(Object v) {
        Double d = number(v);
        if (d == null || d != Math.rint(d) || Math.abs(d) > 1e15) {
            return null;
        }
        return d.longValue();
    }
}
