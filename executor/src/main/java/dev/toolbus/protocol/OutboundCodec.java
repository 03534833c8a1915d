package dev.toolbus.protocol;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.internal.EncodedHandOver;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Writes outbound events as one line of JSON and reads them back (for clients and tests). */
final class OutboundCodec {

    private final ObjectMapper mapper;
    // UTF-8 straight from the generator; a character outside the BMP as its four bytes (as String.getBytes
    // writes it), not as an escaped surrogate pair
    private final ObjectWriter bytesWriter;

    OutboundCodec(ObjectMapper mapper) {
        this.mapper = mapper;
        this.bytesWriter = mapper.writer().with(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8);
    }

    /** {@link #encode} as UTF-8, written without a {@code String}: byte for byte the same. */
    byte[] encodeToBytes(OutboundEvent event) {
        byte[] kept = EncodedHandOver.take(event);
        if (kept != null) {
            return kept;
        }
        EncodeBuffer b = EncodeBuffer.take();
        try {
            return writeTo(event, b) ? b.toByteArray() : encode(event).getBytes(StandardCharsets.UTF_8);
        } finally {
            b.release();
        }
    }

    /** {@link #encodeToBytes} written to {@code out} in one {@code write} call. */
    void encodeTo(OutboundEvent event, OutputStream out) throws IOException {
        byte[] kept = EncodedHandOver.take(event);
        if (kept != null) {
            out.write(kept);
            return;
        }
        EncodeBuffer b = EncodeBuffer.take();
        try {
            if (writeTo(event, b)) {
                out.write(b.array(), 0, b.size());
            } else {
                out.write(encode(event).getBytes(StandardCharsets.UTF_8));
            }
        } finally {
            b.release();
        }
    }

    /**
     * Writes the event into the buffer; false when the String path must decide instead (a value that
     * cannot be written, an unpaired surrogate, a raw line break): it fails, re-serialises or
     * replaces as before.
     */
    private boolean writeTo(OutboundEvent event, EncodeBuffer b) {
        try {
            bytesWriter.writeValue(b, event);
        } catch (IOException | RuntimeException e) {
            return false;
        }
        return !b.needsStringPath();
    }

    String encode(OutboundEvent event) {
        String json;
        try {
            json = mapper.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new EventEncodeException("cannot encode " + describe(event) + ": " + e.getOriginalMessage()
                    + " (data and metadata must be plain JSON-like values, records or beans)", e);
        }
        if (json.indexOf('\n') >= 0 || json.indexOf('\r') >= 0) {
            // only raw values can smuggle a line break in; re-serialise through the tree to get one line
            try {
                json = mapper.readTree(json).toString();
            } catch (JsonProcessingException e) {
                throw new EventEncodeException("cannot encode " + describe(event)
                        + " on one line: a raw value holds an unescaped line break", e);
            }
        }
        return json;
    }

    OutboundEvent decode(ObjectNode root) {
        JsonNode replayed = root.get(ReplayedEvent.FIELD);
        if (replayed != null && replayed.asBoolean(false)) {
            ObjectNode inner = root.deepCopy();
            inner.remove(ReplayedEvent.FIELD);
            return new ReplayedEvent(decode(inner));
        }
        String streamId = text(root.get("stream_id"));
        String turnId = text(root.get("turn_id"));
        JsonNode typeNode = root.get("type");
        String type = typeNode != null && typeNode.isTextual() ? typeNode.textValue() : null;
        Class<? extends OutboundEvent> cls;
        List<String> required;
        if (type == null) {
            throw new EventDecodeException("type is missing or not a string", streamId, turnId);
        }
        switch (type) {
            case "tool_result" -> {
                cls = ToolResultEvent.class;
                required = List.of("stream_id", "turn_id", "tool_call_id");
            }
            case "user_message" -> {
                cls = UserMessageEvent.class;
                required = List.of("stream_id", "turn_id", "message_id", "tool_call_id", "content");
            }
            case "turn_completed" -> {
                cls = TurnCompletedEvent.class;
                required = List.of("stream_id", "turn_id", "tool_call_ids");
            }
            case "tools" -> {
                cls = ToolsEvent.class;
                required = List.of("stream_id", "tools");
            }
            case "skills" -> {
                cls = SkillsEvent.class;
                required = List.of("stream_id", "mode");
            }
            case "error" -> {
                cls = ErrorEvent.class;
                required = List.of("code");
            }
            case "approval_request" -> {
                cls = ApprovalRequestEvent.class;
                required = List.of("stream_id", "turn_id", "approval_id", "expires_at_ms", "calls");
            }
            case "tool_progress" -> {
                cls = ToolProgressEvent.class;
                required = List.of("stream_id", "turn_id", "tool_call_id", "progress");
            }
            case "send_message" -> {
                cls = SendMessageEvent.class;
                required = List.of("stream_id", "turn_id", "tool_call_id", "message_id", "content");
            }
            case "input_request" -> {
                cls = InputRequestEvent.class;
                required = List.of("stream_id", "turn_id", "tool_call_id", "input_id", "expires_at_ms");
            }
            default -> throw new EventDecodeException("unknown outbound event type '" + type
                    + "' (expected tool_result, user_message, turn_completed, tools, skills, error,"
                    + " approval_request, tool_progress, send_message or input_request)", streamId, turnId);
        }
        for (String field : required) {
            JsonNode n = root.get(field);
            if (n == null || n.isNull()) {
                throw new EventDecodeException(type + " event is missing " + field, streamId, turnId);
            }
        }
        try {
            return mapper.treeToValue(root, cls);
        } catch (JsonProcessingException | IllegalArgumentException e) {
            String msg = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
            throw new EventDecodeException("invalid " + type + " event: " + msg, streamId, turnId);
        }
    }

    private static String text(JsonNode n) {
        return n != null && n.isTextual() && !n.textValue().isBlank() ? n.textValue() : null;
    }

    private static String describe(OutboundEvent event) {
        StringBuilder sb = new StringBuilder(event.type()).append(" event of stream '").append(event.streamId())
                .append('\'');
        if (event instanceof ToolResultEvent r) {
            sb.append(", tool_call_id '").append(r.toolCallId()).append("' (tool '").append(r.name()).append("')");
        }
        return sb.toString();
    }
}
