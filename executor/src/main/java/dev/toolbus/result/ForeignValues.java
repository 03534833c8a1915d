package dev.toolbus.result;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolResult;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Maps values returned by foreign tools (plugins, stdio processes, scripts) to {@link ToolResult}s,
 * as MaiBot's host maps a plugin handler's return value.
 *
 * <ul>
 *   <li>A map (Java {@link Map} or Jackson object): success is Python {@code bool(d.get("success", True))};
 *       content is {@code content}, else {@code message}, stripped; on failure the error message is
 *       {@code error}, else {@code message}, else a default; the map itself is the structured data;
 *       {@code content_items} are parsed as the host does (non-maps skipped, {@code content_type}
 *       beats {@code type}, unknown types read as {@code unknown}, values through Python {@code str}).</li>
 *   <li>A non-empty list whose first element is a boolean: {@code (success, text)}; the text is the
 *       content on success and the error message on failure; the list is the structured data.</li>
 *   <li>{@code null}: an empty success.</li>
 *   <li>Anything else: success with its text (Python {@code str}, stripped); any other list is written
 *       as JSON ({@code ["a", "b"]}), never as a Python repr.</li>
 * </ul>
 *
 * <p>The text the model finally reads follows from the result (see {@link MediaSplitter}): a map
 * without content reads as its JSON, so a failed map shows its {@code error} inside that JSON.
 */
public final class ForeignValues {

    private ForeignValues() {
    }

    /**
     * Maps a JSON-like value (Map, List, String, Number, Boolean, Jackson node, {@code null}), with
     * English default texts.
     *
     * @param value the value a tool returned
     * @return the result
     */
    public static ToolResult toResult(Object value) {
        return toResult(value, DescriptionLocale.EN);
    }

    /**
     * Maps a JSON-like value; the locale chooses the error message of a failed map that names none
     * ({@code 插件工具执行失败} / {@code Plugin tool execution failed}).
     *
     * @param value the value a tool returned
     * @param locale the locale of generated text
     * @return the result
     */
    public static ToolResult toResult(Object value, DescriptionLocale locale) {
        Object v = PyValues.unwrap(value);
        if (v == null) {
            return ToolResult.empty();
        }
        if (PyValues.isMap(v)) {
            return fromMap(v, Texts.of(locale));
        }
        if (PyValues.isList(v) && PyValues.first(v) instanceof Boolean success) {
            String text = PyValues.strip(size(v) > 1 ? PyValues.str(PyValues.at(v, 1)) : "");
            return ToolResult.builder().success(success).data(v)
                    .content(success ? text : "").errorMessage(success ? "" : text).build();
        }
        String text = PyValues.isList(v) ? HistoryText.dataText(v) : PyValues.str(v);
        return ToolResult.builder().content(PyValues.strip(text)).data(v).build();
    }

    private static ToolResult fromMap(Object d, Texts texts) {
        boolean success = !PyValues.has(d, "success") || PyValues.truthy(PyValues.get(d, "success"));
        Object content = PyValues.has(d, "content") ? PyValues.get(d, "content") : PyValues.get(d, "message");
        ToolResult.Builder b = ToolResult.builder()
                .success(success)
                .content(PyValues.strip(PyValues.strOrEmpty(content)))
                .data(d)
                .items(contentItems(PyValues.get(d, "content_items")));
        if (!success) {
            Object error = PyValues.has(d, "error") ? PyValues.get(d, "error")
                    : PyValues.has(d, "message") ? PyValues.get(d, "message") : texts.foreignToolFailed();
            b.errorMessage(PyValues.strip(PyValues.strOrEmpty(error)));
        }
        return b.build();
    }

    /** The host's {@code content_items} parsing; anything but a list gives no items. */
    static List<ContentItem> contentItems(Object raw) {
        if (raw == null || !PyValues.isList(raw)) {
            return List.of();
        }
        List<ContentItem> items = new ArrayList<>();
        for (Object element : PyValues.elements(raw)) {
            Object e = PyValues.unwrap(element);
            if (e != null && PyValues.isMap(e)) {
                items.add(item(e));
            }
        }
        return items;
    }

    private static ContentItem item(Object e) {
        Object type = PyValues.get(e, "content_type");
        if (!PyValues.truthy(type)) {
            type = PyValues.get(e, "type");
        }
        String t = PyValues.truthy(type) ? PyValues.strip(PyValues.str(type)) : ItemTypes.UNKNOWN;
        Object data = PyValues.get(e, "data");
        if (!PyValues.truthy(data)) {
            data = PyValues.get(e, "base64");
        }
        Object metadata = PyValues.get(e, "metadata");
        return ContentItem.builder(ItemTypes.normalise(t)).text(field(e, "text")).data(PyValues.strOrEmpty(data))
                .mimeType(field(e, "mime_type")).uri(field(e, "uri")).name(field(e, "name"))
                .description(field(e, "description"))
                .metadata(metadata != null && PyValues.isMap(metadata) ? metadataMap(metadata) : null).build();
    }

    private static String field(Object map, String key) {
        return PyValues.strOrEmpty(PyValues.get(map, key));
    }

    /** Metadata as a Java map; Jackson values become Java values, so both inputs give equal items. */
    private static Map<String, Object> metadataMap(Object m) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (m instanceof Map<?, ?> map) {
            map.forEach((k, v) -> out.put(String.valueOf(k), javaValue(v)));
        } else {
            for (Iterator<Map.Entry<String, JsonNode>> it = ((JsonNode) m).fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> f = it.next();
                out.put(f.getKey(), javaValue(f.getValue()));
            }
        }
        return out;
    }

    private static Object javaValue(Object value) {
        Object v = PyValues.unwrap(value);
        if (v instanceof JsonNode n && n.isObject()) {
            return metadataMap(n);
        }
        if (v instanceof JsonNode n) {
            List<Object> list = new ArrayList<>(n.size());
            n.forEach(e -> list.add(javaValue(e)));
            return list;
        }
        return v;
    }

    private static int size(Object list) {
        return list instanceof java.util.Collection<?> c ? c.size() : ((JsonNode) list).size();
    }
}
