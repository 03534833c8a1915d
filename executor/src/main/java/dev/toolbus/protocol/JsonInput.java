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
 * well-formed UTF-8) with errors a human can act on, plus a cheap look at a bounded prefix for the
 * {@code stream_id} and {@code turn_id} of input that fails.
 */
final class JsonInput {

    /** How much of a failed input is read to find its ids. */
    static final int SNIFF_LIMIT = 16 * 1024;

    private final ObjectMapper mapper;

    JsonInput(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** The ids found in a failed input; either may be {@code null}. */
    record Ids(String streamId, String turnId) {
        static final Ids NONE = new Ids(null, null);
    }

    @FunctionalInterface
    private interface Source {
        JsonParser open(int limit) throws IOException;
    }

    ObjectNode readObject(byte[] bytes, int off, int len) {
        int bad = Utf8.firstInvalid(bytes, off, len);
        if (bad >= 0) {
            Ids ids = sniff(limit -> mapper.getFactory().createParser(bytes, off, Math.min(bad - off, limit)));
            throw new EventDecodeException("input is not valid UTF-8: bad byte 0x"
                    + Integer.toHexString(bytes[bad] & 0xFF) + " at offset " + (bad - off), ids.streamId(),
                    ids.turnId());
        }
        return read(limit -> mapper.getFactory().createParser(bytes, off, Math.min(len, limit)));
    }

    ObjectNode readObject(String json) {
        return read(limit -> mapper.getFactory().createParser(
                limit >= json.length() ? json : json.substring(0, limit)));
    }

    /** The ids of an input too large to parse, read from its first {@link #SNIFF_LIMIT} bytes. */
    Ids sniff(byte[] bytes, int off, int len) {
        int n = Math.min(len, SNIFF_LIMIT);
        int bad = Utf8.firstInvalid(bytes, off, n);
        int usable = bad < 0 ? n : bad - off;
        return sniff(limit -> mapper.getFactory().createParser(bytes, off, Math.min(usable, limit)));
    }

    /** The ids of an input too large to parse, read from its first {@link #SNIFF_LIMIT} characters. */
    Ids sniff(String json) {
        return sniff(limit -> mapper.getFactory().createParser(json.substring(0, Math.min(json.length(), limit))));
    }

    private ObjectNode read(Source source) {
        JsonParser p = null;
        boolean parsed = false;
        try {
            p = source.open(Integer.MAX_VALUE);
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
            Ids ids = sniff(source);
            throw new EventDecodeException(explain(e), ids.streamId(), ids.turnId());
        } catch (IOException e) {
            throw new EventDecodeException("cannot read input: " + e.getMessage(), null, null);
        } catch (NumberFormatException | ArithmeticException e) {
            // a number the parser reads but cannot represent (1e99999999999999: too many exponent digits)
            Ids ids = sniff(source);
            throw new EventDecodeException("a number cannot be read: " + e.getMessage(), ids.streamId(), ids.turnId());
        } finally {
            close(p);
        }
    }

    private EventDecodeException trailing(JsonLocation at, Source source) {
        Ids ids = sniff(source);
        return new EventDecodeException("unexpected content after the JSON object" + where(at)
                + ": send exactly one event per message", ids.streamId(), ids.turnId());
    }

    private static Ids sniff(Source source) {
        String streamId = null;
        String turnId = null;
        boolean sawStream = false;
        boolean sawTurn = false;
        JsonParser p = null;
        try {
            p = source.open(SNIFF_LIMIT);
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return Ids.NONE;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME && !(sawStream && sawTurn)) {
                String name = p.currentName();
                JsonToken v = p.nextToken();
                if (v == JsonToken.START_OBJECT || v == JsonToken.START_ARRAY) {
                    p.skipChildren();
                } else if ("stream_id".equals(name) && !sawStream) {
                    sawStream = true;
                    streamId = v == JsonToken.VALUE_STRING ? p.getText() : null;
                } else if ("turn_id".equals(name) && !sawTurn) {
                    sawTurn = true;
                    turnId = v == JsonToken.VALUE_STRING || v == JsonToken.VALUE_NUMBER_INT ? p.getText() : null;
                }
            }
        } catch (IOException | RuntimeException e) {
            // keep what could be read before the input broke off
        } finally {
            close(p);
        }
        return new Ids(blankToNull(streamId), blankToNull(turnId));
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

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
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
