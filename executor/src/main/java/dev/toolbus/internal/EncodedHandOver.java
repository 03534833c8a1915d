package dev.toolbus.internal;

/**
 * An event's encoding handed from the turn ledger, which encodes a turn's events to keep them, to the
 * bus's encode of the same event right after, on the same thread: the events of a turn are encoded
 * once, not twice. The ledger offers an array it no longer holds (it copied the bytes), and the first
 * encode of that same event object takes it, so the array is never shared. Per thread, a few slots,
 * matched by identity; an offer nobody takes is overwritten by later ones. Not API: shared by the
 * executor's packages, may change without notice.
 */
public final class EncodedHandOver {

    /** Larger encodings are not kept for a hand-over (a slot holds its array until overwritten). */
    public static final int MAX_BYTES = 8 * 1024;
    private static final int SLOTS = 4;

    private static final ThreadLocal<EncodedHandOver> CURRENT = ThreadLocal.withInitial(EncodedHandOver::new);

    private final Object[] events = new Object[SLOTS];
    private final byte[][] encoded = new byte[SLOTS][];
    private int next;

    private EncodedHandOver() {
    }

    /** Offers the event's encoding to the next encode of the same object on this thread. */
    public static void offer(Object event, byte[] bytes) {
        if (bytes.length > MAX_BYTES) {
            return;
        }
        EncodedHandOver h = CURRENT.get();
        int i = h.next;
        h.events[i] = event;
        h.encoded[i] = bytes;
        h.next = (i + 1) % SLOTS;
    }

    /** The encoding offered for this very object on this thread, taken (null when none). */
    public static byte[] take(Object event) {
        EncodedHandOver h = CURRENT.get();
        for (int i = 0; i < SLOTS; i++) {
            if (h.events[i] == event) {
                byte[] out = h.encoded[i];
                h.events[i] = null;
                h.encoded[i] = null;
                return out;
            }
        }
        return null;
    }
}
