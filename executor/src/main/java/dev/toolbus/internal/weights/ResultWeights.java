package dev.toolbus.internal.weights;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolResult;
import java.util.Collection;
import java.util.Iterator;
import java.util.Map;

/**
 * Estimated heap bytes of a cached result (two bytes per character, a fixed overhead per node and
 * object), counting only until a limit: enough to bound the cache by bytes without serialising
 * anything. Not API: shared by the engine's cache and the turn ledger, may change without notice.
 */
public final class ResultWeights {

    /** What an entry costs besides its key and result: the map node, the future, the flight. */
    public static final long ENTRY_OVERHEAD = 200;
    private static final long NODE = 40;
    private static final long UNKNOWN_OBJECT = 256;

    private ResultWeights() {
    }

    /** The estimated size of a result, or a value above {@code limit} once it exceeds it. */
    public static long of(ToolResult r, long limit) {
        long[] n = {NODE * 4};
        add(n, r.content());
        add(n, r.errorMessage());
        for (ContentItem item : r.contentItems()) {
            if (n[0] > limit) {
                return n[0];
            }
            n[0] += NODE;
            add(n, item.text());
            add(n, item.data());
            add(n, item.uri());
            add(n, item.name());
            add(n, item.description());
            add(n, item.mimeType());
            value(n, item.metadata(), limit, 0);
        }
        value(n, r.metadata(), limit, 0);
        value(n, r.data(), limit, 0);
        return n[0];
    }

    /** The estimated size of any value (strings, JSON trees, maps, lists, records count a fixed amount), up to just past {@code limit}. */
    public static long estimate(Object v, long limit) {
        long[] n = {0};
        value(n, v, limit, 0);
        return n[0];
    }

    private static void add(long[] n, String s) {
        if (s != null) {
            n[0] += NODE + 2L * s.length();
        }
    }

    private static void value(long[] n, Object v, long limit, int depth) {
        if (v == null || n[0] > limit) {
            return;
        }
        if (depth > 64) {
            n[0] += UNKNOWN_OBJECT;
            return;
        }
        if (v instanceof CharSequence s) {
            n[0] += NODE + 2L * s.length();
        } else if (v instanceof JsonNode j) {
            node(n, j, limit);
        } else if (v instanceof Map<?, ?> m) {
            n[0] += NODE;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (n[0] > limit) {
                    return;
                }
                value(n, e.getKey(), limit, depth + 1);
                value(n, e.getValue(), limit, depth + 1);
            }
        } else if (v instanceof Collection<?> c) {
            n[0] += NODE;
            for (Object o : c) {
                if (n[0] > limit) {
                    return;
                }
                value(n, o, limit, depth + 1);
            }
        } else if (v instanceof byte[] b) {
            n[0] += NODE + b.length;
        } else if (v instanceof Number || v instanceof Boolean || v instanceof Character || v instanceof Enum<?>) {
            n[0] += NODE;
        } else {
            n[0] += UNKNOWN_OBJECT;
        }
    }

    private static void node(long[] n, JsonNode j, long limit) {
        n[0] += NODE;
        if (j.isTextual()) {
            n[0] += 2L * j.textValue().length();
        } else if (j instanceof com.fasterxml.jackson.databind.node.BinaryNode b) {
            n[0] += b.binaryValue().length;
        } else if (j.isContainerNode()) {
            if (j.isObject()) {
                Iterator<Map.Entry<String, JsonNode>> it = j.fields();
                while (it.hasNext() && n[0] <= limit) {
                    Map.Entry<String, JsonNode> e = it.next();
                    n[0] += NODE + 2L * e.getKey().length();
                    node(n, e.getValue(), limit);
                }
            } else {
                for (int i = 0; i < j.size() && n[0] <= limit; i++) {
                    node(n, j.get(i), limit);
                }
            }
        }
    }
}
