package dev.toolbus.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Encodes and decodes wire events (JSON, snake_case). Decoding is lenient where peers differ
 * ({@code arguments} as object or string, the OpenAI {@code tool_calls} item shape, a missing
 * {@code turn_id}) and strict where it matters (a JSON object with a {@code stream_id} and a known
 * {@code type}); everything else raises {@link EventDecodeException}.
 */
public final class EventCodec {

    /** Default bound of one encoded event: 1 MiB. */
    public static final int DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

    private static final EventCodec DEFAULT = new EventCodec(DEFAULT_MAX_EVENT_BYTES,
            () -> "turn-" + UUID.randomUUID());

    private final ObjectMapper mapper = Json.mapper();
    private final int maxEventBytes;
    private final Supplier<String> turnIds;

    private EventCodec(int maxEventBytes, Supplier<String> turnIds) {
        if (maxEventBytes < 1024) {
            throw new IllegalArgumentException("maxEventBytes must be at least 1024");
        }
        this.maxEventBytes = maxEventBytes;
        this.turnIds = Objects.requireNonNull(turnIds, "turnIds");
    }

    /** The codec with a 1 MiB bound and random turn ids. */
    public static EventCodec defaults() {
        return DEFAULT;
    }

    /**
     * A codec with its own bound and turn-id generator.
     *
     * @param maxEventBytes the largest accepted input, in UTF-8 bytes (at least 1024)
     * @param turnIds generates a {@code turn_id} for turns that arrive without one
     */
    public static EventCodec create(int maxEventBytes, Supplier<String> turnIds) {
        return new EventCodec(maxEventBytes, turnIds);
    }

    /** The largest accepted input, in bytes. */
    public int maxEventBytes() {
        return maxEventBytes;
    }

    /** Decodes one inbound event from UTF-8 bytes. */
    public InboundEvent decode(byte[] utf8) {
        if (utf8.length > maxEventBytes) {
            throw new EventDecodeException("event of " + utf8.length + " bytes is above the " + maxEventBytes
                    + "-byte limit", null, null);
        }
        return decode(new String(utf8, StandardCharsets.UTF_8));
    }

    /**
     * Decodes one inbound event.
     *
     * @throws EventDecodeException when the input is not a valid event
     */
    public InboundEvent decode(String json) {
        if (json.length() > maxEventBytes || utf8Length(json) > maxEventBytes) {
            throw new EventDecodeException("event of " + utf8Length(json) + " bytes is above the " + maxEventBytes
                    + "-byte limit", sniffStreamId(json), null);
        }
        JsonNode root;
        try {
            root = mapper.readTree(json);
        } catch (JsonProcessingException e) {
            throw new EventDecodeException("malformed JSON: " + e.getOriginalMessage(), null, null);
        }
        if (root == null || !root.isObject()) {
            throw new EventDecodeException("an event must be a JSON object", null, null);
        }
        return decode((ObjectNode) root);
    }

    /** Decodes one inbound event from a parsed JSON object. */
    public InboundEvent decode(ObjectNode root) {
        JsonNode sid = root.get("stream_id");
        String turnIdRaw = text(root.get("turn_id"));
        if (sid == null || !sid.isTextual() || sid.textValue().isBlank()) {
            throw new EventDecodeException("stream_id is missing or not a non-empty string", null, turnIdRaw);
        }
        String streamId = sid.textValue();
        String type = text(root.get("type"));
        if (type == null) {
            throw new EventDecodeException("type is missing", streamId, turnIdRaw);
        }
        return switch (type) {
            case "tool_calls" -> decodeTurn(root, streamId, turnIdRaw);
            case "tool_call" -> decodeSingle(root, streamId, turnIdRaw);
            case "list_tools" -> decodeListTools(root, streamId);
            default -> throw new EventDecodeException("unknown event type '" + type
                    + "' (expected tool_calls, tool_call or list_tools)", streamId, turnIdRaw);
        };
    }

    private ToolCallsEvent decodeTurn(ObjectNode root, String streamId, String turnIdRaw) {
        JsonNode callsNode = root.get("calls");
        if (callsNode == null || !callsNode.isArray()) {
            throw new EventDecodeException("calls must be an array", streamId, turnIdRaw);
        }
        List<ToolCall> calls = new ArrayList<>(callsNode.size());
        int i = 0;
        for (JsonNode c : callsNode) {
            calls.add(decodeCall(c, i++, streamId, turnIdRaw));
        }
        checkUniqueIds(calls, streamId, turnIdRaw);
        return new ToolCallsEvent(streamId, turnId(turnIdRaw), calls, decodeContext(root.get("context"), streamId,
                turnIdRaw), nullIfMissing(root.get("message")));
    }

    private ToolCallsEvent decodeSingle(ObjectNode root, String streamId, String turnIdRaw) {
        ToolCall call = decodeCall(root, 0, streamId, turnIdRaw);
        return new ToolCallsEvent(streamId, turnId(turnIdRaw), List.of(call),
                decodeContext(root.get("context"), streamId, turnIdRaw), nullIfMissing(root.get("message")));
    }

    private ListToolsEvent decodeListTools(ObjectNode root, String streamId) {
        ListToolsEvent.Format format;
        String f = text(root.get("format"));
        try {
            format = ListToolsEvent.Format.parse(f);
        } catch (IllegalArgumentException e) {
            throw new EventDecodeException("format must be openai, anthropic or mcp, got '" + f + "'", streamId, null);
        }
        return new ListToolsEvent(streamId, text(root.get("request_id")),
                decodeContext(root.get("context"), streamId, null), format);
    }

    private ToolCall decodeCall(JsonNode c, int index, String streamId, String turnId) {
        if (c == null || !c.isObject()) {
            throw new EventDecodeException("calls[" + index + "] must be an object", streamId, turnId);
        }
        String id = text(c.get("tool_call_id"));
        if (id == null) {
            id = text(c.get("id"));
        }
        if (id == null || id.isBlank()) {
            id = "call_" + (index + 1);
        }
        JsonNode fn = c.get("function");
        JsonNode source = fn != null && fn.isObject() ? fn : c;
        String name = text(source.get("name"));
        JsonNode args = source.get("arguments");
        if (args == null || args.isNull() || args.isMissingNode()) {
            return ToolCall.of(id, name, mapper.createObjectNode());
        }
        if (args.isTextual()) {
            return ToolCall.ofJson(id, name, args.textValue());
        }
        return ToolCall.of(id, name, args);
    }

    private static void checkUniqueIds(List<ToolCall> calls, String streamId, String turnId) {
        if (calls.size() < 2) {
            return;
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (ToolCall c : calls) {
            if (!seen.add(c.toolCallId())) {
                throw new EventDecodeException("duplicate tool_call_id '" + c.toolCallId() + "' in one turn",
                        streamId, turnId);
            }
        }
    }

    private CallContext decodeContext(JsonNode node, String streamId, String turnId) {
        if (node == null || node.isNull()) {
            return CallContext.EMPTY;
        }
        if (!node.isObject()) {
            throw new EventDecodeException("context must be an object", streamId, turnId);
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        String user = null, group = null, platform = null, permission = null, channel = null, provider = null,
                model = null, agent = null;
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            String v = scalarText(e.getValue());
            switch (e.getKey()) {
                case "user_id" -> user = v;
                case "group_id" -> group = v;
                case "platform" -> platform = v;
                case "permission" -> permission = v;
                case "channel" -> channel = v;
                case "provider" -> provider = v;
                case "model" -> model = v;
                case "agent_id" -> agent = v;
                default -> extra.put(e.getKey(), mapper.convertValue(e.getValue(), Object.class));
            }
        }
        return new CallContext(user, group, platform, permission, channel, provider, model, agent, extra);
    }

    private String turnId(String raw) {
        return raw == null || raw.isBlank() ? turnIds.get() : raw;
    }

    /** Encodes an outbound event as one line of JSON (no line breaks). */
    public String encode(OutboundEvent event) {
        try {
            return mapper.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + event.type() + ": " + e.getOriginalMessage(), e);
        }
    }

    /** Encodes an inbound event (for clients and tests). */
    public String encode(InboundEvent event) {
        ObjectNode n = mapper.createObjectNode();
        if (event instanceof ToolCallsEvent t) {
            n.put("type", "tool_calls");
            n.put("stream_id", t.streamId());
            n.put("turn_id", t.turnId());
            var calls = n.putArray("calls");
            for (ToolCall c : t.calls()) {
                ObjectNode cn = calls.addObject();
                cn.put("tool_call_id", c.toolCallId());
                cn.put("name", c.name());
                if (c.arguments() != null) {
                    cn.set("arguments", c.arguments());
                } else {
                    cn.put("arguments", c.argumentsJson());
                }
            }
            n.set("context", mapper.valueToTree(t.context()));
            if (t.message() != null) {
                n.set("message", t.message());
            }
        } else if (event instanceof ListToolsEvent l) {
            n.put("type", "list_tools");
            n.put("stream_id", l.streamId());
            n.put("request_id", l.requestId());
            n.set("context", mapper.valueToTree(l.context()));
            n.put("format", l.format().wireName());
        }
        return n.toString();
    }

    /**
     * Decodes an outbound event (for clients of toolbus and tests).
     *
     * @throws EventDecodeException when the input is not a known outbound event
     */
    public OutboundEvent decodeOutbound(String json) {
        try {
            JsonNode root = mapper.readTree(json);
            String type = text(root.get("type"));
            Class<? extends OutboundEvent> cls = switch (type == null ? "" : type) {
                case "tool_result" -> ToolResultEvent.class;
                case "user_message" -> UserMessageEvent.class;
                case "turn_completed" -> TurnCompletedEvent.class;
                case "tools" -> ToolsEvent.class;
                case "error" -> ErrorEvent.class;
                default -> throw new EventDecodeException("unknown outbound type '" + type + "'", null, null);
            };
            return mapper.treeToValue(root, cls);
        } catch (JsonProcessingException e) {
            throw new EventDecodeException("malformed JSON: " + e.getOriginalMessage(), null, null);
        }
    }

    private static String text(JsonNode n) {
        return n == null || n.isNull() || !n.isValueNode() ? null : n.asText();
    }

    private static String scalarText(JsonNode n) {
        if (n == null || n.isNull()) {
            return null;
        }
        return n.isValueNode() ? n.asText() : n.toString();
    }

    private static JsonNode nullIfMissing(JsonNode n) {
        return n == null || n.isNull() ? null : n;
    }

    private static String sniffStreamId(String json) {
        int i = json.indexOf("\"stream_id\"");
        if (i < 0 || i > 4096) {
            return null;
        }
        int colon = json.indexOf(':', i + 11);
        int q1 = colon < 0 ? -1 : json.indexOf('"', colon + 1);
        int q2 = q1 < 0 ? -1 : json.indexOf('"', q1 + 1);
        if (q2 < 0 || q2 - q1 > 512) {
            return null;
        }
        String v = json.substring(q1 + 1, q2);
        return v.isBlank() || v.indexOf('\\') >= 0 ? null : v;
    }

    private static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch < 0x80) {
                n++;
            } else if (ch < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(ch)) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
