package dev.toolbus.mcp.server;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * How many {@code initialize} requests each HTTP client may send: a token bucket per client
 * ({@code burst} at once, refilled at {@code perSecond}), so that one client's flood of sessions
 * costs only its own. At most {@link #MAX_CLIENTS} buckets are kept (the least recently used goes).
 */
final class InitializeBuckets {

    static final int MAX_CLIENTS = 10_000;

    private final int burst;
    private final double perNano;
    private final LongSupplier nanos;
    private final Map<String, double[]> buckets = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, double[]> eldest) {
            return size() > MAX_CLIENTS;
        }
    };

    InitializeBuckets(int burst, double perSecond, LongSupplier nanos) {
        this.burst = burst;
        this.perNano = perSecond / 1e9;
        this.nanos = nanos;
    }

    /** Takes one {@code initialize} from the client's bucket; {@code false} when it is empty. */
    synchronized boolean take(String client) {
        long now = nanos.getAsLong();
        double[] b = buckets.computeIfAbsent(client, k -> new double[] {burst, now});
        b[0] = Math.min(burst, b[0] + (now - (long) b[1]) * perNano);
        b[1] = now;
        if (b[0] < 1) {
            return false;
        }
        b[0] -= 1;
        return true;
    }
}
