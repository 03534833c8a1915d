package dev.toolbus.executor.approval;

import dev.toolbus.internal.weights.ResultWeights;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import java.util.HashMap;
import java.util.Map;

/**
 * The bytes the turns waiting for approval hold, in all and per principal (issue 21 M8: every waiting
 * turn kept its whole event, up to 1 MiB, without a byte bound). A turn is weighed once, when its
 * request would open, and given back when the request ends, however it ends.
 */
final class WaitingTurns {

    /** What a turn costs besides its calls: the event, its lists, the request and its entries. */
    static final long TURN_OVERHEAD = 512;

    private long total;
    private final Map<String, Long> perPrincipal = new HashMap<>();

    /**
     * Takes {@code bytes} for a turn of {@code principal} ({@code null}: not known, only the total
     * applies); nothing is taken when a bound would be passed.
     */
    synchronized boolean take(String principal, long bytes, long maxTotal, long maxPerPrincipal) {
        if (total + bytes > maxTotal) {
            return false;
        }
        if (principal != null) {
            long mine = perPrincipal.getOrDefault(principal, 0L);
            if (mine + bytes > maxPerPrincipal) {
                return false;
            }
            perPrincipal.put(principal, mine + bytes);
        }
        total += bytes;
        return true;
    }

    synchronized void give(String principal, long bytes) {
        total = Math.max(0, total - bytes);
        if (principal != null) {
            perPrincipal.computeIfPresent(principal, (k, v) -> v - bytes <= 0 ? null : v - bytes);
        }
    }

    /** The bytes held now, in all. */
    synchronized long total() {
        return total;
    }

    /** The bytes of the principal's waiting turns now. */
    synchronized long of(String principal) {
        return perPrincipal.getOrDefault(principal, 0L);
    }

    /** A turn's estimated weight on the heap, counted only until just past {@code limit}. */
    static long weigh(ToolCallsEvent turn, long limit) {
        long n = TURN_OVERHEAD + 2L * (turn.streamId().length() + turn.turnId().length());
        for (ToolCall c : turn.calls()) {
            if (n > limit) {
                return n;
            }
            n += ResultWeights.estimate(c.toolCallId(), limit) + ResultWeights.estimate(c.name(), limit);
            n += ResultWeights.estimate(c.arguments(), limit) + ResultWeights.estimate(c.argumentsJson(), limit);
        }
        n += ResultWeights.estimate(turn.message(), limit);
        n += ResultWeights.estimate(turn.context().extra(), limit);
        return n;
    }
}
