package dev.toolbus.protocol;

import java.io.OutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The reusable byte buffer one thread encodes outbound events into ({@link OutboundCodec}). It starts
 * at {@value #INITIAL} bytes and grows as an event needs; after use, one that grew past {@value #KEEP}
 * bytes is dropped so a thread holds at most that much between events. Not thread-safe: one per
 * thread, taken with {@link #take()} and given back with {@link #release()}; a nested encode on the
 * same thread gets a fresh buffer.
 */
final class EncodeBuffer extends OutputStream {

    static final int INITIAL = 2 * 1024;
    static final int KEEP = 64 * 1024;

    private static final ThreadLocal<EncodeBuffer> LOCAL = new ThreadLocal<>();
    /** The buffer's bytes read eight at a time, little-endian, at any index. */
    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;

    private byte[] buf = new byte[INITIAL];
    private int count;
    private boolean inUse;

    private EncodeBuffer() {
    }

    /** This thread's buffer, emptied; a fresh one when it is already in use (a nested encode). */
    static EncodeBuffer take() {
        EncodeBuffer b = LOCAL.get();
        if (b == null) {
            b = new EncodeBuffer();
            LOCAL.set(b);
        } else if (b.inUse) {
            return new EncodeBuffer(); // not kept: the thread's own is given back by the outer encode
        }
        b.inUse = true;
        b.count = 0;
        return b;
    }

    /** Gives the buffer back; one that grew past {@link #KEEP} is replaced by a small one. */
    void release() {
        inUse = false;
        count = 0;
        if (buf.length > KEEP) {
            buf = new byte[INITIAL];
        }
    }

    @Override
    public void write(int b) {
        ensure(count + 1);
        buf[count++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
        ensure(count + len);
        System.arraycopy(b, off, buf, count, len);
        count += len;
    }

    private void ensure(int needed) {
        if (needed < 0) {
            throw new OutOfMemoryError("encoded event above 2 GiB");
        }
        if (needed > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(needed, (int) Math.min(Integer.MAX_VALUE - 8, buf.length * 2L)));
        }
    }

    byte[] array() {
        return buf;
    }

    int size() {
        return count;
    }

    /**
     * Whether the bytes differ from what the String encoder gives, or may: a raw line feed or carriage
     * return (UTF-8 never uses 0x0A/0x0D inside a character), or an escaped surrogate ({@code \\uD800}
     * to {@code \\uDFFF}: the byte generator escapes an unpaired one, the String encoder writes it as
     * {@code ?}). An escaped backslash is skipped, so text that holds a literal {@code \\uD...} is no match.
     */
    boolean needsStringPath() {
        return needsStringPath(buf, count);
    }

    /**
     * {@link #needsStringPath()} over {@code b[0, n)}: eight bytes at a time past the stretches that hold
     * none of LF, CR and backslash (most of an event), byte by byte from a word that holds one.
     */
    static boolean needsStringPath(byte[] b, int n) {
        int i = 0;
        while (i < n) {
            if (i + Long.BYTES <= n && !hasSpecial((long) WORDS.get(b, i))) {
                i += Long.BYTES;
                continue;
            }
            int end = Math.min(n, i + Long.BYTES);
            while (i < end) {
                byte c = b[i];
                if (c == '\n' || c == '\r') {
                    return true;
                }
                if (c == '\\' && i + 1 < n) {
                    byte next = b[i + 1];
                    if (next == 'u' && i + 2 < n && (b[i + 2] == 'D' || b[i + 2] == 'd')) {
                        return true;
                    }
                    i++; // the escaped character, a backslash included (it may lie in the next word)
                }
                i++;
            }
        }
        return false;
    }

    /** Whether one of the word's bytes is LF, CR or a backslash (exact for the whole word). */
    private static boolean hasSpecial(long w) {
        long lf = w ^ (ONES * '\n');
        long cr = w ^ (ONES * '\r');
        long bs = w ^ (ONES * '\\');
        // (x - 0x01..) & ~x & 0x80.. is non-zero exactly when a byte of x is zero
        return ((((lf - ONES) & ~lf) | ((cr - ONES) & ~cr) | ((bs - ONES) & ~bs)) & HIGHS) != 0;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(buf, count);
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
