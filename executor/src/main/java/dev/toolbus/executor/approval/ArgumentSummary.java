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
 * (ChatAI's limits).
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
        return cut(json, MAX_TOTAL);
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
