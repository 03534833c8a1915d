package dev.toolbus.result;

import dev.toolbus.text.Texts;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolResult;
import java.util.List;

/**
 * The text of a result as the model reads it, before the media block: MaiBot's
 * {@code get_history_content}, first non-empty of content, item texts, structured data, error message.
 */
final class HistoryText {

    private HistoryText() {
    }

    /** The history text, stripped; empty when the result says nothing. */
    static String of(ToolResult result, Texts texts) {
        String content = PyValues.strip(result.content());
        if (!content.isEmpty()) {
            return content;
        }
        List<ContentItem> items = result.contentItems();
        if (!items.isEmpty()) {
            String joined = itemTexts(items, texts);
            if (!joined.isEmpty()) {
                return joined;
            }
        }
        Object data = PyValues.unwrap(result.data());
        if (data != null) {
            String text = PyValues.strip(dataText(data));
            if (!text.isEmpty()) {
                return text;
            }
        }
        return PyValues.strip(result.errorMessage());
    }

    /** Structured data as text: a string as is, anything else as Python-style JSON. */
    static String dataText(Object data) {
        Object v = PyValues.unwrap(data);
        if (v instanceof String s) {
            return s;
        }
        return v == null ? "null" : PyJson.dumpsOrName(v);
    }

    /** The non-blank item texts joined with newlines, stripped. */
    private static String itemTexts(List<ContentItem> items, Texts texts) {
        StringBuilder sb = new StringBuilder();
        for (ContentItem item : items) {
            String text = itemText(item, texts);
            if (!PyValues.isBlank(text)) {
                if (sb.length() > 0) {
                    sb.append('\n');
                }
                sb.append(text);
            }
        }
        return PyValues.strip(sb.toString());
    }

    /** One item's text, MaiBot's {@code build_history_text}. */
    static String itemText(ContentItem item, Texts p) {
        String type = ItemTypes.normalise(item.type());
        return switch (type) {
            case ItemTypes.TEXT -> item.text();
            case ItemTypes.IMAGE -> bracket(p.imageContent(), orUnknown(item.mimeType()));
            case ItemTypes.AUDIO -> bracket(p.audioContent(), orUnknown(item.mimeType()));
            case ItemTypes.BINARY -> bracket(p.binaryContent(), orUnknown(item.mimeType()));
            case ItemTypes.RESOURCE_LINK -> "[" + p.resourceLink() + "] " + firstOf(item, p.resourceLink());
            case ItemTypes.RESOURCE -> item.text().isEmpty()
                    ? "[" + p.embeddedResource() + "] " + firstOf(item, p.embeddedResource()) : item.text();
            default -> bracket(type, p.otherContentSuffix());
        };
    }

    private static String bracket(String a, String b) {
        return "[" + a + " " + b + "]";
    }

    private static String orUnknown(String mime) {
        return mime.isEmpty() ? "unknown" : mime;
    }

    private static String firstOf(ContentItem item, String fallback) {
        return !item.name().isEmpty() ? item.name() : !item.uri().isEmpty() ? item.uri() : fallback;
    }
}
