package dev.toolbus.result;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;

/**
 * Python semantics over JSON-like Java values ({@link Map}, {@link Collection}, String, Number,
 * Boolean, {@code null}) and Jackson {@link JsonNode}s: truthiness, {@code str()}, {@code strip()}.
 * Containers render as JSON (see {@link PyJson}), never as Python repr.
 */
final class PyValues {

    private PyValues() {
    }

    /** Jackson scalars become Java values; containers and Java values pass through. */
    static Object unwrap(Object v) {
        if (!(v instanceof JsonNode n)) {
            return v;
        }
        if (n.isContainerNode()) {
            return n;
        }
        if (n.isNull() || n.isMissingNode()) {
            return null;
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        if (n.isNumber()) {
            return n.numberValue();
        }
        return n.asText();
    }

    static boolean isMap(Object v) {
        return v instanceof Map || v instanceof JsonNode n && n.isObject();
    }

    static boolean isList(Object v) {
        return v instanceof Collection || v instanceof JsonNode n && n.isArray();
    }

    /** Whether a map (Java or Jackson) holds the key, even with a null value. */
    static boolean has(Object map, String key) {
        return map instanceof Map<?, ?> m ? m.containsKey(key) : ((JsonNode) map).has(key);
    }

    /** The unwrapped value of a key of a map (Java or Jackson), {@code null} when absent. */
    static Object get(Object map, String key) {
        return map instanceof Map<?, ?> m ? unwrap(m.get(key)) : unwrap(((JsonNode) map).get(key));
    }

    /** The elements of a list (Java or Jackson), not unwrapped. */
    @SuppressWarnings("unchecked")
    static Iterable<Object> elements(Object list) {
        return list instanceof Collection<?> c ? (Iterable<Object>) c : (Iterable<Object>) (Iterable<?>) list;
    }

    /** The first element of a non-empty list, unwrapped; {@code null} otherwise. */
    static Object first(Object list) {
        for (Object o : elements(list)) {
            return unwrap(o);
        }
        return null;
    }

    /** The element at {@code index}, unwrapped, or {@code null} when the list is shorter. */
    static Object at(Object list, int index) {
        int i = 0;
        for (Object o : elements(list)) {
            if (i++ == index) {
                return unwrap(o);
            }
        }
        return null;
    }

    /** Python {@code bool(v)}. */
    static boolean truthy(Object value) {
        Object v = unwrap(value);
        if (v == null) {
            return false;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof CharSequence s) {
            return s.length() > 0;
        }
        if (v instanceof Number n) {
            return isNonZero(n);
        }
        if (v instanceof Map<?, ?> m) {
            return !m.isEmpty();
        }
        if (v instanceof Collection<?> c) {
            return !c.isEmpty();
        }
        if (v instanceof JsonNode n) {
            return n.size() > 0;
        }
        return true;
    }

    private static boolean isNonZero(Number n) {
        if (n instanceof BigDecimal d) {
            return d.signum() != 0;
        }
        if (n instanceof BigInteger i) {
            return i.signum() != 0;
        }
        if (n instanceof Double || n instanceof Float) {
            return n.doubleValue() != 0.0;
        }
        return n.longValue() != 0;
    }

    /** Python {@code str(v)}; containers as JSON. */
    static String str(Object value) {
        Object v = unwrap(value);
        if (v == null) {
            return "None";
        }
        if (v instanceof String s) {
            return s;
        }
        if (v instanceof Boolean b) {
            return b ? "True" : "False";
        }
        if (v instanceof Number n) {
            return isFloat(n) ? PyJson.floatRepr(n.doubleValue(), false) : n.toString();
        }
        if (isMap(v) || isList(v)) {
            return PyJson.dumpsOrName(v);
        }
        return v.toString();
    }

    /** Python {@code str(v or "")}. */
    static String strOrEmpty(Object value) {
        return truthy(value) ? str(value) : "";
    }

    static boolean isFloat(Number n) {
        return n instanceof Double || n instanceof Float || n instanceof BigDecimal;
    }

    /** Python {@code str.isspace()} for one char. */
    static boolean isSpace(char c) {
        if (c > ' ' && c < 0x7f) {
            // printable ASCII, the usual first and last character of a text: never a space
            return false;
        }
        return Character.isWhitespace(c) || c == '\u0085' || c == '\u00a0' || c == '\u2007' || c == '\u202f';
    }

    /** Python {@code str.strip()}; returns {@code s} itself when nothing is stripped. */
    static String strip(String s) {
        int to = s.length();
        if (to == 0 || !isSpace(s.charAt(0)) && !isSpace(s.charAt(to - 1))) {
            return s;
        }
        int from = 0;
        while (from < to && isSpace(s.charAt(from))) {
            from++;
        }
        while (to > from && isSpace(s.charAt(to - 1))) {
            to--;
        }
        return s.substring(from, to);
    }

    /** Whether {@code s.strip()} would be empty. */
    static boolean isBlank(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (!isSpace(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }
}
