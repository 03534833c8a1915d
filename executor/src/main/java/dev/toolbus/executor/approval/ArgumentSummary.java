package dev.toolbus.executor.approval;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.toolbus.protocol.Json;
import java.util.Iterator;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The arguments of a call as a human reads them in an approval request: JSON, secret-looking keys
 * redacted to {@code ***}, strings cut at 160 characters, objects and arrays nested deeper than two
 * levels shown as {@code [Object]}, at most 10 array items and 20 keys, at most 500 characters in all
 * (ChatAI's limits). Characters that would make a person misread the prompt are shown as their code
 * point ({@code [U+202E]}): bidirectional controls, other invisible format characters (zero-width
 * spaces, tag characters; the zero-width joiner of emoji stays), C0 and C1 controls, and the line and
 * paragraph separators.
 */
final class ArgumentSummary {

    static final int MAX_STRING = 160;
    static final int MAX_DEPTH = 2;
    static final int MAX_ITEMS = 10;
    static final int MAX_KEYS = 20;
    static final int MAX_TOTAL = 500;
    static final String REDACTED = "***";
    static final String NESTED = "[Object]";
    private static final String ELLIPSIS = "…";
    private static final Pattern SECRET =
            Pattern.compile("(api[-_]?key|token|password|secret|authorization|cookie|key)", Pattern.CASE_INSENSITIVE);
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private ArgumentSummary() {
    }

    /** The summary of the arguments ({@code {}} for none). */
    static String of(JsonNode arguments) {
        if (arguments == null || arguments.isMissingNode()) {
            return "{}";
        }
        String json;
        try {
            json = Json.mapper().writeValueAsString(bound(arguments, 0));
        } catch (JsonProcessingException e) {
            return "[unreadable arguments]";
        }
        return cut(neutral(json), MAX_TOTAL);
    }

    /** The text with every character a reader could be misled by written as {@code [U+XXXX]}. */
    static String neutral(String s) {
        int i = 0;
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            if (misleading(cp)) {
                break;
            }
            i += Character.charCount(cp);
        }
        if (i == s.length()) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length() + 16).append(s, 0, i);
        while (i < s.length()) {
            int cp = s.codePointAt(i);
            if (misleading(cp)) {
                out.append("[U+").append(String.format(java.util.Locale.ROOT, "%04X", cp)).append(']');
            } else {
                out.appendCodePoint(cp);
            }
            i += Character.charCount(cp);
        }
        return out.toString();
    }

    private static boolean misleading(int cp) {
        if (cp < 0x20 || cp >= 0x7F && cp <= 0x9F || cp == 0x2028 || cp == 0x2029) {
            return true;
        }
        // format characters: the bidi controls (U+202A-E, U+2066-9, U+200E/F, U+061C), zero-width
        // spaces, tags (U+E0000 block); the zero-width joiner stays, emoji sequences need it
        return cp != 0x200D && Character.getType(cp) == Character.FORMAT;
    }

    private static JsonNode bound(JsonNode n, int depth) {
        if (n.isObject()) {
            if (depth > MAX_DEPTH) {
                return TextNode.valueOf(NESTED);
            }
            ObjectNode out = F.objectNode();
            int i = 0;
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                if (i++ == MAX_KEYS) {
                    out.put(ELLIPSIS, "+" + (n.size() - MAX_KEYS) + " keys");
                    break;
                }
                String key = cut(e.getKey(), MAX_STRING);
                out.set(key, SECRET.matcher(e.getKey()).find() ? TextNode.valueOf(REDACTED) : bound(e.getValue(), depth + 1));
            }
            return out;
        }
        if (n.isArray()) {
            if (depth > MAX_DEPTH) {
                return TextNode.valueOf(NESTED);
            }
            ArrayNode out = F.arrayNode();
            for (int i = 0; i < n.size(); i++) {
                if (i == MAX_ITEMS) {
                    out.add(ELLIPSIS + "+" + (n.size() - MAX_ITEMS) + " items");
                    break;
                }
                out.add(bound(n.get(i), depth + 1));
            }
            return out;
        }
        if (n.isTextual()) {
            String s = n.textValue();
            return s.length() > MAX_STRING ? TextNode.valueOf(cut(s, MAX_STRING)) : n;
        }
        return n;
    }

    /** At most {@code max} characters, the last one an ellipsis when cut; never splits a surrogate pair. */
    static String cut(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        int end = max - 1;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + ELLIPSIS;
    }
}
