package dev.toolbus.executor.internal;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolDefinition;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Iterator;

/**
 * Cache keys: tool, scope and the arguments as canonical JSON (object keys sorted, numbers in one
 * form), built in time linear in the arguments' text and never longer than a cap. Numbers are written
 * from their digits and exponent ({@code 1.50}, {@code 15e-1} and {@code 1.5} are one key;
 * {@code 1e999999999} stays 12 characters): a plain rendering of a huge exponent would be a string of
 * that many digits. Argument text the model already sent in that form ({@link #canonicalObject}) is
 * the key's text as it is, checked in one pass and looked up before the arguments are parsed.
 */
final class CacheKeys {

    private static final JsonStringEncoder JSON_STRINGS = JsonStringEncoder.getInstance();

    /** Thrown (without a stack) when a key outgrows its cap. */
    private static final class TooLong extends RuntimeException {
        TooLong() {
            super(null, null, false, false);
        }
    }

    private static final TooLong TOO_LONG = new TooLong();

    /** Each thread builds its keys in one builder (not re-entered: building a key calls nothing that builds one). */
    private static final ThreadLocal<StringBuilder> BUILDER = ThreadLocal.withInitial(() -> new StringBuilder(128));

    /** A builder that grew past this many characters is dropped after use, so each thread keeps little. */
    private static final int MAX_KEPT_CHARS = 1024;

    /** Deeper argument text is not taken as canonical (it is keyed the usual way). */
    static final int MAX_CANONICAL_DEPTH = 32;

    /** Whole numbers of at most this many digits are written as their digits. */
    private static final int MAX_PLAIN_DIGITS = 18;

    private CacheKeys() {
    }

    /** The cache key of a call, or {@code null} when it would be longer than {@code maxChars}. */
    static CacheKey key(ToolDefinition def, JsonNode args, CacheScope scope, String streamId, String userId,
                        int maxChars) {
        String stream = scope == CacheScope.STREAM_USER ? String.valueOf(streamId) : null;
        String user = scope == CacheScope.STREAM_USER ? String.valueOf(userId) : null;
        int budget = maxChars - prefixChars(def, stream, user);
        if (budget < 0) {
            return null;
        }
        StringBuilder sb = BUILDER.get();
        sb.setLength(0);
        boolean exact;
        try {
            exact = canonical(args, sb, budget);
            if (sb.length() > budget) {
                return null;
            }
            return new CacheKey(def, stream, user, sb.toString(), exact);
        } catch (TooLong e) {
            return null;
        } finally {
            if (sb.capacity() > MAX_KEPT_CHARS) {
                BUILDER.remove();
            }
        }
    }

    /**
     * The cache key of a call whose raw argument text is already canonical ({@link #canonicalObject}),
     * made of that text without parsing it; {@code null} when it is not canonical or the key would be
     * longer than {@code maxChars}. It equals the key {@link #key} makes of the parsed arguments.
     */
    static CacheKey rawKey(ToolDefinition def, String json, CacheScope scope, String streamId, String userId,
                           int maxChars) {
        String stream = scope == CacheScope.STREAM_USER ? String.valueOf(streamId) : null;
        String user = scope == CacheScope.STREAM_USER ? String.valueOf(userId) : null;
        if ((long) prefixChars(def, stream, user) + json.length() > maxChars || !canonicalObject(json)) {
            return null;
        }
        return new CacheKey(def, stream, user, json, true);
    }

    /** What the tool and scope add to a key's length: as many characters as the key once held for them. */
    private static int prefixChars(ToolDefinition def, String stream, String user) {
        long n = def.name().length() + 2L + (stream == null ? 0 : stream.length() + 1L + user.length());
        return (int) Math.min(Integer.MAX_VALUE, n);
    }

    /**
     * Whether {@code s} is a JSON object written exactly as {@link #canonical} writes the value it
     * parses to, with nothing the context fills at its top level ({@code stream_id}, {@code chat_id}):
     * keys in ascending order (so none twice), no whitespace, no escape sequence, no lone surrogate, numbers
     * only as whole numbers of at most {@value #MAX_PLAIN_DIGITS} digits without a leading zero or
     * {@code -0}, nested at most {@value #MAX_CANONICAL_DEPTH} deep. Such text parses (to ints and
     * longs, never decimals) and reads back as itself; anything else answers false and is keyed the usual way.
     */
    static boolean canonicalObject(String s) {
        return !s.isEmpty() && s.charAt(0) == '{' && object(s, 0, 1) == s.length();
    }

    /** The index after the value at {@code i}, or -1 when it is not canonical. */
    private static int value(String s, int i, int depth) {
        if (i >= s.length()) {
            return -1;
        }
        char c = s.charAt(i);
        switch (c) {
            case '{':
                return object(s, i, depth + 1);
            case '[':
                return array(s, i, depth + 1);
            case '"':
                return string(s, i);
            case 't':
                return s.startsWith("true", i) ? i + 4 : -1;
            case 'f':
                return s.startsWith("false", i) ? i + 5 : -1;
            case 'n':
                return s.startsWith("null", i) ? i + 4 : -1;
            default:
                return number(s, i);
        }
    }

    private static int object(String s, int i, int depth) {
        if (depth > MAX_CANONICAL_DEPTH) {
            return -1;
        }
        int n = s.length();
        i++;
        if (i < n && s.charAt(i) == '}') {
            return i + 1;
        }
        int prevFrom = -1;
        int prevTo = -1;
        while (i < n && s.charAt(i) == '"') {
            int end = string(s, i);
            if (end < 0 || end >= n || s.charAt(end) != ':') {
                return -1;
            }
            int from = i + 1;
            int to = end - 1;
            if (prevFrom >= 0 && compare(s, prevFrom, prevTo, from, to) >= 0) {
                return -1;
            }
            if (depth == 1 && (named(s, from, to, "stream_id") || named(s, from, to, "chat_id"))) {
                return -1;
            }
            prevFrom = from;
            prevTo = to;
            i = value(s, end + 1, depth);
            if (i < 0 || i >= n) {
                return -1;
            }
            char c = s.charAt(i);
            if (c == '}') {
                return i + 1;
            }
            if (c != ',') {
                return -1;
            }
            i++;
        }
        return -1;
    }

    private static int array(String s, int i, int depth) {
        if (depth > MAX_CANONICAL_DEPTH) {
            return -1;
        }
        int n = s.length();
        i++;
        if (i < n && s.charAt(i) == ']') {
            return i + 1;
        }
        while (true) {
            i = value(s, i, depth);
            if (i < 0 || i >= n) {
                return -1;
            }
            char c = s.charAt(i);
            if (c == ']') {
                return i + 1;
            }
            if (c != ',') {
                return -1;
            }
            i++;
        }
    }

    /** The index after the string at {@code i} (its opening quote), or -1 when quoting would change it. */
    private static int string(String s, int i) {
        int n = s.length();
        for (int j = i + 1; j < n; j++) {
            char c = s.charAt(j);
            if (c == '"') {
                return j + 1;
            }
            if (c < 0x20 || c == '\\') {
                return -1;
            }
            if (Character.isSurrogate(c)) {
                // a pair is written as it is; a lone surrogate is refused by the parser
                if (!Character.isHighSurrogate(c) || j + 1 >= n || !Character.isLowSurrogate(s.charAt(j + 1))) {
                    return -1;
                }
                j++;
            }
        }
        return -1;
    }

    private static int number(String s, int i) {
        int n = s.length();
        int j = i;
        if (j < n && s.charAt(j) == '-') {
            j++;
        }
        int first = j;
        while (j < n && s.charAt(j) >= '0' && s.charAt(j) <= '9') {
            j++;
        }
        int digits = j - first;
        if (digits == 0 || digits > MAX_PLAIN_DIGITS || digits > 1 && s.charAt(first) == '0'
                || s.charAt(first) == '0' && first > i) {
            return -1;
        }
        if (j < n) {
            char c = s.charAt(j);
            if (c == '.' || c == 'e' || c == 'E') {
                return -1;
            }
        }
        return j;
    }

    /** Compares two key texts (no escapes in them) as {@link String#compareTo} compares the keys. */
    private static int compare(String s, int aFrom, int aTo, int bFrom, int bTo) {
        int la = aTo - aFrom;
        int lb = bTo - bFrom;
        int m = Math.min(la, lb);
        for (int k = 0; k < m; k++) {
            int d = s.charAt(aFrom + k) - s.charAt(bFrom + k);
            if (d != 0) {
                return d;
            }
        }
        return la - lb;
    }

    private static boolean named(String s, int from, int to, String name) {
        return to - from == name.length() && s.startsWith(name, from);
    }

    /**
     * Appends canonical JSON; throws {@link TooLong} past {@code max} characters.
     *
     * @return whether every number in it is an int or a long node (its text then parses back to the same nodes)
     */
    static boolean canonical(JsonNode n, StringBuilder sb, int max) {
        if (sb.length() > max) {
            throw TOO_LONG;
        }
        boolean exact = true;
        if (n.isObject()) {
            String[] names = new String[n.size()];
            Iterator<String> it = n.fieldNames();
            for (int i = 0; i < names.length && it.hasNext(); i++) {
                names[i] = it.next();
            }
            if (names.length > 1) {
                Arrays.sort(names);
            }
            sb.append('{');
            for (int i = 0; i < names.length; i++) {
                if (i > 0) {
                    sb.append(',');
                }
                quote(names[i], sb, max);
                sb.append(':');
                exact &= canonical(n.get(names[i]), sb, max);
            }
            sb.append('}');
        } else if (n.isArray()) {
            sb.append('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                exact &= canonical(n.get(i), sb, max);
            }
            sb.append(']');
        } else if (n.isTextual()) {
            quote(n.textValue(), sb, max);
        } else if (n.isNumber()) {
            number(n, sb);
            exact = n.isInt() || n.isLong() && (n.longValue() < Integer.MIN_VALUE || n.longValue() > Integer.MAX_VALUE);
        } else if (n.isBoolean()) {
            sb.append(n.booleanValue());
        } else if (n.isNull()) {
            sb.append("null");
        } else {
            append(sb, n.toString(), max);
            exact = false;
        }
        return exact;
    }

    /**
     * A number in one form per value: a whole number of at most 18 digits as plain digits (so
     * {@code 100} and {@code 1e2} meet), anything else as {@code <digits>e<exponent>}, zeros stripped.
     * The digits are those of the input text, whose length the parser bounds.
     */
    static void number(JsonNode n, StringBuilder sb) {
        if (n.isIntegralNumber() && n.canConvertToLong()) {
            sb.append(n.longValue());
            return;
        }
        BigDecimal d;
        if (n.isDouble() || n.isFloat()) {
            double v = n.doubleValue();
            if (Double.isNaN(v) || Double.isInfinite(v)) {
                sb.append(v);
                return;
            }
            d = BigDecimal.valueOf(v);
        } else {
            d = n.decimalValue();
        }
        if (d.signum() == 0) {
            sb.append('0');
            return;
        }
        d = d.stripTrailingZeros();
        int scale = d.scale();
        if (scale <= 0 && d.precision() - (long) scale <= 18) {
            sb.append(d.longValueExact());
        } else {
            sb.append(d.unscaledValue()).append('e').append(-(long) scale);
        }
    }

    private static void quote(String s, StringBuilder sb, int max) {
        if (sb.length() + (long) s.length() > max) {
            throw TOO_LONG;
        }
        sb.append('"');
        if (needsEscape(s)) {
            JSON_STRINGS.quoteAsString(s, sb);
        } else {
            sb.append(s);
        }
        sb.append('"');
    }

    /** Whether JSON quoting changes the text: a control character, a quote or a backslash in it. */
    private static boolean needsEscape(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                return true;
            }
        }
        return false;
    }

    private static void append(StringBuilder sb, String s, int max) {
        if (sb.length() + (long) s.length() > max) {
            throw TOO_LONG;
        }
        sb.append(s);
    }
}
