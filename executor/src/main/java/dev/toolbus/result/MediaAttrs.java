package dev.toolbus.result;

import dev.toolbus.tool.ContentItem;
import java.util.Map;

/**
 * The rendered attributes of one media item, in MaiBot's order: {@code msg_id, type, mime, name,
 * context_key, source_url}. Values are stripped; empty ones are omitted; metadata values that are
 * containers are ignored.
 */
final class MediaAttrs {

    private static final String[] KEYS = {"msg_id", "type", "mime", "name", "context_key", "source_url"};

    /** Stripped values in {@link #KEYS} order; empty when absent. */
    private final String[] values = new String[KEYS.length];

    MediaAttrs(String index, String type, ContentItem item) {
        values[0] = PyValues.strip(index);
        values[1] = type;
        values[2] = PyValues.strip(item.mimeType());
        values[3] = PyValues.strip(item.name());
        values[4] = metadata(item.metadata(), "context_key");
        values[5] = metadata(item.metadata(), "source_url");
    }

    private static String metadata(Map<String, Object> metadata, String key) {
        Object v = metadata.isEmpty() ? null : PyValues.unwrap(metadata.get(key));
        if (v == null || PyValues.isMap(v) || PyValues.isList(v) || v instanceof java.util.Set) {
            return "";
        }
        return PyValues.strip(PyValues.str(v));
    }

    /** {@code msg_id="…" type="…" …}, escaped. */
    String xml() {
        StringBuilder sb = new StringBuilder(96);
        for (int i = 0; i < KEYS.length; i++) {
            if (!values[i].isEmpty()) {
                if (sb.length() > 0) {
                    sb.append(' ');
                }
                sb.append(KEYS[i]).append("=\"");
                escape(sb, values[i]);
                sb.append('"');
            }
        }
        return sb.toString();
    }

    /**
     * The visible-text description line: {@code type / mime / name / context_key=… / source_url=…},
     * present values only, not escaped.
     */
    String describe() {
        StringBuilder sb = new StringBuilder(values[1]);
        for (int i = 2; i < KEYS.length; i++) {
            if (!values[i].isEmpty()) {
                sb.append(" / ");
                if (i >= 4) {
                    sb.append(KEYS[i]).append('=');
                }
                sb.append(values[i]);
            }
        }
        return sb.toString();
    }

    String index() {
        return values[0];
    }

    /** Python's {@code html.escape(s, quote=True)}. */
    static void escape(StringBuilder sb, String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#x27;");
                default -> sb.append(c);
            }
        }
    }

    static String escape(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 16);
        escape(sb, s);
        return sb.toString();
    }
}
