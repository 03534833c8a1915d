package dev.toolbus.executor.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import java.io.IOException;

/**
 * Parses the model's argument string straight from the streaming parser into a tree, without the
 * databind machinery {@code ObjectMapper.readTree} sets up per call (a deserialization context and a
 * root deserializer lookup). Same result as {@code readTree} with the shared mapper's settings
 * (floats as {@code BigDecimal}, its read constraints); content after the value is an error, and so
 * are what the event decoder also refuses: a key twice in one object, and a lone UTF-16 surrogate
 * ({@code \ud800} without its pair) in a key or string.
 */
final class ArgumentParser {

    private static final JsonFactory FACTORY = Json.mapper().getFactory();
    private static final JsonNodeFactory NODES = Json.mapper().getNodeFactory();

    private ArgumentParser() {
    }

    /** Parses one JSON value. */
    static JsonNode parse(String json) throws JsonProcessingException {
        return parse(json, NESTED_FIELDS);
    }

    /**
     * Parses one JSON value; a top-level object gets a map sized for {@code expectedFields} (the
     * properties the tool declares), so the usual arguments are read without growing it.
     */
    static JsonNode parse(String json, int expectedFields) throws JsonProcessingException {
        ObjectNode reused = ReusedParsers.parseObject(json, Math.max(1, expectedFields));
        if (reused != null) {
            return reused;
        }
        try (JsonParser p = FACTORY.createParser(json)) {
            JsonToken t = p.nextToken();
            if (t == null) {
                throw new com.fasterxml.jackson.core.io.JsonEOFException(p, null, "no JSON value");
            }
            JsonNode value = read(p, t, Math.max(1, expectedFields), true);
            JsonToken after = p.nextToken();
            if (after != null) {
                throw new com.fasterxml.jackson.core.JsonParseException(p,
                        "unexpected content after the JSON value: " + after.asString());
            }
            return value;
        } catch (JsonProcessingException e) {
            throw e;
        } catch (NumberFormatException | ArithmeticException e) {
            // a number the parser reads but cannot represent (1e99999999999999: too many exponent digits)
            throw new com.fasterxml.jackson.core.JsonParseException(null, "a number cannot be read: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new com.fasterxml.jackson.core.JsonParseException(null, e.getMessage(), e);
        }
    }

    private static String checkText(JsonParser p, String s) throws IOException {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                throw new com.fasterxml.jackson.core.JsonParseException(p, String.format(java.util.Locale.ROOT,
                        "lone UTF-16 surrogate \\u%04x (without its pair): send valid text", (int) c));
            }
        }
        return s;
    }

    /** The initial size of a nested object's map: a few keys without growing (a default map starts at 16). */
    private static final int NESTED_FIELDS = 3;

    /**
     * A map that holds {@code fields} entries without growing: up to {@link SmallObjectMap#LIMIT} a
     * {@link SmallObjectMap} (one array, no entry per key), else a {@link java.util.LinkedHashMap} sized
     * for them (the load factor is 0.75).
     */
    private static java.util.Map<String, JsonNode> sized(int fields) {
        if (fields <= SmallObjectMap.LIMIT) {
            return new SmallObjectMap(fields);
        }
        return new java.util.LinkedHashMap<>((int) Math.ceil(fields / 0.75));
    }

    /**
     * Reads the value that starts at {@code t}.
     *
     * @param fields the initial size of an object's map
     * @param surrogates whether to look for lone UTF-16 surrogates in keys and strings (not where the
     *     input was known to hold none before it was parsed)
     */
    static JsonNode read(JsonParser p, JsonToken t, int fields, boolean surrogates) throws IOException {
        switch (t) {
            case START_OBJECT: {
                ObjectNode o = new ObjectNode(NODES, sized(fields));
                JsonToken k = p.nextToken();
                for (; k == JsonToken.FIELD_NAME; k = p.nextToken()) {
                    String name = p.currentName();
                    if (surrogates) {
                        checkText(p, name);
                    }
                    if (o.replace(name, read(p, p.nextToken(), NESTED_FIELDS, surrogates)) != null) {
                        throw new com.fasterxml.jackson.core.JsonParseException(p, "duplicate key '"
                                + (name.length() > 100 ? name.substring(0, 100) + "…" : name) + "'");
                    }
                }
                if (k != JsonToken.END_OBJECT) {
                    // a non-blocking parser at the end of its input mid-object
                    throw new com.fasterxml.jackson.core.JsonParseException(p, "unexpected token " + k);
                }
                return o;
            }
            case START_ARRAY: {
                ArrayNode a = NODES.arrayNode();
                for (JsonToken v = p.nextToken(); v != JsonToken.END_ARRAY; v = p.nextToken()) {
                    a.add(read(p, v, NESTED_FIELDS, surrogates));
                }
                return a;
            }
            case VALUE_STRING:
                return NODES.textNode(surrogates ? checkText(p, p.getText()) : p.getText());
            case VALUE_NUMBER_INT:
                return switch (p.getNumberType()) {
                    case INT -> NODES.numberNode(p.getIntValue());
                    case LONG -> NODES.numberNode(p.getLongValue());
                    default -> NODES.numberNode(p.getBigIntegerValue());
                };
            case VALUE_NUMBER_FLOAT:
                return NODES.numberNode(p.getDecimalValue());
            case VALUE_TRUE:
                return NODES.booleanNode(true);
            case VALUE_FALSE:
                return NODES.booleanNode(false);
            case VALUE_NULL:
                return NODES.nullNode();
            default:
                throw new com.fasterxml.jackson.core.JsonParseException(p, "unexpected token " + t);
        }
    }
}
