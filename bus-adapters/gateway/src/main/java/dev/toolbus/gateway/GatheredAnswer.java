package dev.toolbus.gateway;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;

/**
 * One non-streaming answer being gathered: the encoded events, counted against the {@link AnswerBudget}
 * as they arrive and given back once (when the answer was sent, refused, or its request went away).
 */
final class GatheredAnswer {

    private static final byte[] OPEN = {'['};
    private static final byte[] COMMA = {','};
    private static final byte[] CLOSE = {']'};

    private final AnswerBudget budget;
    private final String principal;
    private final List<byte[]> events = new ArrayList<>();
    private long held = 2;
    private boolean released;

    GatheredAnswer(AnswerBudget budget, String principal) {
        this.budget = budget;
        this.principal = principal;
    }

    /** Adds an encoded event; {@code null}, or the bound it would pass (then nothing is added). */
    synchronized String add(byte[] event) {
        if (released) {
            return null;
        }
        long bytes = event.length + 1L;
        String over = budget.take(principal, bytes);
        if (over != null) {
            return over;
        }
        held += bytes;
        events.add(event);
        return null;
    }

    /** The JSON array of the events, wrapping them (no copy). */
    synchronized ByteBuf body() {
        byte[][] parts = new byte[events.size() * 2 + 2][];
        int i = 0;
        parts[i++] = OPEN;
        for (int k = 0; k < events.size(); k++) {
            if (k > 0) {
                parts[i++] = COMMA;
            }
            parts[i++] = events.get(k);
        }
        parts[i++] = CLOSE;
        return Unpooled.wrappedBuffer(java.util.Arrays.copyOf(parts, i));
    }

    /** Gives the bytes back and drops the events; later calls do nothing. */
    synchronized void release() {
        if (released) {
            return;
        }
        released = true;
        budget.give(principal, held - 2);
        events.clear();
    }
}
