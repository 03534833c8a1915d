package dev.toolbus.executor.state;

import dev.toolbus.spi.TurnKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * The finished turns of the in-memory ledger, oldest first, written into a ring of byte chunks: each
 * record (its key, when it was written and its encoded events) is appended at the head, the oldest
 * leave at the tail, and an open-addressing index of positions finds a key's newest record. Bounded by
 * its bytes (the ring, {@code maxBytes}), its records ({@code maxEntries}) and their age (the window).
 *
 * <p>Why bytes and not objects: a record lives for minutes, so as objects every one of them was
 * copied by young collections, promoted, and then left as garbage in the old generation in the order it
 * was written; in the at-least-once Kafka load run that was the largest cost per turn after the broker
 * client (docs/benchmarks.md, tenth pass). Here a turn adds no object that outlives it: the chunks and
 * the index are allocated as they first fill, then reused.
 *
 * <p>Eviction is strictly by age, which is what a ledger of repeats needs: a repeat comes soon after its
 * turn (a redelivery, a client's retry), so the newest records matter most. Every method takes the one
 * lock; the ledger calls it once per admission and once per finished turn.
 *
 * <p>A record at a position: its length (int; a negative one skips the rest of a chunk), the key's
 * hash (long), when it was written (long, the clock's nanoseconds), the key (principal key, stream id,
 * turn id, each an int length and UTF-8), the number of events (int, or -1 when kept without them),
 * then each event's length and bytes. A record never straddles two chunks.
 */
final class RecentTurns {

    /**
     * A chunk's size unless a record may be larger: under half of G1's smallest region (1 MiB), so a
     * chunk is an ordinary array, not a humongous one taking whole regions. A smaller {@code maxBytes}
     * makes one chunk of that size.
     */
    static final int CHUNK = 256 * 1024;
    /** Room for a record's key and header beside its largest events. */
    private static final int KEY_ROOM = 4 * 1024;
    private static final int MAX_CHUNKS = 1 << 16;
    private static final int FIXED = 4 + 8 + 8;

    private final long windowNanos;
    private final long maxEntries;
    private final LongSupplier nanoClock;
    private final int chunkSize;
    private final ByteBuffer[] chunks;
    private final long capacity;
    private final int maxSlots;

    /** Index: a record's position + 1 (0: empty), and its key's hash. Linear probing. */
    private long[] positions = new long[16];
    private long[] hashes = new long[16];
    private int live;
    /** Virtual positions: {@code tail <= head}, {@code head - tail <= capacity}. */
    private long head;
    private long tail;

    /**
     * @param largestEvents the most bytes of events one record keeps (larger ones are kept without
     *                      events); chunks grow past {@link #CHUNK} to hold such a record
     */
    RecentTurns(long windowNanos, long maxBytes, long maxEntries, long largestEvents, LongSupplier nanoClock) {
        this.windowNanos = windowNanos;
        this.maxEntries = Math.max(1, maxEntries);
        this.nanoClock = nanoClock;
        long chunk = Math.max(CHUNK, Math.min(largestEvents, 1L << 29) + KEY_ROOM);
        this.chunkSize = (int) Math.max(64, Math.min(maxBytes, chunk));
        this.chunks = new ByteBuffer[(int) Math.max(1, Math.min(MAX_CHUNKS, maxBytes / chunkSize))];
        this.capacity = (long) chunks.length * chunkSize;
        this.maxSlots = Integer.highestOneBit((int) Math.min(1 << 29, Math.max(16, this.maxEntries * 2 - 1))) << 1;
    }

    /**
     * The key's recorded events: null when there is no record or it is out of the window, none when it
     * was kept without them.
     */
    synchronized byte[][] get(TurnKey key) {
        byte[] k = keyBytes(key);
        long h = hash(k);
        int slot = find(k, h);
        if (slot < 0) {
            return null;
        }
        long pos = positions[slot] - 1;
        ByteBuffer c = chunk(pos);
        int off = offset(pos);
        if (nanoClock.getAsLong() - c.getLong(off + 12) >= windowNanos) {
            return null;
        }
        int at = off + FIXED + k.length;
        int n = c.getInt(at);
        at += 4;
        if (n < 0) {
            return new byte[0][];
        }
        byte[][] out = new byte[n][];
        for (int i = 0; i < n; i++) {
            int len = c.getInt(at);
            out[i] = new byte[len];
            c.get(at + 4, out[i]);
            at += 4 + len;
        }
        return out;
    }

    /**
     * Keeps the key's record (replacing an older one), then drops the oldest while over a bound or out
     * of the window. {@code events} null: kept without events, as it is when they do not fit a chunk.
     */
    synchronized void put(TurnKey key, byte[][] events) {
        byte[] k = keyBytes(key);
        long length = FIXED + k.length + 4L;
        if (events != null) {
            long all = length;
            for (byte[] e : events) {
                all += 4L + e.length;
            }
            if (all <= chunkSize) {
                length = all;
            } else {
                events = null;
            }
        }
        long h = hash(k);
        long now = nanoClock.getAsLong();
        dropExpired(now);
        if (length > chunkSize) {
            remove(k, h); // its key alone is larger than the ring: not kept, nor an older record
            return;
        }
        int room = chunkSize - offset(head);
        if (room < length) {
            while (head + room - tail > capacity) {
                dropOldest();
            }
            skip(room);
        }
        while (head + length - tail > capacity) {
            dropOldest();
        }
        long pos = head;
        ByteBuffer c = writableChunk(pos);
        int at = offset(pos);
        c.putInt(at, (int) length).putLong(at + 4, h).putLong(at + 12, now);
        c.put(at + FIXED, k);
        at += FIXED + k.length;
        if (events == null) {
            c.putInt(at, -1);
        } else {
            c.putInt(at, events.length);
            at += 4;
            for (byte[] e : events) {
                c.putInt(at, e.length);
                c.put(at + 4, e);
                at += 4 + e.length;
            }
        }
        head += length;
        int slot = find(k, h);
        if (slot >= 0) {
            positions[slot] = pos + 1; // the older record stays in the ring until it reaches the tail
        } else {
            insert(pos, h);
        }
        while (live > maxEntries) {
            dropOldest();
        }
    }

    /** Records kept (out-of-window ones not yet dropped included). */
    synchronized long size() {
        return live;
    }

    /** The bytes of the ring they take (replaced records and chunk ends not yet passed by the tail included). */
    synchronized long weight() {
        return head - tail;
    }

    // ---------------------------------------------------------------- the ring

    private void skip(int room) {
        if (room >= 4) {
            writableChunk(head).putInt(offset(head), -room);
        }
        head += room;
    }

    private void dropExpired(long now) {
        while (tail < head) {
            int off = offset(tail);
            int room = chunkSize - off;
            int len = room < 4 ? -room : chunk(tail).getInt(off);
            if (len < 0) {
                tail += -len;
            } else if (now - chunk(tail).getLong(off + 12) >= windowNanos) {
                dropOldest();
            } else {
                return;
            }
        }
    }

    /** Moves the tail past one record (or a chunk's skipped end), unindexing it unless replaced. */
    private void dropOldest() {
        int off = offset(tail);
        int room = chunkSize - off;
        if (room < 4) {
            tail += room;
            return;
        }
        ByteBuffer c = chunk(tail);
        int len = c.getInt(off);
        if (len < 0) {
            tail += -len;
            return;
        }
        long h = c.getLong(off + 4);
        for (int i = home(h); positions[i] != 0; i = (i + 1) & (positions.length - 1)) {
            if (positions[i] == tail + 1) {
                unindex(i);
                break;
            }
        }
        tail += len;
    }

    private ByteBuffer chunk(long pos) {
        return chunks[chunkIndex(pos)];
    }

    /** The chunk the head writes into, taken the first time the head reaches it. */
    private ByteBuffer writableChunk(long pos) {
        ByteBuffer c = chunks[chunkIndex(pos)];
        if (c == null) {
            c = ByteBuffer.allocate(chunkSize);
            chunks[chunkIndex(pos)] = c;
        }
        return c;
    }

    private int chunkIndex(long pos) {
        return (int) ((pos / chunkSize) % chunks.length);
    }

    private int offset(long pos) {
        return (int) (pos % chunkSize);
    }

    // ---------------------------------------------------------------- the index

    /** The slot holding the key's newest record, or -1. */
    private int find(byte[] k, long h) {
        int mask = positions.length - 1;
        for (int i = home(h); positions[i] != 0; i = (i + 1) & mask) {
            if (hashes[i] == h && sameKey(positions[i] - 1, k)) {
                return i;
            }
        }
        return -1;
    }

    private boolean sameKey(long pos, byte[] k) {
        ByteBuffer c = chunk(pos);
        int off = offset(pos);
        if (c.getInt(off) < FIXED + k.length + 4) {
            return false;
        }
        return Arrays.equals(c.array(), off + FIXED, off + FIXED + k.length, k, 0, k.length);
    }

    private void remove(byte[] k, long h) {
        int slot = find(k, h);
        if (slot >= 0) {
            unindex(slot);
        }
    }

    private void insert(long pos, long h) {
        if ((live + 1) * 2L > positions.length && positions.length < maxSlots) {
            grow();
        }
        int mask = positions.length - 1;
        int i = home(h);
        while (positions[i] != 0) {
            i = (i + 1) & mask;
        }
        positions[i] = pos + 1;
        hashes[i] = h;
        live++;
    }

    private void grow() {
        long[] oldPositions = positions;
        long[] oldHashes = hashes;
        positions = new long[oldPositions.length * 2];
        hashes = new long[oldPositions.length * 2];
        int mask = positions.length - 1;
        for (int j = 0; j < oldPositions.length; j++) {
            if (oldPositions[j] != 0) {
                int i = home(oldHashes[j]);
                while (positions[i] != 0) {
                    i = (i + 1) & mask;
                }
                positions[i] = oldPositions[j];
                hashes[i] = oldHashes[j];
            }
        }
    }

    /** Empties a slot, moving later slots of the same probe run back (no tombstones). */
    private void unindex(int slot) {
        int mask = positions.length - 1;
        int gap = slot;
        for (int i = (gap + 1) & mask; positions[i] != 0; i = (i + 1) & mask) {
            int home = home(hashes[i]);
            // the entry at i may fill the gap when its home is not cyclically within (gap, i]
            boolean between = gap <= i ? gap < home && home <= i : gap < home || home <= i;
            if (!between) {
                positions[gap] = positions[i];
                hashes[gap] = hashes[i];
                gap = i;
            }
        }
        positions[gap] = 0;
        hashes[gap] = 0;
        live--;
    }

    private int home(long h) {
        return (int) (h ^ (h >>> 32)) & (positions.length - 1);
    }

    /** The key's bytes: principal key, stream id and turn id, each its UTF-8 length (int) and bytes. */
    private static byte[] keyBytes(TurnKey key) {
        byte[] p = key.principal().key().getBytes(StandardCharsets.UTF_8);
        byte[] s = key.streamId().getBytes(StandardCharsets.UTF_8);
        byte[] t = key.turnId().getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(12 + p.length + s.length + t.length);
        b.putInt(p.length).put(p).putInt(s.length).put(s).putInt(t.length).put(t);
        return b.array();
    }

    /** 64-bit FNV-1a, then a finalizer (the index takes the low bits). */
    private static long hash(byte[] k) {
        long h = 0xcbf29ce484222325L;
        for (byte b : k) {
            h = (h ^ (b & 0xff)) * 0x100000001b3L;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        return h;
    }
}
