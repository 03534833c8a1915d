package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** Turns a parsed inbound JSON object into a {@link ToolCallsEvent}, {@link ListToolsEvent} or {@link ControlEvent}. */
final class InboundDecoder {

    /** Where a call's id may be, in order of preference ({@code call_id}: OpenAI Responses API). */
    private static final String[] ID_KEYS = {"tool_call_id", "id", "call_id"};

    private static final String EXPECTED =
            "tool_calls, tool_call, list_tools, list_skills, cancel, approval_response or input_response";

    private final ObjectMapper mapper;
    private final Supplier<String> turnIds;

    InboundDecoder(ObjectMapper mapper, Supplier<String> turnIds) {
        this.mapper = mapper;
        this.turnIds = turnIds;
    }

    InboundEvent decode(ObjectNode root) {
        JsonNode sid = root.get("stream_id");
        String turnIdRaw = idText(root.get("turn_id"));
        if (sid == null || sid.isNull()) {
            throw new EventDecodeException("stream_id is missing: every event needs the conversation's stream_id",
                    null, turnIdRaw);
        }
        if (!sid.isTextual()) {
            throw new EventDecodeException("stream_id must be a string, got " + kind(sid), null, turnIdRaw);
        }
        String streamId = sid.textValue();
        if (streamId.isBlank()) {
            throw new EventDecodeException("stream_id must not be blank", null, turnIdRaw);
        }
        JsonNode typeNode = root.get("type");
        if (typeNode == null || typeNode.isNull()) {
            throw new EventDecodeException("type is missing (expected " + EXPECTED + ")",
                    streamId, turnIdRaw);
        }
        if (!typeNode.isTextual()) {
            throw new EventDecodeException("type must be a string, got " + kind(typeNode), streamId, turnIdRaw);
        }
        String type = typeNode.textValue();
        return switch (type) {
            case "tool_calls" -> decodeTurn(root, streamId, turnIdRaw);
            case "tool_call" -> decodeSingle(root, streamId, turnIdRaw);
            case "list_tools" -> decodeListTools(root, streamId, turnIdRaw);
            case "list_skills" -> SkillsRequestDecoder.decode(root, streamId, idText(root.get("request_id")),
                    decodeContext(root.get("context"), streamId, turnIdRaw), turnIdRaw);
            case "cancel" -> ControlDecoder.cancel(root, streamId, turnIdRaw);
            case "approval_response" -> ControlDecoder.approval(root, streamId, turnIdRaw);
            case "input_response" -> ControlDecoder.input(root, streamId, turnIdRaw);
            default -> throw new EventDecodeException("unknown event type '" + type
                    + "' (expected " + EXPECTED + ")", streamId, turnIdRaw);
        };
    }

    private ToolCallsEvent decodeTurn(ObjectNode root, String streamId, String turnIdRaw) {
        checkTurnId(root, streamId);
        JsonNode callsNode = root.get("calls");
        if (callsNode == null || callsNode.isNull()) {
            throw new EventDecodeException("calls is missing: a tool_calls event needs an array of calls",
                    streamId, turnIdRaw);
        }
        if (!callsNode.isArray()) {
            throw new EventDecodeException("calls must be an array, got " + kind(callsNode), streamId, turnIdRaw);
        }
        CallContext context = decodeContext(root.get("context"), streamId, turnIdRaw);
        String turnId = turnId(turnIdRaw);
        Set<String> explicitIds = new HashSet<>();
        for (int i = 0; i < callsNode.size(); i++) {
            JsonNode c = callsNode.get(i);
            if (c == null || !c.isObject()) {
                throw new EventDecodeException("calls[" + i + "] must be an object, got " + kind(c), streamId,
                        turnIdRaw);
            }
            String id = callId(c, "calls[" + i + "]", streamId, turnIdRaw);
            if (id != null && !explicitIds.add(id)) {
                throw new EventDecodeException("duplicate tool_call_id '" + id + "' in one turn (calls[" + i
                        + "]): every call of a turn needs its own id", streamId, turnIdRaw);
            }
        }
        List<ToolCall> calls = new ArrayList<>(callsNode.size());
        Set<String> used = new HashSet<>(explicitIds);
        for (int i = 0; i < callsNode.size(); i++) {
            calls.add(decodeCall(callsNode.get(i), "calls[" + i + "]", i, turnId, used, streamId, turnIdRaw));
        }
        return new ToolCallsEvent(streamId, turnId, calls, context, nullIfMissing(root.get("message")), trace(root));
    }

    private ToolCallsEvent decodeSingle(ObjectNode root, String streamId, String turnIdRaw) {
        checkTurnId(root, streamId);
        CallContext context = decodeContext(root.get("context"), streamId, turnIdRaw);
        String turnId = turnId(turnIdRaw);
        Set<String> used = new HashSet<>();
        ToolCall call = decodeCall(root, "the call", 0, turnId, used, streamId, turnIdRaw);
        return new ToolCallsEvent(streamId, turnId, List.of(call), context, nullIfMissing(root.get("message")),
                trace(root));
    }

    private ListToolsEvent decodeListTools(ObjectNode root, String streamId, String turnIdRaw) {
        JsonNode req = root.get("request_id");
        if (req != null && !req.isNull() && !req.isTextual() && !req.isIntegralNumber()) {
            throw new EventDecodeException("request_id must be a string, got " + kind(req), streamId, turnIdRaw);
        }
        JsonNode f = root.get("format");
        ListToolsEvent.Format format;
        if (f == null || f.isNull()) {
            format = ListToolsEvent.Format.OPENAI;
        } else if (!f.isTextual()) {
            throw new EventDecodeException("format must be a string (openai, anthropic or mcp), got " + kind(f),
                    streamId, turnIdRaw);
        } else {
            try {
                format = ListToolsEvent.Format.parse(f.textValue());
            } catch (IllegalArgumentException e) {
                throw new EventDecodeException("format must be openai, anthropic or mcp, got '" + f.textValue() + "'",
                        streamId, turnIdRaw);
            }
        }
        JsonNode text = root.get("text");
        if (text != null && !text.isNull() && !text.isTextual()) {
            throw new EventDecodeException("text must be a string (the conversation text), got " + kind(text),
                    streamId, turnIdRaw);
        }
        return new ListToolsEvent(streamId, idText(req), decodeContext(root.get("context"), streamId, turnIdRaw),
                format, text == null || text.isNull() ? null : text.textValue(), trace(root));
    }

    private ToolCall decodeCall(JsonNode c, String where, int index, String turnId, Set<String> used,
                                String streamId, String turnIdRaw) {
        String id = callId(c, where, streamId, turnIdRaw);
        if (id == null) {
            id = turnId + "-call_" + (index + 1);
            for (int n = 2; !used.add(id); n++) {
                id = turnId + "-call_" + (index + 1) + "_" + n;
            }
        }
        JsonNode source = c;
        String fnWhere = where;
        JsonNode fn = c.get("function");
        if (fn != null && !fn.isNull()) {
            if (!fn.isObject()) {
                throw new EventDecodeException(where + ".function must be an object with name and arguments, got "
                        + kind(fn), streamId, turnIdRaw);
            }
            source = fn;
            fnWhere = where + ".function";
        }
        JsonNode nameNode = source.get("name");
        if (nameNode != null && !nameNode.isNull() && !nameNode.isTextual()) {
            throw new EventDecodeException(fnWhere + ".name must be a string, got " + kind(nameNode), streamId,
                    turnIdRaw);
        }
        String name = nameNode == null || nameNode.isNull() ? "" : nameNode.textValue().strip();
        JsonNode args = source.get("arguments");
        if (args == null || args.isNull() || (args.isTextual() && args.textValue().isBlank())) {
            return ToolCall.of(id, name, mapper.createObjectNode());
        }
        if (args.isTextual()) {
            return ToolCall.ofJson(id, name, args.textValue());
        }
        // objects are the normal case; anything else is kept so the executor answers INVALID_ARGUMENTS
        return ToolCall.of(id, name, args);
    }

    /** The call's explicit id ({@code tool_call_id}, else {@code id}, else {@code call_id}), or null. */
    private static String callId(JsonNode c, String where, String streamId, String turnIdRaw) {
        for (String key : ID_KEYS) {
            JsonNode n = c.get(key);
            if (n == null || n.isNull()) {
                continue;
            }
            if (!n.isTextual() && !n.isIntegralNumber()) {
                throw new EventDecodeException(where + "." + key + " must be a string, got " + kind(n), streamId,
                        turnIdRaw);
            }
            String id = n.asText().strip();
            if (!id.isEmpty()) {
                return id;
            }
        }
        return null;
    }

    private CallContext decodeContext(JsonNode node, String streamId, String turnId) {
        if (node == null || node.isNull()) {
            return CallContext.EMPTY;
        }
        if (!node.isObject()) {
            throw new EventDecodeException("context must be an object, got " + kind(node), streamId, turnId);
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        String[] known = new String[8];
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            int slot = slot(e.getKey());
            if (slot < 0) {
                extra.put(e.getKey(), mapper.convertValue(e.getValue(), Object.class));
                continue;
            }
            JsonNode v = e.getValue();
            if (v.isContainerNode()) {
                throw new EventDecodeException("context." + e.getKey() + " must be a string, got " + kind(v),
                        streamId, turnId);
            }
            known[slot] = v.isNull() ? null : v.asText();
        }
        return CallContext.builder().userId(known[0]).groupId(known[1]).platform(known[2]).permission(known[3])
                .channel(known[4]).provider(known[5]).model(known[6]).agentId(known[7]).putAll(extra).build();
    }

    private static int slot(String key) {
        return switch (key) {
            case "user_id" -> 0;
            case "group_id" -> 1;
            case "platform" -> 2;
            case "permission" -> 3;
            case "channel" -> 4;
            case "provider" -> 5;
            case "model" -> 6;
            case "agent_id" -> 7;
            default -> -1;
        };
    }

    private static void checkTurnId(ObjectNode root, String streamId) {
        JsonNode t = root.get("turn_id");
        if (t != null && !t.isNull() && !t.isTextual() && !t.isIntegralNumber()) {
            throw new EventDecodeException("turn_id must be a string, got " + kind(t), streamId, null);
        }
    }

    private String turnId(String raw) {
        return raw == null || raw.isBlank() ? turnIds.get() : raw;
    }

    /** The text of a string or integer id, else {@code null}. */
    private static String idText(JsonNode n) {
        if (n == null || !(n.isTextual() || n.isIntegralNumber())) {
            return null;
        }
        String s = n.asText().strip();
        return s.isEmpty() ? null : s;
    }

    /** The event's {@code traceparent}/{@code tracestate}, or null when absent or invalid (never an error). */
    static TraceContext trace(ObjectNode root) {
        JsonNode tp = root.get("traceparent");
        if (tp == null || !tp.isTextual()) {
            return null;
        }
        JsonNode ts = root.get("tracestate");
        return TraceContext.parse(tp.textValue(), ts != null && ts.isTextual() ? ts.textValue() : null);
    }

    private static JsonNode nullIfMissing(JsonNode n) {
        return n == null || n.isNull() ? null : n;
    }

    static String kind(JsonNode n) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return "null";
        }
        if (n.isObject()) {
            return "an object";
        }
        if (n.isArray()) {
            return "an array";
        }
        if (n.isTextual()) {
            return "a string";
        }
        if (n.isNumber()) {
            return "a number";
        }
        if (n.isBoolean()) {
            return "a boolean";
        }
        return n.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    }
}
