package dev.toolbus.tool;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What a tool returns: text for the model, optional structured {@code data}, an error flag,
 * metadata, and media {@link ContentItem content items}.
 *
 * <p>A result with {@link #isError()} is a failure the model should read and act on (it is reported
 * with code {@code TOOL_ERROR}); a handler that throws is reported as {@code TOOL_FAILED}.
 * Values of foreign tools (maps, lists, strings, {@code null}) become results through
 * {@code dev.toolbus.result.ForeignValues.toResult}, as MaiBot's host maps them.
 */
public final class ToolResult {

    private static final ToolResult EMPTY = new ToolResult("", null, false, "", Map.of(), List.of());

    private final String content;
    private final Object data;
    private final boolean error;
    private final String errorMessage;
    private final Map<String, Object> metadata;
    private final List<ContentItem> contentItems;

    private ToolResult(String content, Object data, boolean error, String errorMessage,
                       Map<String, Object> metadata, List<ContentItem> contentItems) {
        this.content = content;
        this.data = data;
        this.error = error;
        this.errorMessage = errorMessage;
        this.metadata = metadata;
        this.contentItems = contentItems;
    }

    /** A successful text result. */
    public static ToolResult text(String content) {
        return new ToolResult(Objects.requireNonNull(content, "content"), null, false, "", Map.of(), List.of());
    }

    /** A successful result with no text (the model reads a "succeeded" line). */
    public static ToolResult empty() {
        return EMPTY;
    }

    /** An error result the tool chose to return; the model reads {@code message}. */
    public static ToolResult error(String message) {
        Objects.requireNonNull(message, "message");
        return new ToolResult(message, null, true, message, Map.of(), List.of());
    }

    /**
     * Deterministic key/value text, like the Go seed's {@code FormatToolResult}: the title, then one
     * {@code key: value} line per entry, keys sorted.
     */
    public static String format(String title, Map<String, ?> fields) {
        StringBuilder sb = new StringBuilder(title == null ? "" : title);
        for (Map.Entry<String, ?> e : new TreeMap<>(fields).entrySet()) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            sb.append(e.getKey()).append(": ").append(e.getValue());
        }
        return sb.toString();
    }

    /** A numbered list, like the Go seed's {@code FormatListResult}; {@code (no items)} when empty. */
    public static String formatList(List<?> items) {
        if (items == null || items.isEmpty()) {
            return "(no items)";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                sb.append('\n');
            }
            sb.append(i + 1).append(". ").append(items.get(i));
        }
        return sb.toString();
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** The text for the model, never {@code null} (may be empty). */
    public String content() {
        return content;
    }

    /** Structured data (a Jackson node or a JSON-serializable value), or {@code null}. */
    public Object data() {
        return data;
    }

    /** Whether the tool reported a failure. */
    public boolean isError() {
        return error;
    }

    /** The failure message of an error result, or empty. */
    public String errorMessage() {
        return errorMessage;
    }

    /** Metadata for renderers and logs; not shown to the model. */
    public Map<String, Object> metadata() {
        return metadata;
    }

    /** Text and media items; media are split into follow-up user messages. */
    public List<ContentItem> contentItems() {
        return contentItems;
    }

    /** A builder initialised from this result. */
    public Builder toBuilder() {
        Builder b = new Builder().content(content).data(data).errorMessage(errorMessage);
        b.error = error;
        b.metadata.putAll(metadata);
        b.items.addAll(contentItems);
        return b;
    }

    @Override
    public String toString() {
        return "ToolResult{error=" + error + ", content=" + content + ", items=" + contentItems.size() + '}';
    }

    /** Builder of {@link ToolResult}, like the Go seed's result builder. */
    public static final class Builder {
        private String content = "";
        private Object data;
        private boolean error;
        private String errorMessage = "";
        private final Map<String, Object> metadata = new LinkedHashMap<>();
        private final List<ContentItem> items = new ArrayList<>();

        private Builder() {
        }

        public Builder content(String content) {
            this.content = Objects.requireNonNullElse(content, "");
            return this;
        }

        public Builder data(Object data) {
            this.data = data;
            return this;
        }

        /** Marks the result as an error with this message. */
        public Builder error(String message) {
            this.error = true;
            this.errorMessage = Objects.requireNonNullElse(message, "");
            return this;
        }

        public Builder errorMessage(String message) {
            this.errorMessage = Objects.requireNonNullElse(message, "");
            return this;
        }

        public Builder success(boolean success) {
            this.error = !success;
            return this;
        }

        public Builder metadata(String key, Object value) {
            this.metadata.put(key, value);
            return this;
        }

        public Builder item(ContentItem item) {
            this.items.add(Objects.requireNonNull(item, "item"));
            return this;
        }

        public Builder items(List<ContentItem> items) {
            this.items.addAll(items);
            return this;
        }

        public ToolResult build() {
            return new ToolResult(content, data, error, errorMessage,
                    metadata.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(metadata)),
                    items.isEmpty() ? List.of() : List.copyOf(items));
        }
    }
}
