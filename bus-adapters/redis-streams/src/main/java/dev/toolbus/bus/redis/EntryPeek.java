package dev.toolbus.bus.redis;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The top-level {@code type}, {@code stream_id}, {@code turn_id} and (control answers)
 * {@code approval_id} or {@code input_id} of an entry, read with a streaming parser over its first
 * bytes without decoding the event.
 *
 * @param type the wire type, or null
 * @param streamId the stream id, or null
 * @param turnId the turn id, or null
 * @param requestId the approval or input id, or null
 */
record EntryPeek(String type, String streamId, String turnId, String requestId) {

    private static final JsonFactory JSON = new JsonFactory();
    private static final int SCAN_LIMIT = 64 * 1024;
    private static final EntryPeek NONE = new EntryPeek(null, null, null, null);

    static EntryPeek of(byte[] utf8) {
        if (utf8 == null) {
            return NONE;
        }
        String type = null;
        String stream = null;
        String turn = null;
        String id = null;
        try (JsonParser p = JSON.createParser(utf8, 0, Math.min(utf8.length, SCAN_LIMIT))) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return NONE;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (value == JsonToken.VALUE_STRING || value == JsonToken.VALUE_NUMBER_INT) {
                    switch (name) {
                        case "type" -> type = p.getText();
                        case "stream_id" -> stream = p.getText();
                        case "turn_id" -> turn = p.getText();
                        case "approval_id", "input_id" -> id = p.getText();
                        default -> { }
                    }
                } else if (value != null && value.isStructStart()) {
                    p.skipChildren();
                }
            }
        } catch (IOException | RuntimeException e) {
            // cut off or malformed: what was read
        }
        return new EntryPeek(type, blankToNull(stream), blankToNull(turn), id);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    /** A turn with both ids, so it can be matched with its finished-turn record. */
    boolean isIdentifiedTurn() {
        return ("tool_calls".equals(type) || "tool_call".equals(type)) && streamId != null && turnId != null;
    }

    boolean isCancel() {
        return "cancel".equals(type);
    }

    /** An answer to one instance's approval or question. */
    boolean isAnswer() {
        return "approval_response".equals(type) || "input_response".equals(type);
    }
}
