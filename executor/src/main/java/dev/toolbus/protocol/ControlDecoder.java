package dev.toolbus.protocol;

import static dev.toolbus.protocol.InboundDecoder.kind;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** Decodes the inbound control events: {@code cancel}, {@code approval_response}, {@code input_response}. */
final class ControlDecoder {

    private ControlDecoder() {
    }

    static CancelEvent cancel(ObjectNode root, String streamId, String turnIdRaw) {
        String turnId = optionalId(root, "turn_id", "cancel", streamId, turnIdRaw);
        String callId = optionalId(root, "tool_call_id", "cancel", streamId, turnIdRaw);
        if (callId != null && turnId == null) {
            throw new EventDecodeException("cancel names tool_call_id '" + callId
                    + "' without turn_id: send the turn_id of the call too", streamId, null);
        }
        JsonNode reason = root.get("reason");
        if (reason != null && !reason.isNull() && !reason.isTextual()) {
            throw new EventDecodeException("cancel.reason must be a string, got " + kind(reason), streamId, turnId);
        }
        return CancelEvent.builder().streamId(streamId).turnId(turnId).toolCallId(callId)
                .reason(reason == null || reason.isNull() ? "" : reason.textValue()).trace(InboundDecoder.trace(root))
                .build();
    }

    static ApprovalResponseEvent approval(ObjectNode root, String streamId, String turnIdRaw) {
        String id = requiredId(root, "approval_id", "approval_response", streamId, turnIdRaw);
        String word = requiredWord(root, "decision", "approval_response", "approve, deny or approve_session",
                streamId, turnIdRaw);
        ApprovalDecision d = ApprovalDecision.fromWire(word);
        if (d == null) {
            throw new EventDecodeException("approval_response.decision must be approve, deny or approve_session, got '"
                    + word + "'", streamId, turnIdRaw);
        }
        String callId = optionalId(root, "tool_call_id", "approval_response", streamId, turnIdRaw);
        JsonNode arguments = root.get("arguments");
        if (arguments != null && !arguments.isNull()) {
            if (!arguments.isObject()) {
                throw new EventDecodeException("approval_response.arguments must be an object, got " + kind(arguments),
                        streamId, turnIdRaw);
            }
            if (d == ApprovalDecision.DENY) {
                throw new EventDecodeException("approval_response.arguments go with approve or approve_session, "
                        + "not deny", streamId, turnIdRaw);
            }
        }
        JsonNode message = root.get("message");
        String text = null;
        if (message != null && !message.isNull()) {
            if (!message.isTextual()) {
                throw new EventDecodeException("approval_response.message must be a string, got " + kind(message),
                        streamId, turnIdRaw);
            }
            if (d != ApprovalDecision.DENY) {
                throw new EventDecodeException("approval_response.message goes with deny only", streamId, turnIdRaw);
            }
            if (message.textValue().length() > ApprovalResponseEvent.MAX_MESSAGE_CHARS) {
                throw new EventDecodeException("approval_response.message is " + message.textValue().length()
                        + " characters; at most " + ApprovalResponseEvent.MAX_MESSAGE_CHARS, streamId, turnIdRaw);
            }
            text = message.textValue();
        }
        return new ApprovalResponseEvent(streamId, id, d, callId,
                arguments == null || arguments.isNull() ? null : arguments, text, InboundDecoder.trace(root));
    }

    static InputResponseEvent input(ObjectNode root, String streamId, String turnIdRaw) {
        String id = requiredId(root, "input_id", "input_response", streamId, turnIdRaw);
        String word = requiredWord(root, "action", "input_response", "accept, decline or cancel", streamId,
                turnIdRaw);
        InputAction a = InputAction.fromWire(word);
        if (a == null) {
            throw new EventDecodeException("input_response.action must be accept, decline or cancel, got '" + word
                    + "'", streamId, turnIdRaw);
        }
        JsonNode content = root.get("content");
        if (content != null && !content.isNull() && !content.isObject()) {
            throw new EventDecodeException("input_response.content must be an object, got " + kind(content),
                    streamId, turnIdRaw);
        }
        return new InputResponseEvent(streamId, id, a, content == null || content.isNull() ? null : content,
                InboundDecoder.trace(root));
    }

    private static String optionalId(ObjectNode root, String key, String type, String streamId, String turnIdRaw) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isTextual() && !n.isIntegralNumber()) {
            throw new EventDecodeException(type + "." + key + " must be a string, got " + kind(n), streamId,
                    "turn_id".equals(key) ? null : turnIdRaw);
        }
        String s = n.asText().strip();
        return s.isEmpty() ? null : s;
    }

    private static String requiredId(ObjectNode root, String key, String type, String streamId, String turnIdRaw) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            throw new EventDecodeException(key + " is missing: " + type + " must name the " + key
                    + " of the request it answers", streamId, turnIdRaw);
        }
        if (!n.isTextual()) {
            throw new EventDecodeException(type + "." + key + " must be a string, got " + kind(n), streamId,
                    turnIdRaw);
        }
        String s = n.textValue().strip();
        if (s.isEmpty()) {
            throw new EventDecodeException(type + "." + key + " must not be blank", streamId, turnIdRaw);
        }
        return s;
    }

    private static String requiredWord(ObjectNode root, String key, String type, String expected, String streamId,
                                       String turnIdRaw) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            throw new EventDecodeException(key + " is missing: " + type + " needs " + key + " (" + expected + ")",
                    streamId, turnIdRaw);
        }
        if (!n.isTextual()) {
            throw new EventDecodeException(type + "." + key + " must be a string (" + expected + "), got " + kind(n),
                    streamId, turnIdRaw);
        }
        return n.textValue();
    }
}
