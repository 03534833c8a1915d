package dev.toolbus.rules;

import dev.cel.common.exceptions.CelAttributeNotFoundException;
import dev.cel.common.types.CelType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.StructValue;
import java.util.AbstractMap;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A read-only map that CEL takes as it is. CEL's runtime walks every plain {@link Map} it reads a field
 * of, to adapt its entries (for a JSON object: the whole tree, on every read); a {@code CelValue} it
 * takes as it is, and selects fields through {@link #select}. So each variable's value is one of these:
 * reading {@code args.a.b} touches {@code a} and {@code b} only.
 */
abstract class MapValue extends StructValue<String, MapValue> implements Map<String, Object> {

    private static final CelType TYPE = MapType.create(SimpleType.STRING, SimpleType.DYN);

    @Override
    public abstract Object get(Object key);

    @Override
    public abstract boolean containsKey(Object key);

    @Override
    public abstract Set<Entry<String, Object>> entrySet();

    @Override
    public Object select(String field) {
        Object v = get(field);
        if (v == null) {
            throw CelAttributeNotFoundException.forMissingMapKey(field);
        }
        return v;
    }

    @Override
    public Optional<Object> find(String field) {
        return Optional.ofNullable(get(field));
    }

    @Override
    public MapValue value() {
        return this;
    }

    @Override
    public boolean isZeroValue() {
        return isEmpty();
    }

    @Override
    public CelType celType() {
        return TYPE;
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    @Override
    public boolean containsValue(Object value) {
        return values().contains(value);
    }

    @Override
    public Set<String> keySet() {
        return view().keySet();
    }

    @Override
    public Collection<Object> values() {
        return view().values();
    }

    private Map<String, Object> view() {
        MapValue self = this;
        return new AbstractMap<>() {
            @Override
            public Set<Entry<String, Object>> entrySet() {
                return self.entrySet();
            }
        };
    }

    @Override
    public Object put(String key, Object value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Object remove(Object key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void putAll(Map<? extends String, ?> m) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void clear() {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Map<?, ?> m && m.size() == size() && entrySet().equals(m.entrySet());
    }

    @Override
    public int hashCode() {
        return entrySet().hashCode();
    }

    @Override
    public String toString() {
        return view().toString();
    }

    /** A fixed map: the {@code ctx}, {@code tool}, {@code turn} and {@code caller} values. */
    static final class Fixed extends MapValue {
        private final Map<String, Object> fields;

        Fixed(Map<String, Object> fields) {
            this.fields = fields;
        }

        @Override
        public Object get(Object key) {
            return fields.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            return fields.containsKey(key);
        }

        @Override
        public int size() {
            return fields.size();
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            return fields.entrySet();
        }
    }
}
