package dev.toolbus.bus;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Objects;

/**
 * The top-level {@code type}, {@code stream_id}, {@code turn_id} and (for an answer) {@code approval_id}
 * or {@code input_id} of a raw event, read with a streaming parser over at most its first
 * {@value #SCAN_LIMIT} bytes without decoding it. Buses use it where they must know what an input is
 * and whose turn it belongs to before, or instead of, decoding it: a control event to hand over ahead
 * of waiting turns, a turn to match with its finished-turn record, an oversized or broken event whose
 * error should still reach its conversation.
 *
 * <p>Never throws on what the input holds (only a slice outside its array is refused, as a programming
 * error). Nested objects and arrays are skipped, so only top-level fields count; the first
 * occurrence of a field wins; the scan stops as soon as the fields its type needs are known. Input
 * that breaks off (a prefix, or malformed JSON) keeps what was read before the break. A blank id reads
 * as {@code null}; {@code stream_id} and {@code type} must be strings, the other ids may also be
 * integers.
 *
 * <pre>{@code
 * EventIdPeek peek = EventIdPeek.of(message.payload());
 * if (peek.isControl()) {
 *     // hand it over before the turns that wait
 * }
 * }</pre>
 */
public final class EventIdPeek {

    /** How many leading bytes (or characters) are scanned at most. */
    public static final int SCAN_LIMIT = 64 * 1024;

    /** Nothing could be read. */
    public static final EventIdPeek NONE = new EventIdPeek(null, null, null, null);

    private static final JsonFactory JSON = new JsonFactory();

    private final String type;
    private final String streamId;
    private final String turnId;
    private final String requestId;

    private EventIdPeek(String type, String streamId, String turnId, String requestId) {
        this.type = type;
        this.streamId = streamId;
        this.turnId = turnId;
        this.requestId = requestId;
    }

    /** Peeks at a UTF-8 event; {@code null} or empty input gives {@link #NONE}. */
    public static EventIdPeek of(byte[] utf8) {
        return utf8 == null ? NONE : of(utf8, 0, utf8.length);
    }

    /**
     * Peeks at {@code length} bytes of a UTF-8 event starting at {@code offset}.
     *
     * @throws IndexOutOfBoundsException when the slice is not inside the array
     */
    public static EventIdPeek of(byte[] utf8, int offset, int length) {
        if (utf8 == null || length <= 0) {
            return NONE;
        }
        Objects.checkFromIndexSize(offset, length, utf8.length);
        try (JsonParser p = JSON.createParser(utf8, offset, Math.min(length, SCAN_LIMIT))) {
            return scan(p);
        } catch (IOException | RuntimeException e) {
            return NONE; // not even the first token could be read
        }
    }

    /** Peeks at an event held as text (its first {@value #SCAN_LIMIT} characters). */
    public static EventIdPeek of(String json) {
        if (json == null || json.isEmpty()) {
            return NONE;
        }
        try (JsonParser p = JSON.createParser(json.length() > SCAN_LIMIT ? json.substring(0, SCAN_LIMIT) : json)) {
            return scan(p);
        } catch (IOException | RuntimeException e) {
            return NONE;
        }
    }

    /** The one scanner behind every entry point. */
    private static EventIdPeek scan(JsonParser p) {
        String type = null;
        String stream = null;
        String turn = null;
        String request = null;
        try {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return NONE;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (value == null) {
                    break;
                }
                if (value.isStructStart()) {
                    p.skipChildren();
                    continue;
                }
                boolean text = value == JsonToken.VALUE_STRING;
                boolean id = text || value == JsonToken.VALUE_NUMBER_INT;
                switch (name) {
                    case "type" -> type = type == null && text ? p.getText() : type;
                    case "stream_id" -> stream = stream == null && text ? blankToNull(p.getText()) : stream;
                    case "turn_id" -> turn = turn == null && id ? blankToNull(p.getText()) : turn;
                    case "approval_id", "input_id" -> request = request == null && id ? p.getText() : request;
                    default -> { }
                }
                if (type != null && stream != null && (isAnswer(type) ? request != null : turn != null)) {
                    break; // everything this kind of event needs is known
                }
            }
        } catch (IOException | RuntimeException e) {
            // cut off or malformed: keep what was read before the break
        }
        if (type == null && stream == null && turn == null && request == null) {
            return NONE;
        }
        return new EventIdPeek(type, stream, turn, request);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static boolean isAnswer(String type) {
        return "approval_response".equals(type) || "input_response".equals(type);
    }

    /** The wire type, or {@code null}. */
    public String type() {
        return type;
    }

    /** The stream id, or {@code null}. */
    public String streamId() {
        return streamId;
    }

    /** The turn id, or {@code null}. */
    public String turnId() {
        return turnId;
    }

    /** The {@code approval_id} or {@code input_id} of an answer, or {@code null}. */
    public String requestId() {
        return requestId;
    }

    /** A turn ({@code tool_calls} or {@code tool_call}) with both ids, so it can be matched with its record. */
    public boolean isTurn() {
        return ("tool_calls".equals(type) || "tool_call".equals(type)) && streamId != null && turnId != null;
    }

    /** A {@code cancel}. */
    public boolean isCancel() {
        return "cancel".equals(type);
    }

    /** An answer to one instance's question: {@code approval_response} or {@code input_response}. */
    public boolean isAnswer() {
        return isAnswer(type);
    }

    /** A control event (a cancel or an answer): buses hand these over before turns that wait. */
    public boolean isControl() {
        return isCancel() || isAnswer();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EventIdPeek e && Objects.equals(type, e.type) && Objects.equals(streamId, e.streamId)
                && Objects.equals(turnId, e.turnId) && Objects.equals(requestId, e.requestId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, streamId, turnId, requestId);
    }

    @Override
    public String toString() {
        return "EventIdPeek[type=" + type + ", streamId=" + streamId + ", turnId=" + turnId + ", requestId="
                + requestId + "]";
    }
}
