package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;

/**
 * The map of a parsed arguments object ({@code ObjectNode}'s children): keys and values side by side
 * in one array, in insertion order, as a {@link LinkedHashMap} keeps them. A tool's arguments have a
 * few keys, which a scan finds (Jackson's key names are canonical, so mostly by identity); one object
 * and one array instead of a map, its table and an entry per key. Past {@link #LIMIT} keys it moves
 * them into a {@link LinkedHashMap} and uses that, so a large object is never scanned.
 */
final class SmallObjectMap extends AbstractMap<String, JsonNode> {

    /** The most keys kept in the array; a larger object uses a {@link LinkedHashMap}. */
    static final int LIMIT = 8;

    /** key0, value0, key1, value1, … ({@code size} pairs); null once {@link #big} is used. */
    private Object[] pairs;
    private int size;
    private int modCount;
    private LinkedHashMap<String, JsonNode> big;

    /** @param expected the keys it should hold without growing (at most {@link #LIMIT} are made room for) */
    SmallObjectMap(int expected) {
        this.pairs = new Object[2 * Math.max(1, Math.min(expected, LIMIT))];
    }

    private int indexOf(Object key) {
        Object[] a = pairs;
        int n = 2 * size;
        for (int i = 0; i < n; i += 2) {
            if (a[i] == key) {
                return i;
            }
        }
        if (key != null) {
            for (int i = 0; i < n; i += 2) {
                if (key.equals(a[i])) {
                    return i;
                }
            }
        }
        return -1;
    }

    @Override
    public int size() {
        return big != null ? big.size() : size;
    }

    @Override
    public boolean containsKey(Object key) {
        return big != null ? big.containsKey(key) : indexOf(key) >= 0;
    }

    @Override
    public JsonNode get(Object key) {
        if (big != null) {
            return big.get(key);
        }
        int i = indexOf(key);
        return i < 0 ? null : (JsonNode) pairs[i + 1];
    }

    @Override
    public JsonNode put(String key, JsonNode value) {
        if (big != null) {
            return big.put(key, value);
        }
        int i = indexOf(key);
        if (i >= 0) {
            JsonNode old = (JsonNode) pairs[i + 1];
            pairs[i + 1] = value;
            return old;
        }
        if (size == LIMIT) {
            LinkedHashMap<String, JsonNode> m = new LinkedHashMap<>(4 * LIMIT);
            for (int j = 0; j < 2 * size; j += 2) {
                m.put((String) pairs[j], (JsonNode) pairs[j + 1]);
            }
            m.put(key, value);
            big = m;
            pairs = null;
            size = 0;
            modCount++;
            return null;
        }
        if (2 * size == pairs.length) {
            pairs = java.util.Arrays.copyOf(pairs, Math.min(2 * LIMIT, 2 * pairs.length));
        }
        pairs[2 * size] = key;
        pairs[2 * size + 1] = value;
        size++;
        modCount++;
        return null;
    }

    @Override
    public JsonNode remove(Object key) {
        if (big != null) {
            return big.remove(key);
        }
        int i = indexOf(key);
        if (i < 0) {
            return null;
        }
        JsonNode old = (JsonNode) pairs[i + 1];
        removeAt(i);
        return old;
    }

    private void removeAt(int i) {
        int n = 2 * size;
        System.arraycopy(pairs, i + 2, pairs, i, n - i - 2);
        pairs[n - 2] = null;
        pairs[n - 1] = null;
        size--;
        modCount++;
    }

    @Override
    public void clear() {
        if (big != null) {
            big.clear();
            return;
        }
        java.util.Arrays.fill(pairs, 0, 2 * size, null);
        size = 0;
        modCount++;
    }

    @Override
    public Set<Entry<String, JsonNode>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Entry<String, JsonNode>> iterator() {
                return big != null ? big.entrySet().iterator() : new Entries();
            }

            @Override
            public int size() {
                return SmallObjectMap.this.size();
            }

            @Override
            public void clear() {
                SmallObjectMap.this.clear();
            }
        };
    }

    /** In insertion order; {@code remove()} and {@code setValue} write through. */
    private final class Entries implements Iterator<Entry<String, JsonNode>> {
        private int next;
        private int last = -1;
        private int expectedMod = modCount;

        @Override
        public boolean hasNext() {
            // moved into the large map meanwhile: next() then throws, as a LinkedHashMap's iterator would
            return big != null || next < 2 * size;
        }

        @Override
        public Entry<String, JsonNode> next() {
            if (modCount != expectedMod || big != null) {
                throw new ConcurrentModificationException();
            }
            if (next >= 2 * size) {
                throw new NoSuchElementException();
            }
            last = next;
            next += 2;
            return new Pair(last);
        }

        @Override
        public void remove() {
            if (last < 0) {
                throw new IllegalStateException();
            }
            if (modCount != expectedMod || big != null) {
                throw new ConcurrentModificationException();
            }
            removeAt(last);
            next = last;
            last = -1;
            expectedMod = modCount;
        }
    }

    /** An entry at its index while the map is not changed structurally (as an iterator's entry). */
    private final class Pair implements Entry<String, JsonNode> {
        private final int at;
        private final String key;

        Pair(int at) {
            this.at = at;
            this.key = (String) pairs[at];
        }

        @Override
        public String getKey() {
            return key;
        }

        @Override
        public JsonNode getValue() {
            return pairs != null && at < 2 * size && pairs[at] == key ? (JsonNode) pairs[at + 1] : get(key);
        }

        @Override
        public JsonNode setValue(JsonNode value) {
            if (pairs != null && at < 2 * size && pairs[at] == key) {
                JsonNode old = (JsonNode) pairs[at + 1];
                pairs[at + 1] = value;
                return old;
            }
            return put(key, value);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Map.Entry<?, ?> e && Objects.equals(key, e.getKey())
                    && Objects.equals(getValue(), e.getValue());
        }

        @Override
        public int hashCode() {
            return Objects.hashCode(key) ^ Objects.hashCode(getValue());
        }

        @Override
        public String toString() {
            return key + "=" + getValue();
        }
    }
}
