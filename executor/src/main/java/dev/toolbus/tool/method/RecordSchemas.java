package dev.toolbus.tool.method;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import reactor.core.publisher.Mono;

/**
 * The output schema of a {@code @Tool} method that returns a record: the JSON Schema of the JSON that
 * the shared mapper writes for it (property names as written, snake_case; nested records, lists, arrays
 * and maps of them described too). A property of a primitive type is required; any other may be left
 * out, because the mapper leaves out nulls; a {@code byte[]} is a (base64) string. A type it cannot describe (an interface, {@code Object}, a
 * {@code JsonNode}, a class that is not a record) accepts anything.
 */
final class RecordSchemas {

    /** Nested records deeper than this accept anything. */
    static final int MAX_DEPTH = 8;

    private RecordSchemas() {
    }

    /**
     * The schema of a method's results, or {@code null} when its return type (or the element of its
     * {@code Mono} or {@code CompletionStage}) is not a record.
     */
    static ObjectNode ofReturn(Type returnType) {
        Type t = returnType;
        if (t instanceof ParameterizedType p && p.getRawType() instanceof Class<?> raw
                && (Mono.class.isAssignableFrom(raw) || CompletionStage.class.isAssignableFrom(raw))) {
            t = p.getActualTypeArguments()[0];
        }
        if (!(t instanceof Class<?> c) || !c.isRecord()) {
            return null;
        }
        ObjectMapper m = Json.mapper();
        return schema(m, m.getTypeFactory().constructType(c), new HashSet<>(), 0);
    }

    private static ObjectNode schema(ObjectMapper m, JavaType t, Set<Class<?>> open, int depth) {
        ObjectNode s = m.createObjectNode();
        Class<?> c = t.getRawClass();
        if (c == String.class || CharSequence.class.isAssignableFrom(c) || c == char.class || c == Character.class
                || c.isEnum() || c == byte[].class) {
            s.put("type", "string");
        } else if (c == boolean.class || c == Boolean.class) {
            s.put("type", "boolean");
        } else if (c == int.class || c == long.class || c == short.class || c == byte.class || c == Integer.class
                || c == Long.class || c == Short.class || c == Byte.class || c == BigInteger.class) {
            s.put("type", "integer");
        } else if (c == double.class || c == float.class || c == Double.class || c == Float.class
                || c == BigDecimal.class) {
            s.put("type", "number");
        } else if (t.isArrayType() || t.isCollectionLikeType()) {
            s.put("type", "array");
            s.set("items", schema(m, t.getContentType(), open, depth + 1));
        } else if (t.isMapLikeType() && t.getKeyType().getRawClass() == String.class) {
            s.put("type", "object");
            s.set("additionalProperties", schema(m, t.getContentType(), open, depth + 1));
        } else if (c.isRecord() && depth < MAX_DEPTH && open.add(c)) {
            s.put("type", "object");
            ObjectNode props = s.putObject("properties");
            ArrayNode required = m.createArrayNode();
            BeanDescription bd = m.getSerializationConfig().introspect(t);
            for (BeanPropertyDefinition p : bd.findProperties()) {
                if (!p.couldSerialize()) {
                    continue;
                }
                props.set(p.getName(), schema(m, p.getPrimaryType(), open, depth + 1));
                if (p.getPrimaryType().isPrimitive()) {
                    required.add(p.getName());
                }
            }
            if (!required.isEmpty()) {
                s.set("required", required);
            }
            open.remove(c);
        }
        return s;
    }
}
