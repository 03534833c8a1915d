package dev.toolbus.bus.kafka;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * The top-level {@code stream_id} and {@code turn_id} of a raw event, read with a streaming parser
 * over at most the first {@value #SCAN_LIMIT} bytes, without building a tree. Used where the bus must
 * know whose turn an entry is without decoding it (finished-turn markers, oversized entries).
 */
record EventKeys(String streamId, String turnId) {

    static final int SCAN_LIMIT = 64 * 1024;
    static final EventKeys NONE = new EventKeys(null, null);
    private static final JsonFactory JSON = new JsonFactory();

    static EventKeys read(byte[] utf8) {
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
                } else if (value == JsonToken.VALUE_STRING && "turn_id".equals(name)) {
                    turnId = p.getText();
                } else {
                    p.skipChildren();
                }
                if (streamId != null && turnId != null) {
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // malformed or cut at the scan limit: keep what was read before
        }
        return new EventKeys(blankToNull(streamId), blankToNull(turnId));
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
