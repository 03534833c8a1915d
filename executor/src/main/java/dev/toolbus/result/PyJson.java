package dev.toolbus.result;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.Map;

/**
 * Python's {@code json.dumps(x, ensure_ascii=False)} over JSON-like Java values and Jackson nodes:
 * separators {@code ", "} and {@code ": "}, non-ASCII kept, floats as Python's {@code repr}.
 */
final class PyJson {

    /** Deeper values are refused (Python would hit its recursion limit; Java would overflow). */
    static final int MAX_DEPTH = 500;

    private PyJson() {
    }

    /**
     * Serialises a value.
     *
     * @throws IllegalArgumentException when the value nests deeper than {@link #MAX_DEPTH}
     */
    static String dumps(Object value) {
        StringBuilder sb = new StringBuilder(64);
        write(sb, value, 0);
        return sb.toString();
    }

    /** {@link #dumps}, or the value's class name when it nests too deep (or is cyclic). */
    static String dumpsOrName(Object value) {
        try {
            return dumps(value);
        } catch (IllegalArgumentException e) {
            return value.getClass().getName();
        }
    }

    private static void write(StringBuilder sb, Object value, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("value nests deeper than " + MAX_DEPTH);
        }
        Object v = PyValues.unwrap(value);
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            string(sb, s);
        } else if (v instanceof Boolean b) {
            sb.append(b ? "true" : "false");
        } else if (v instanceof Number n) {
            sb.append(PyValues.isFloat(n) ? floatRepr(n.doubleValue(), true) : n.toString());
        } else if (v instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                first = separator(sb, first);
                string(sb, key(e.getKey()));
                sb.append(": ");
                write(sb, e.getValue(), depth + 1);
            }
            sb.append('}');
        } else if (v instanceof JsonNode n && n.isObject()) {
            sb.append('{');
            boolean first = true;
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                first = separator(sb, first);
                string(sb, e.getKey());
                sb.append(": ");
                write(sb, e.getValue(), depth + 1);
            }
            sb.append('}');
        } else if (PyValues.isList(v)) {
            sb.append('[');
            boolean first = true;
            for (Object o : PyValues.elements(v)) {
                first = separator(sb, first);
                write(sb, o, depth + 1);
            }
            sb.append(']');
        } else {
            string(sb, v.toString());
        }
    }

    private static boolean separator(StringBuilder sb, boolean first) {
        if (!first) {
            sb.append(", ");
        }
        return false;
    }

    /** Python converts str, int, float, bool and None keys; anything else falls back to its text. */
    private static String key(Object k) {
        Object v = PyValues.unwrap(k);
        if (v == null) {
            return "null";
        }
        if (v instanceof Boolean b) {
            return b ? "true" : "false";
        }
        if (v instanceof Number n && PyValues.isFloat(n)) {
            return floatRepr(n.doubleValue(), true);
        }
        return v.toString();
    }

    private static void string(StringBuilder sb, String s) {
        sb.append('"');
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                continue;
            }
            sb.append(s, start, i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> sb.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xf]);
            }
            start = i + 1;
        }
        sb.append(s, start, s.length()).append('"');
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * Python's {@code repr(float)}: shortest round-trip digits, fixed notation for decimal exponents
     * -4..15 (always with a fractional part), else {@code 1.5e+20} / {@code 1e-05}.
     *
     * @param json {@code NaN}/{@code Infinity} as json.dumps writes them, else {@code nan}/{@code inf}
     */
    static String floatRepr(double d, boolean json) {
        if (Double.isNaN(d)) {
            return json ? "NaN" : "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? (json ? "Infinity" : "inf") : (json ? "-Infinity" : "-inf");
        }
        String sign = d < 0 || d == 0 && 1 / d < 0 ? "-" : "";
        if (d == 0) {
            return sign + "0.0";
        }
        BigDecimal bd = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
        String digits = bd.unscaledValue().toString();
        int exp = digits.length() - 1 - bd.scale();
        if (exp >= -4 && exp < 16) {
            String plain = bd.toPlainString();
            return sign + (plain.indexOf('.') < 0 ? plain + ".0" : plain);
        }
        StringBuilder sb = new StringBuilder(sign).append(digits.charAt(0));
        if (digits.length() > 1) {
            sb.append('.').append(digits, 1, digits.length());
        }
        int abs = Math.abs(exp);
        return sb.append('e').append(exp < 0 ? '-' : '+').append(abs < 10 ? "0" : "").append(abs).toString();
    }
}
