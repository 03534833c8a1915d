package dev.toolbus.protocol;

import java.io.OutputStream;
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
        for (int i = 0; i < count; i++) {
            byte b = buf[i];
            if (b == '\n' || b == '\r') {
                return true;
            }
            if (b == '\\' && i + 1 < count) {
                byte next = buf[i + 1];
                if (next == 'u' && i + 2 < count && (buf[i + 2] == 'D' || buf[i + 2] == 'd')) {
                    return true;
                }
                i++; // the escaped character, a backslash included
            }
        }
        return false;
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
