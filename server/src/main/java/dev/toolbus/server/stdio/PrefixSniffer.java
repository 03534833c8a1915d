package dev.toolbus.server.stdio;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Finds the top-level {@code stream_id} and {@code turn_id} in the first bytes of an event that was
 * too long to decode, so its error can still go to its conversation. Stops at the first syntax error
 * or at the end of the prefix.
 */
final class PrefixSniffer {

    private static final JsonFactory JSON = new JsonFactory();

    /** The ids found, each {@code null} when absent. */
    record Ids(String streamId, String turnId) {
    }

    private PrefixSniffer() {
    }

    static Ids sniff(byte[] prefix) {
        String streamId = null;
        String turnId = null;
        try (JsonParser p = JSON.createParser(prefix)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return new Ids(null, null);
            }
            JsonToken t;
            while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (value == JsonToken.VALUE_STRING && "stream_id".equals(field)) {
                    streamId = p.getText();
                } else if (value == JsonToken.VALUE_STRING && "turn_id".equals(field)) {
                    turnId = p.getText();
                } else if (value != null && value.isStructStart()) {
                    p.skipChildren();
                }
                if (streamId != null && turnId != null) {
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the prefix ends mid-token or is not JSON: keep what was found
        }
        return new Ids(streamId == null || streamId.isBlank() ? null : streamId, turnId);
    }
}
