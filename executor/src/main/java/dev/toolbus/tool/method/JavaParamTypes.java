package dev.toolbus.tool.method;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.tool.ToolParamType;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Infers a parameter type from a Java type: {@code String} (and enums, chars) → string;
 * {@code int/long/short/byte/BigInteger} → integer; {@code double/float/BigDecimal/Number} → number;
 * {@code boolean} → boolean; arrays and collections → array; maps and other classes → object.
 * {@code Object} and a bare {@code JsonNode} cannot be inferred.
 */
final class JavaParamTypes {

    private JavaParamTypes() {
    }

    /** The parameter type of a Java type, or {@code null} when it cannot be inferred. */
    static ToolParamType infer(Type type) {
        Class<?> c = raw(type);
        if (c == null || c == Object.class || c == JsonNode.class) {
            return null;
        }
        if (c == String.class || CharSequence.class.isAssignableFrom(c) || c == char.class || c == Character.class
                || c.isEnum()) {
            return ToolParamType.STRING;
        }
        if (c == int.class || c == long.class || c == short.class || c == byte.class || c == Integer.class
                || c == Long.class || c == Short.class || c == Byte.class || c == BigInteger.class) {
            return ToolParamType.INTEGER;
        }
        if (c == double.class || c == float.class || c == Double.class || c == Float.class || c == BigDecimal.class
                || Number.class.isAssignableFrom(c)) {
            return ToolParamType.NUMBER;
        }
        if (c == boolean.class || c == Boolean.class) {
            return ToolParamType.BOOLEAN;
        }
        if (c.isArray() || Collection.class.isAssignableFrom(c) || ArrayNode.class.isAssignableFrom(c)) {
            return ToolParamType.ARRAY;
        }
        if (Map.class.isAssignableFrom(c) || ObjectNode.class.isAssignableFrom(c)) {
            return ToolParamType.OBJECT;
        }
        return JsonNode.class.isAssignableFrom(c) ? null : ToolParamType.OBJECT;
    }

    /** The names of an enum type's constants, or an empty list. */
    static List<Object> enumConstants(Type type) {
        Class<?> c = raw(type);
        List<Object> names = new ArrayList<>();
        if (c != null && c.isEnum()) {
            for (Object o : c.getEnumConstants()) {
                names.add(((Enum<?>) o).name());
            }
        }
        return names;
    }

    /**
     * The items schema of an array or collection type ({@code {"type":"string"}} for
     * {@code List<String>}), or {@code null} when the element type cannot be inferred.
     */
    static Map<String, Object> items(Type type) {
        Type element = elementType(type);
        if (element == null) {
            return null;
        }
        ToolParamType t = infer(element);
        if (t == null) {
            return null;
        }
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", t.jsonType());
        List<Object> constants = enumConstants(element);
        if (!constants.isEmpty()) {
            schema.put("enum", constants);
        }
        if (t == ToolParamType.ARRAY) {
            Map<String, Object> nested = items(element);
            if (nested == null) {
                return null;
            }
            schema.put("items", nested);
        }
        return schema;
    }

    private static Type elementType(Type type) {
        if (type instanceof Class<?> c) {
            return c.isArray() ? c.getComponentType() : null;
        }
        if (type instanceof GenericArrayType g) {
            return g.getGenericComponentType();
        }
        if (type instanceof ParameterizedType p && raw(p) != null && Collection.class.isAssignableFrom(raw(p))) {
            Type[] args = p.getActualTypeArguments();
            return args.length == 1 ? bound(args[0]) : null;
        }
        return null;
    }

    private static Type bound(Type t) {
        if (t instanceof WildcardType w) {
            Type[] upper = w.getUpperBounds();
            return upper.length == 1 && upper[0] != Object.class ? upper[0] : null;
        }
        return t;
    }

    /** The class of a type, or {@code null} for type variables and wildcards. */
    static Class<?> raw(Type type) {
        if (type instanceof Class<?> c) {
            return c;
        }
        if (type instanceof ParameterizedType p && p.getRawType() instanceof Class<?> c) {
            return c;
        }
        if (type instanceof GenericArrayType g) {
            Class<?> component = raw(g.getGenericComponentType());
            return component == null ? null : component.arrayType();
        }
        return null;
    }
}
