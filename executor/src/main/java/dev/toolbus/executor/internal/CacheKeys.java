package dev.toolbus.executor.internal;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.tool.CacheScope;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.Iterator;

/**
 * Cache keys: tool, scope and the arguments as canonical JSON (object keys sorted, numbers in one
 * form), built in time linear in the arguments' text and never longer than a cap. Numbers are written
 * from their digits and exponent ({@code 1.50}, {@code 15e-1} and {@code 1.5} are one key;
 * {@code 1e999999999} stays 12 characters): a plain rendering of a huge exponent would be a string of
 * that many digits.
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

    private CacheKeys() {
    }

    /** The cache key of a call, or {@code null} when it would be longer than {@code maxChars}. */
    static String key(String tool, JsonNode args, CacheScope scope, String streamId, String userId, int maxChars) {
        StringBuilder sb = BUILDER.get();
        sb.setLength(0);
        try {
            append(sb, tool, maxChars);
            sb.append('\u0000');
            if (scope == CacheScope.STREAM_USER) {
                append(sb, String.valueOf(streamId), maxChars);
                sb.append('\u0000');
                append(sb, String.valueOf(userId), maxChars);
            }
            sb.append('\u0000');
            canonical(args, sb, maxChars);
        } catch (TooLong e) {
            return null;
        } finally {
            if (sb.capacity() > MAX_KEPT_CHARS) {
                BUILDER.remove();
            }
        }
        return sb.length() > maxChars ? null : sb.toString();
    }

    /** Appends canonical JSON; throws {@link TooLong} past {@code max} characters. */
    static void canonical(JsonNode n, StringBuilder sb, int max) {
        if (sb.length() > max) {
            throw TOO_LONG;
        }
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
                canonical(n.get(names[i]), sb, max);
            }
            sb.append('}');
        } else if (n.isArray()) {
            sb.append('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                canonical(n.get(i), sb, max);
            }
            sb.append(']');
        } else if (n.isTextual()) {
            quote(n.textValue(), sb, max);
        } else if (n.isNumber()) {
            number(n, sb);
        } else if (n.isBoolean()) {
            sb.append(n.booleanValue());
        } else if (n.isNull()) {
            sb.append("null");
        } else {
            append(sb, n.toString(), max);
        }
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
