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
        int n = callsNode.size();
        // a turn of one call cannot repeat an id: no set for it (the common turn)
        Set<String> explicitIds = n > 1 ? new HashSet<>() : null;
        String onlyId = null;
        for (int i = 0; i < n; i++) {
            JsonNode c = callsNode.get(i);
            if (c == null || !c.isObject()) {
                throw new EventDecodeException(where(i) + " must be an object, got " + kind(c), streamId,
                        turnIdRaw);
            }
            String id = callId(c, i, streamId, turnIdRaw);
            if (explicitIds == null) {
                onlyId = id;
            } else if (id != null && !explicitIds.add(id)) {
                throw new EventDecodeException("duplicate tool_call_id '" + id + "' in one turn (" + where(i)
                        + "): every call of a turn needs its own id", streamId, turnIdRaw);
            }
        }
        List<ToolCall> calls = new ArrayList<>(n);
        Set<String> used = explicitIds != null ? new HashSet<>(explicitIds) : null;
        for (int i = 0; i < n; i++) {
            JsonNode c = callsNode.get(i);
            String id = explicitIds == null ? onlyId : callId(c, i, streamId, turnIdRaw);
            calls.add(decodeCall(c, id, i, turnId, used, streamId, turnIdRaw));
        }
        return new ToolCallsEvent(streamId, turnId, calls, context, nullIfMissing(root.get("message")), trace(root));
    }

    private ToolCallsEvent decodeSingle(ObjectNode root, String streamId, String turnIdRaw) {
        checkTurnId(root, streamId);
        CallContext context = decodeContext(root.get("context"), streamId, turnIdRaw);
        String turnId = turnId(turnIdRaw);
        ToolCall call = decodeCall(root, callId(root, -1, streamId, turnIdRaw), -1, turnId, null, streamId, turnIdRaw);
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

    /**
     * One call; {@code index} is its place in {@code calls}, or -1 for a single-call event. {@code id} is
     * its explicit id or null; {@code used} holds the turn's ids taken so far (null when the turn has one
     * call, so a generated id cannot clash).
     */
    private ToolCall decodeCall(JsonNode c, String id, int index, String turnId, Set<String> used,
                                String streamId, String turnIdRaw) {
        if (id == null) {
            int number = Math.max(index, 0) + 1;
            id = turnId + "-call_" + number;
            for (int n = 2; used != null && !used.add(id); n++) {
                id = turnId + "-call_" + number + "_" + n;
            }
        }
        JsonNode source = c;
        boolean inFunction = false;
        JsonNode fn = c.get("function");
        if (fn != null && !fn.isNull()) {
            if (!fn.isObject()) {
                throw new EventDecodeException(where(index)
                        + ".function must be an object with name and arguments, got " + kind(fn), streamId, turnIdRaw);
            }
            source = fn;
            inFunction = true;
        }
        JsonNode nameNode = source.get("name");
        if (nameNode != null && !nameNode.isNull() && !nameNode.isTextual()) {
            throw new EventDecodeException(where(index) + (inFunction ? ".function" : "")
                    + ".name must be a string, got " + kind(nameNode), streamId, turnIdRaw);
        }
        String name = nameNode == null || nameNode.isNull() ? "" : nameNode.textValue().strip();
        Caller caller;
        try {
            caller = Caller.fromJson(c.get("caller"));
        } catch (IllegalArgumentException e) {
            throw new EventDecodeException(where(index) + "." + e.getMessage(), streamId, turnIdRaw);
        }
        JsonNode args = source.get("arguments");
        if (args == null || args.isNull() || (args.isTextual() && args.textValue().isBlank())) {
            return new ToolCall(id, name, mapper.createObjectNode(), null, caller);
        }
        if (args.isTextual()) {
            return new ToolCall(id, name, null, args.textValue(), caller);
        }
        // objects are the normal case; anything else is kept so the executor answers INVALID_ARGUMENTS
        return new ToolCall(id, name, args, null, caller);
    }

    /** The call's explicit id ({@code tool_call_id}, else {@code id}, else {@code call_id}), or null. */
    private static String callId(JsonNode c, int index, String streamId, String turnIdRaw) {
        for (String key : ID_KEYS) {
            JsonNode n = c.get(key);
            if (n == null || n.isNull()) {
                continue;
            }
            if (!n.isTextual() && !n.isIntegralNumber()) {
                throw new EventDecodeException(where(index) + "." + key + " must be a string, got " + kind(n),
                        streamId, turnIdRaw);
            }
            String id = n.asText().strip();
            if (!id.isEmpty()) {
                return id;
            }
        }
        return null;
    }

    /** A call's place in error messages: {@code calls[i]}, or {@code the call} for a single-call event. */
    private static String where(int index) {
        return index < 0 ? "the call" : "calls[" + index + "]";
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
