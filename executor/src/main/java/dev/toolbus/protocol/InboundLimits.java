package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Checks of a decoded inbound event beyond its shape: ids and names have sane lengths, and no string
 * holds a lone UTF-16 surrogate (a {@code \ud800} escape without its pair), which no UTF-8 output can
 * carry: such input is refused with {@code BAD_EVENT} rather than answered with a {@code ?} in its
 * place.
 */
final class InboundLimits {

    /** The longest {@code stream_id}, {@code turn_id}, {@code tool_call_id} or {@code request_id}. */
    static final int MAX_ID_CHARS = 256;
    /** The longest tool name. */
    static final int MAX_NAME_CHARS = 128;
    /** The longest known context field ({@code user_id}, {@code permission}, {@code agent_id}, …). */
    static final int MAX_CONTEXT_CHARS = 1024;

    private InboundLimits() {
    }

    /** Whether UTF-8 JSON text may hold a surrogate escape ({@code \}{@code uD800}–{@code \}{@code uDFFF}). */
    static boolean maySurrogate(byte[] b, int off, int len) {
        int end = off + len - 3;
        for (int i = off; i < end; i++) {
            if (b[i] == '\\' && b[i + 1] == 'u' && (b[i + 2] == 'd' || b[i + 2] == 'D')) {
                return true;
            }
        }
        return false;
    }

    /** Whether a JSON string may hold a surrogate, as a char or as an escape. */
    static boolean maySurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c) || c == '\\' && i + 2 < s.length() && s.charAt(i + 1) == 'u'
                    && (s.charAt(i + 2) == 'd' || s.charAt(i + 2) == 'D')) {
                return true;
            }
        }
        return false;
    }

    /** Refuses a tree with a lone surrogate in any key or string, naming where. */
    static void checkSurrogates(ObjectNode root) {
        String where = find(root, "");
        if (where != null) {
            throw new EventDecodeException("the event holds a lone UTF-16 surrogate (a \\ud800-\\udfff escape "
                    + "without its pair) at " + (where.isEmpty() ? "the top level" : where)
                    + ": it cannot be carried in UTF-8; send valid text", shortText(root.get("stream_id")),
                    shortText(root.get("turn_id")));
        }
    }

    /** The event, after checking the lengths of its ids, names and context fields. */
    static InboundEvent checkLengths(InboundEvent event) {
        if (event instanceof ToolCallsEvent t) {
            id("stream_id", t.streamId(), null, null);
            id("turn_id", t.turnId(), t.streamId(), null);
            for (int i = 0; i < t.calls().size(); i++) {
                ToolCall c = t.calls().get(i);
                // the field's name is made only when it is too long
                if (over(c.toolCallId(), MAX_ID_CHARS)) {
                    id("calls[" + i + "].tool_call_id", c.toolCallId(), t.streamId(), t.turnId());
                }
                if (over(c.name(), MAX_NAME_CHARS)) {
                    limit("calls[" + i + "].name", c.name(), MAX_NAME_CHARS, t.streamId(), t.turnId());
                }
            }
            context(t.context(), t.streamId(), t.turnId());
        } else if (event instanceof ListToolsEvent l) {
            id("stream_id", l.streamId(), null, null);
            id("request_id", l.requestId(), l.streamId(), null);
            context(l.context(), l.streamId(), null);
        } else if (event instanceof ListSkillsEvent l) {
            id("stream_id", l.streamId(), null, null);
            id("request_id", l.requestId(), l.streamId(), null);
            context(l.context(), l.streamId(), null);
            for (int i = 0; i < l.selected().size(); i++) {
                limit("selected[" + i + "]", l.selected().get(i), MAX_NAME_CHARS, l.streamId(), null);
            }
        } else if (event instanceof CancelEvent c) {
            id("stream_id", c.streamId(), null, null);
            id("turn_id", c.turnId(), c.streamId(), null);
            id("tool_call_id", c.toolCallId(), c.streamId(), c.turnId());
            limit("reason", c.reason(), MAX_CONTEXT_CHARS, c.streamId(), c.turnId());
        } else if (event instanceof ApprovalResponseEvent a) {
            id("stream_id", a.streamId(), null, null);
            id("approval_id", a.approvalId(), a.streamId(), null);
            id("tool_call_id", a.toolCallId(), a.streamId(), null);
        } else if (event instanceof InputResponseEvent r) {
            id("stream_id", r.streamId(), null, null);
            id("input_id", r.inputId(), r.streamId(), null);
        }
        return event;
    }

    private static void context(CallContext c, String streamId, String turnId) {
        if (c == CallContext.EMPTY) {
            return;
        }
        limit("context.user_id", c.userId(), MAX_CONTEXT_CHARS, streamId, turnId);
        limit("context.group_id", c.groupId(), MAX_CONTEXT_CHARS, streamId, turnId);
        limit("context.platform", c.platform(), MAX_CONTEXT_CHARS, streamId, turnId);
        limit("context.permission", c.permission(), MAX_CONTEXT_CHARS, streamId, turnId);
        limit("context.channel", c.channel(), MAX_CONTEXT_CHARS, streamId, turnId);
        limit("context.provider", c.provider(), MAX_CONTEXT_CHARS, streamId, turnId);
        limit("context.model", c.model(), MAX_CONTEXT_CHARS, streamId, turnId);
        limit("context.agent_id", c.agentId(), MAX_CONTEXT_CHARS, streamId, turnId);
    }

    private static boolean over(String value, int max) {
        return value != null && value.length() > max;
    }

    private static void id(String what, String value, String streamId, String turnId) {
        limit(what, value, MAX_ID_CHARS, streamId, turnId);
    }

    private static void limit(String what, String value, int max, String streamId, String turnId) {
        if (value != null && value.length() > max) {
            throw new EventDecodeException(what + " is " + value.length() + " characters long, above the limit of "
                    + max, streamId, turnId);
        }
    }

    private static String find(JsonNode n, String path) {
        if (n.isTextual()) {
            return lone(n.textValue()) ? path : null;
        }
        if (n.isObject()) {
            Iterator<Map.Entry<String, JsonNode>> it = n.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                String p = path.isEmpty() ? e.getKey() : path + "." + e.getKey();
                if (lone(e.getKey())) {
                    return shorten(p) + " (a key)";
                }
                String found = find(e.getValue(), p);
                if (found != null) {
                    return shorten(found);
                }
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                String found = find(n.get(i), path + "[" + i + "]");
                if (found != null) {
                    return shorten(found);
                }
            }
        }
        return null;
    }

    /** Whether {@code s} holds a surrogate that is not half of a pair. */
    static boolean lone(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return true;
            }
            if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    private static String shorten(String path) {
        return path.length() > 200 ? path.substring(0, 200) + "…" : path;
    }

    /** A string id short and clean enough to route an error by, else null. */
    private static String shortText(JsonNode n) {
        if (n == null || !(n.isTextual() || n.isIntegralNumber())) {
            return null;
        }
        String s = n.asText().strip();
        return s.isEmpty() || s.length() > MAX_ID_CHARS || lone(s) ? null : s;
    }
}
