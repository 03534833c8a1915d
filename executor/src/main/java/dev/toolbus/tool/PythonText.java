package dev.toolbus.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.Map;

/**
 * Renders JSON values the way Python's {@code str()} and {@code repr()} print them, and Python's
 * notions of truthiness and whitespace. MaiBot builds its description text with these, so the
 * {@code zh} texts only match byte for byte when we do the same ({@code False}, {@code [1, 2]},
 * {@code {'a': 1}}, {@code 1e-05}).
 */
final class PythonText {

    private PythonText() {
    }

    /** Python {@code str(value)}: strings as they are, everything else as {@link #repr}. */
    static String str(JsonNode value) {
        if (value != null && value.isTextual()) {
            return value.textValue();
        }
        return repr(value);
    }

    /** Python {@code repr(value)} of the value decoded from JSON ({@code null} and missing read as None). */
    static String repr(JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return "None";
        }
        if (value.isTextual()) {
            return reprString(value.textValue());
        }
        if (value.isBoolean()) {
            return value.booleanValue() ? "True" : "False";
        }
        if (value.isIntegralNumber()) {
            return value.bigIntegerValue().toString();
        }
        if (value.isFloat()) {
            return reprFloat(Double.parseDouble(Float.toString(value.floatValue())));
        }
        if (value.isNumber()) {
            return reprFloat(value.doubleValue());
        }
        StringBuilder sb = new StringBuilder();
        if (value.isArray()) {
            sb.append('[');
            for (int i = 0; i < value.size(); i++) {
                sb.append(i == 0 ? "" : ", ").append(repr(value.get(i)));
            }
            return sb.append(']').toString();
        }
        if (value.isObject()) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, JsonNode> e : value.properties()) {
                sb.append(first ? "" : ", ").append(reprString(e.getKey())).append(": ").append(repr(e.getValue()));
                first = false;
            }
            return sb.append('}').toString();
        }
        return value.asText();
    }

    /** Python truthiness of a JSON value: null, false, 0, "", [] and {} are false. */
    static boolean truthy(JsonNode value) {
        if (value == null || value.isNull() || value.isMissingNode()) {
            return false;
        }
        if (value.isBoolean()) {
            return value.booleanValue();
        }
        if (value.isNumber()) {
            return value.isIntegralNumber() ? value.bigIntegerValue().signum() != 0 : value.doubleValue() != 0.0;
        }
        if (value.isTextual()) {
            return !value.textValue().isEmpty();
        }
        return value.size() > 0;
    }

    /** Python {@code str.strip()}: also strips U+00A0, U+2007, U+202F and U+0085, which Java keeps. */
    static String strip(String s) {
        if (s == null) {
            return "";
        }
        int start = 0;
        int end = s.length();
        while (start < end && isSpace(s.charAt(start))) {
            start++;
        }
        while (end > start && isSpace(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(start, end);
    }

    private static boolean isSpace(char c) {
        return Character.isWhitespace(c) || c == '\u00a0' || c == '\u2007' || c == '\u202f' || c == '\u0085';
    }

    /** Python's shortest float repr: {@code 5.0}, {@code 0.1}, {@code 1e-05}, {@code 1e+16}. */
    static String reprFloat(double d) {
        if (Double.isNaN(d)) {
            return "nan";
        }
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == 0.0) {
            return 1.0 / d < 0 ? "-0.0" : "0.0";
        }
        BigDecimal bd = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
        String digits = bd.unscaledValue().toString();
        int exp = digits.length() - 1 - bd.scale();
        String sign = d < 0 ? "-" : "";
        if (exp >= -4 && exp < 16) {
            String plain = bd.toPlainString();
            return sign + (plain.indexOf('.') < 0 ? plain + ".0" : plain);
        }
        String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
        int abs = Math.abs(exp);
        return sign + mantissa + "e" + (exp < 0 ? "-" : "+") + (abs < 10 ? "0" : "") + abs;
    }

    private static String reprString(String s) {
        char quote = s.indexOf('\'') >= 0 && s.indexOf('"') < 0 ? '"' : '\'';
        StringBuilder sb = new StringBuilder(s.length() + 2).append(quote);
        s.codePoints().forEach(cp -> {
            if (cp == quote || cp == '\\') {
                sb.append('\\').appendCodePoint(cp);
            } else if (cp == '\t') {
                sb.append("\\t");
            } else if (cp == '\n') {
                sb.append("\\n");
            } else if (cp == '\r') {
                sb.append("\\r");
            } else if (cp == ' ' || isPrintable(cp)) {
                sb.appendCodePoint(cp);
            } else if (cp < 0x100) {
                sb.append(String.format("\\x%02x", cp));
            } else if (cp < 0x10000) {
                sb.append(String.format("\\u%04x", cp));
            } else {
                sb.append(String.format("\\U%08x", cp));
            }
        });
        return sb.append(quote).toString();
    }

    private static boolean isPrintable(int cp) {
        return switch (Character.getType(cp)) {
            case Character.CONTROL, Character.FORMAT, Character.SURROGATE, Character.PRIVATE_USE,
                    Character.UNASSIGNED, Character.LINE_SEPARATOR, Character.PARAGRAPH_SEPARATOR,
                    Character.SPACE_SEPARATOR -> false;
            default -> true;
        };
    }
}
