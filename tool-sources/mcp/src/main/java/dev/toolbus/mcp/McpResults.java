package dev.toolbus.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Conversions between MCP tool results and toolbus results and events: the client turns an external
 * server's {@code CallToolResult} into a {@link ToolResult}; the server turns the events of a one-call
 * turn into the {@code CallToolResult} it answers.
 *
 * <pre>{@code
 * ToolResult r = McpResults.toToolResult("files", "read_file", callToolResult, mapper);
 * McpSchema.CallToolResult answer = McpResults.toCallToolResult(executor.execute(turn).collectList().block(), mapper);
 * }</pre>
 */
public final class McpResults {

    /**
     * Metadata key of a result that stands for a JSON-RPC error ({@code {"code": n, "message": "…"}}):
     * see {@link #jsonRpcError(int, String)}.
     */
    public static final String JSONRPC_ERROR = "dev.toolbus/jsonrpc_error";

    private McpResults() {
    }

    /**
     * A tool result that the MCP server answers as a JSON-RPC error rather than as a tool error (a
     * task of it ends {@code failed} with this error). For protocol-level failures only: a tool that
     * failed at its work returns an ordinary error result ({@code isError}).
     *
     * @param code the JSON-RPC error code (for example -32603)
     * @param message its message
     */
    public static ToolResult jsonRpcError(int code, String message) {
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("code", code);
        e.put("message", message);
        return ToolResult.builder().error(message).metadata(JSONRPC_ERROR, e).build();
    }

    /** The JSON-RPC error object a result's metadata stands for ({@link #jsonRpcError(int, String)}), or {@code null}. */
    public static com.fasterxml.jackson.databind.node.ObjectNode jsonRpcError(Map<String, Object> metadata) {
        Object e = metadata == null ? null : metadata.get(JSONRPC_ERROR);
        if (!(e instanceof Map<?, ?> m) || !(m.get("code") instanceof Number code)) {
            return null;
        }
        var node = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
        node.put("code", code.intValue());
        node.put("message", String.valueOf(m.get("message")));
        return node;
    }

    /**
     * An MCP result as a toolbus result: text content joined into the tool text; images, audio,
     * resource links and embedded resources as media items (so the executor splits them into
     * follow-up messages); {@code isError} as an error result; {@code structuredContent} as data.
     */
    public static ToolResult toToolResult(String server, String tool, McpSchema.CallToolResult r, ObjectMapper mapper) {
        StringBuilder text = new StringBuilder();
        List<ContentItem> items = new ArrayList<>();
        List<McpSchema.Content> content = r.content() == null ? List.of() : r.content();
        for (McpSchema.Content c : content) {
            if (c instanceof McpSchema.TextContent t) {
                if (t.text() != null && !t.text().isEmpty()) {
                    if (text.length() > 0) {
                        text.append('\n');
                    }
                    text.append(t.text());
                }
            } else if (c instanceof McpSchema.ImageContent i) {
                items.add(ContentItem.builder("image").data(i.data()).mimeType(i.mimeType()).build());
            } else if (c instanceof McpSchema.AudioContent a) {
                items.add(ContentItem.builder("audio").data(a.data()).mimeType(a.mimeType()).build());
            } else if (c instanceof McpSchema.ResourceLink l) {
                Map<String, Object> meta = new LinkedHashMap<>();
                if (l.title() != null) {
                    meta.put("title", l.title());
                }
                if (l.size() != null) {
                    meta.put("size", l.size());
                }
                items.add(ContentItem.builder("resource_link").mimeType(l.mimeType()).uri(l.uri()).name(l.name())
                        .description(l.description()).metadata(meta).build());
            } else if (c instanceof McpSchema.EmbeddedResource e) {
                items.add(resource(e.resource()));
            }
        }
        ToolResult.Builder b = ToolResult.builder().content(text.toString()).items(items)
                .metadata("mcp_server", server);
        if (r.structuredContent() != null) {
            b.data(mapper.valueToTree(r.structuredContent()));
        }
        if (Boolean.TRUE.equals(r.isError())) {
            b.error(text.length() > 0 ? text.toString() : "MCP tool '" + tool + "' on server '" + server + "' reported an error");
        }
        return b.build();
    }

    private static ContentItem resource(McpSchema.ResourceContents rc) {
        if (rc instanceof McpSchema.TextResourceContents t) {
            return ContentItem.builder("resource").text(t.text()).mimeType(t.mimeType()).uri(t.uri())
                    .name(name(t.uri())).build();
        }
        if (rc instanceof McpSchema.BlobResourceContents b) {
            return ContentItem.builder("resource").data(b.blob()).mimeType(b.mimeType()).uri(b.uri())
                    .name(name(b.uri())).build();
        }
        return ContentItem.builder("resource").mimeType(rc == null ? "" : rc.mimeType())
                .uri(rc == null ? "" : rc.uri()).build();
    }

    private static String name(String uri) {
        if (uri == null) {
            return "";
        }
        int slash = uri.lastIndexOf('/');
        return slash >= 0 && slash < uri.length() - 1 ? uri.substring(slash + 1) : "";
    }

    /**
     * The events of a one-call turn as an MCP result: the tool text as text content, then each media
     * follow-up as MCP content in item order (image, audio, embedded resource, resource link; a
     * binary as an embedded blob), {@code is_error} as {@code isError}, object {@code data} as
     * structured content.
     */
    public static McpSchema.CallToolResult toCallToolResult(List<OutboundEvent> events, ObjectMapper mapper) {
        ToolResultEvent result = null;
        List<McpSchema.Content> media = new ArrayList<>();
        for (OutboundEvent e : events) {
            if (e instanceof ToolResultEvent r && result == null) {
                result = r;
            } else if (e instanceof UserMessageEvent m) {
                McpSchema.Content c = media(m);
                if (c != null) {
                    media.add(c);
                }
            }
        }
        if (result == null) {
            return McpSchema.CallToolResult.builder().addTextContent("the call produced no result").isError(true)
                    .build();
        }
        String text = result.content();
        if (text.isEmpty() && result.error() != null) {
            text = result.error().message();
        }
        McpSchema.CallToolResult.Builder b = McpSchema.CallToolResult.builder().addTextContent(text);
        media.forEach(b::addContent);
        b.isError(result.isError());
        Object data = result.data();
        if (data instanceof Map<?, ?> || data instanceof JsonNode n && n.isObject()) {
            b.structuredContent(mapper.convertValue(data, Map.class));
        }
        if (result.error() != null) {
            b.meta(Map.of("dev.toolbus/error_code", result.error().code().name()));
        }
        return b.build();
    }

    /**
     * One media follow-up as MCP content: from the tool's own item when the event carries it (in
     * process), else from its image part; {@code null} when there is nothing but the text header.
     */
    public static McpSchema.Content media(UserMessageEvent m) {
        ContentPart image = null;
        for (ContentPart p : m.content()) {
            if ("image".equals(p.type()) && p.data() != null) {
                image = p;
            }
        }
        if (image != null) {
            return McpSchema.ImageContent.builder(image.data(), image.mimeType()).build();
        }
        ContentPart item = m.item();
        if (item == null) {
            return null;
        }
        String mime = item.mimeType();
        String uri = item.uri() == null ? "toolbus://media/" + m.messageId() : item.uri();
        switch (item.type()) {
            case "audio":
                return item.data() == null ? null
                        : McpSchema.AudioContent.builder(item.data(), mime == null ? "application/octet-stream" : mime)
                                .build();
            case "resource":
                if (item.data() != null) {
                    return McpSchema.EmbeddedResource.builder(new McpSchema.BlobResourceContents(uri, mime, item.data())).build();
                }
                return McpSchema.EmbeddedResource.builder(new McpSchema.TextResourceContents(uri, mime,
                        item.text() == null ? "" : item.text())).build();
            case "resource_link":
                if (item.uri() == null) {
                    return null;
                }
                return McpSchema.ResourceLink.builder().uri(item.uri())
                        .name(item.name() == null ? item.uri() : item.name())
                        .description(item.description()).mimeType(mime).build();
            case "binary":
                return item.data() == null ? null
                        : McpSchema.EmbeddedResource.builder(new McpSchema.BlobResourceContents(uri, mime, item.data())).build();
            default:
                return null;
        }
    }
}
