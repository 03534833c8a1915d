package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/** Reads a {@code list_skills} event's own fields (the shared ones are read by {@link InboundDecoder}). */
final class SkillsRequestDecoder {

    private SkillsRequestDecoder() {
    }

    static ListSkillsEvent decode(ObjectNode root, String streamId, String requestId, CallContext context,
                                  String turnIdRaw) {
        JsonNode req = root.get("request_id");
        if (req != null && !req.isNull() && !req.isTextual() && !req.isIntegralNumber()) {
            throw bad("request_id must be a string, got " + InboundDecoder.kind(req), streamId, turnIdRaw);
        }
        JsonNode text = root.get("text");
        if (text != null && !text.isNull() && !text.isTextual()) {
            throw bad("text must be a string (the conversation text skills are matched against), got "
                    + InboundDecoder.kind(text), streamId, turnIdRaw);
        }
        return new ListSkillsEvent(streamId, requestId, context, text == null || text.isNull() ? null : text.textValue(),
                selected(root.get("selected"), streamId, turnIdRaw));
    }

    private static List<String> selected(JsonNode node, String streamId, String turnIdRaw) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw bad("selected must be an array of skill names, got " + InboundDecoder.kind(node), streamId,
                    turnIdRaw);
        }
        if (node.size() > ListSkillsEvent.MAX_SELECTED) {
            throw bad("selected names " + node.size() + " skills; at most " + ListSkillsEvent.MAX_SELECTED
                    + " may be selected at once", streamId, turnIdRaw);
        }
        List<String> out = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode n = node.get(i);
            if (!n.isTextual()) {
                throw bad("selected[" + i + "] must be a string (a skill name), got " + InboundDecoder.kind(n),
                        streamId, turnIdRaw);
            }
            out.add(n.textValue());
        }
        return out;
    }

    private static EventDecodeException bad(String message, String streamId, String turnIdRaw) {
        return new EventDecodeException(message, streamId, turnIdRaw);
    }
}
