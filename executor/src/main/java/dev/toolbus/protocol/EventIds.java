package dev.toolbus.protocol;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The top-level {@code stream_id} and {@code turn_id} of a raw event, read with a streaming parser
 * over at most its first {@value #SCAN_LIMIT} bytes, without decoding it. Buses use it where they must
 * know whose turn an input is without decoding it: an oversized or broken event whose error should
 * still reach its conversation, or a finished-turn marker.
 *
 * @param streamId the stream id, or {@code null} when none could be read
 * @param turnId the turn id, or {@code null}
 */
public record EventIds(String streamId, String turnId) {

    /** How many leading bytes are scanned at most. */
    public static final int SCAN_LIMIT = 64 * 1024;

    /** Nothing could be read. */
    public static final EventIds NONE = new EventIds(null, null);

    private static final JsonFactory JSON = new JsonFactory();

    /**
     * Reads the ids from the start of a UTF-8 event; never throws. Input that breaks off (a prefix, or
     * malformed JSON) keeps what was read before the break.
     */
    public static EventIds peek(byte[] utf8) {
        if (utf8 == null || utf8.length == 0) {
            return NONE;
        }
        String streamId = null;
        String turnId = null;
        try (JsonParser p = JSON.createParser(utf8, 0, Math.min(utf8.length, SCAN_LIMIT))) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return NONE;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (value == JsonToken.VALUE_STRING && "stream_id".equals(name)) {
                    streamId = p.getText();
                } else if ((value == JsonToken.VALUE_STRING || value == JsonToken.VALUE_NUMBER_INT)
                        && "turn_id".equals(name)) {
                    turnId = p.getText();
                } else if (value != null && value.isStructStart()) {
                    p.skipChildren();
                }
                if (streamId != null && turnId != null) {
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // cut off or malformed: keep what was read before
        }
        return streamId == null && turnId == null ? NONE
                : new EventIds(blankToNull(streamId), blankToNull(turnId));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
