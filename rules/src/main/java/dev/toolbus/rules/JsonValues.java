package dev.toolbus.rules;

import com.fasterxml.jackson.databind.JsonNode;
import dev.cel.common.values.NullValue;
import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.RandomAccess;
import java.util.Set;

/**
 * JSON arguments as CEL reads them, converted only as far as an expression looks: an object is a
 * map view, an array a list view, a number is an {@code int} when JSON wrote it without a fraction
 * or exponent and it fits a long, else a {@code double}, {@code null} is CEL's null. Nothing is copied up front.
 */
final class JsonValues {

    private JsonValues() {
    }

    static Object of(JsonNode n) {
        return switch (n.getNodeType()) {
            case OBJECT -> new ObjectView(n);
            case ARRAY -> new ArrayView(n);
            case STRING -> n.textValue();
            case BOOLEAN -> n.booleanValue();
            case NUMBER -> n.isIntegralNumber() && n.canConvertToLong() ? (Object) n.longValue()
                    : (Object) n.doubleValue();
            case NULL, MISSING -> NullValue.NULL_VALUE;
            default -> n.asText();
        };
    }

    /** A JSON object as a read-only map. */
    static final class ObjectView extends MapValue {
        private final JsonNode node;

        ObjectView(JsonNode node) {
            this.node = node;
        }

        @Override
        public Object get(Object key) {
            if (!(key instanceof String k)) {
                return null;
            }
            JsonNode v = node.get(k);
            return v == null ? null : of(v);
        }

        @Override
        public boolean containsKey(Object key) {
            return key instanceof String k && node.has(k);
        }

        @Override
        public int size() {
            return node.size();
        }

        @Override
        public Set<Map.Entry<String, Object>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Map.Entry<String, Object>> iterator() {
                    Iterator<Map.Entry<String, JsonNode>> it = node.fields();
                    return new Iterator<>() {
                        @Override
                        public boolean hasNext() {
                            return it.hasNext();
                        }

                        @Override
                        public Map.Entry<String, Object> next() {
                            Map.Entry<String, JsonNode> e = it.next();
                            return new AbstractMap.SimpleImmutableEntry<>(e.getKey(), of(e.getValue()));
                        }
                    };
                }

                @Override
                public int size() {
                    return node.size();
                }
            };
        }
    }

    /** A JSON array as a read-only list. */
    static final class ArrayView extends AbstractList<Object> implements RandomAccess {
        private final JsonNode node;

        ArrayView(JsonNode node) {
            this.node = node;
        }

        @Override
        public Object get(int index) {
            if (index < 0 || index >= node.size()) {
                throw new IndexOutOfBoundsException(index);
            }
            return of(node.get(index));
        }

        @Override
        public int size() {
            return node.size();
        }
    }
}
