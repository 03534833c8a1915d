package dev.toolbus.protocol;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;

/**
 * Strict parsing of one JSON object (no trailing content, no duplicate keys, no NaN, bounded depth,
 * well-formed UTF-8) with errors a human can act on; the {@code stream_id} and {@code turn_id} of input
 * that fails come from {@link EventIdPeek}, which reads a bounded prefix.
 */
final class JsonInput {

    private final ObjectMapper mapper;

    JsonInput(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** One input: a parser over it, and the peek at its ids when it fails. */
    private interface Source {
        JsonParser open() throws IOException;

        EventIdPeek peek();
    }

    ObjectNode readObject(byte[] bytes, int off, int len) {
        int bad = Utf8.firstInvalid(bytes, off, len);
        if (bad >= 0) {
            EventIdPeek ids = EventIdPeek.of(bytes, off, bad - off);
            throw new EventDecodeException("input is not valid UTF-8: bad byte 0x"
                    + Integer.toHexString(bytes[bad] & 0xFF) + " at offset " + (bad - off), ids.streamId(),
                    ids.turnId());
        }
        return read(new Source() {
            @Override
            public JsonParser open() throws IOException {
                return mapper.getFactory().createParser(bytes, off, len);
            }

            @Override
            public EventIdPeek peek() {
                return EventIdPeek.of(bytes, off, len);
            }
        });
    }

    ObjectNode readObject(String json) {
        return read(new Source() {
            @Override
            public JsonParser open() throws IOException {
                return mapper.getFactory().createParser(json);
            }

            @Override
            public EventIdPeek peek() {
                return EventIdPeek.of(json);
            }
        });
    }

    private ObjectNode read(Source source) {
        JsonParser p = null;
        boolean parsed = false;
        try {
            p = source.open();
            p.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            JsonToken first = p.nextToken();
            if (first == null) {
                throw new EventDecodeException("empty input: an event must be a JSON object", null, null);
            }
            if (first != JsonToken.START_OBJECT) {
                throw new EventDecodeException("an event must be a JSON object, got " + describe(first), null, null);
            }
            JsonNode root = mapper.readTree(p);
            parsed = true;
            if (p.nextToken() != null) {
                throw trailing(p.currentTokenLocation(), source);
            }
            return (ObjectNode) root;
        } catch (JsonProcessingException e) {
            boolean afterRoot = parsed || (p != null && p.getParsingContext().inRoot()
                    && p.currentToken() == JsonToken.END_OBJECT);
            if (afterRoot && !(e instanceof StreamConstraintsException)) {
                throw trailing(e.getLocation(), source);
            }
            EventIdPeek ids = source.peek();
            throw new EventDecodeException(explain(e), ids.streamId(), ids.turnId());
        } catch (IOException e) {
            throw new EventDecodeException("cannot read input: " + e.getMessage(), null, null);
        } catch (NumberFormatException | ArithmeticException e) {
            // a number the parser reads but cannot represent (1e99999999999999: too many exponent digits)
            EventIdPeek ids = source.peek();
            throw new EventDecodeException("a number cannot be read: " + e.getMessage(), ids.streamId(), ids.turnId());
        } finally {
            close(p);
        }
    }

    private EventDecodeException trailing(JsonLocation at, Source source) {
        EventIdPeek ids = source.peek();
        return new EventDecodeException("unexpected content after the JSON object" + where(at)
                + ": send exactly one event per message", ids.streamId(), ids.turnId());
    }

    static String explain(JsonProcessingException e) {
        String msg = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        String at = where(e.getLocation());
        if (e instanceof StreamConstraintsException) {
            if (msg.contains("nesting depth")) {
                return "JSON is nested more than " + Json.MAX_NESTING_DEPTH + " levels deep";
            }
            return "JSON value above a parser limit: " + msg;
        }
        if (msg.startsWith("Non-standard token")) {
            return "NaN and Infinity are not JSON numbers" + at + ": send a string or null instead";
        }
        if (msg.startsWith("Duplicate field")) {
            return "duplicate key" + msg.substring("Duplicate field".length()) + " in one JSON object" + at;
        }
        if (e instanceof JsonEOFException || msg.startsWith("Unexpected end-of-input")) {
            return "truncated JSON: the input ends inside a value" + at;
        }
        return "malformed JSON" + at + ": " + clean(msg);
    }

    private static String clean(String msg) {
        int cut = msg.indexOf(": enable `");
        if (cut < 0) {
            cut = msg.indexOf(" (start marker at");
        }
        return cut < 0 ? msg : msg.substring(0, cut);
    }

    private static String where(JsonLocation at) {
        if (at == null || at.getLineNr() < 1) {
            return "";
        }
        return " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    }

    private static String describe(JsonToken t) {
        return switch (t) {
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> t.asString() == null ? t.name() : "'" + t.asString() + "'";
        };
    }

    private static void close(JsonParser p) {
        if (p != null) {
            try {
                p.close();
            } catch (IOException ignored) {
                // in-memory source
            }
        }
    }
}
