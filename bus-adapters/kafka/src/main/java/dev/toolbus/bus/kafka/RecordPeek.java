package dev.toolbus.bus.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The top-level {@code type}, {@code stream_id} and {@code turn_id} of a record's value, read with a
 * streaming parser over its first bytes without decoding it: whether it is a turn (whose events are
 * staged with it) or a control event (handed over before waiting turns).
 */
record RecordPeek(String type, String streamId, String turnId) {

    static final RecordPeek NONE = new RecordPeek(null, null, null);
    private static final JsonFactory JSON = new JsonFactory();
    private static final int SCAN_LIMIT = 64 * 1024;

    static RecordPeek of(byte[] utf8) {
        if (utf8 == null || utf8.length == 0) {
            return NONE;
        }
        String type = null;
        String stream = null;
        String turn = null;
        try (JsonParser p = JSON.createParser(utf8, 0, Math.min(utf8.length, SCAN_LIMIT))) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return NONE;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME && (type == null || stream == null || turn == null)) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (value == JsonToken.VALUE_STRING || value == JsonToken.VALUE_NUMBER_INT) {
                    switch (name) {
                        case "type" -> type = p.getText();
                        case "stream_id" -> stream = p.getText();
                        case "turn_id" -> turn = p.getText();
                        default -> { }
                    }
                } else if (value != null && value.isStructStart()) {
                    p.skipChildren();
                }
            }
        } catch (IOException | RuntimeException e) {
            // cut off or malformed: keep what was read
        }
        return new RecordPeek(type, stream, turn);
    }

    /** A turn whose final events are staged with its record (exactly-once). */
    boolean isTurn() {
        return ("tool_calls".equals(type) || "tool_call".equals(type)) && streamId != null && turnId != null;
    }

    /** A control event (cancel, approval or input answer): handed over before turns waiting in the buffer. */
    boolean isControl() {
        return "cancel".equals(type) || "approval_response".equals(type) || "input_response".equals(type);
    }

    /** The key of a turn in the bus's registry of running turns. */
    static String turnKey(String streamId, String turnId) {
        return streamId + '\u0000' + turnId;
    }
}
