package dev.toolbus.assembly.stdio;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Objects;

/**
 * Reads {@code \n}-terminated lines of bytes with a bound: a line longer than the bound is skipped to
 * its end and reported as overlong with its first bytes only, so memory stays bounded by the limit.
 * A trailing {@code \r} is removed; the last line may end at end of input without a newline.
 * Not thread-safe: one reader thread.
 */
final class BoundedLineReader {

    /** How many leading bytes of an overlong line are kept (enough to find its stream_id). */
    static final int PREFIX_BYTES = 4096;

    /**
     * One line.
     *
     * @param bytes the line without its terminator, or the first bytes of an overlong line
     * @param length the full length of the line in bytes, terminator excluded
     * @param overlong whether the line was above the bound
     */
    record Line(byte[] bytes, long length, boolean overlong) {
    }

    private final InputStream in;
    private final int maxBytes;
    private final byte[] buf = new byte[64 * 1024];
    private int pos;
    private int limit;
    private byte[] line = new byte[1024];
    private int size;

    BoundedLineReader(InputStream in, int maxBytes) {
        this.in = Objects.requireNonNull(in, "in");
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be at least 1");
        }
        this.maxBytes = maxBytes;
    }

    /** The next line, or {@code null} at end of input. Blocks until a line or end of input. */
    Line next() throws IOException {
        size = 0;
        long total = 0;
        boolean overlong = false;
        boolean sawAny = false;
        while (true) {
            if (pos == limit) {
                int n = in.read(buf);
                if (n < 0) {
                    return sawAny ? finish(total, overlong) : null;
                }
                pos = 0;
                limit = n;
                continue;
            }
            sawAny = true;
            int nl = indexOfNewline();
            int end = nl < 0 ? limit : nl;
            int len = end - pos;
            total += len;
            if (!overlong) {
                // one byte of slack for a '\r' before the '\n'
                if ((long) size + len > (long) maxBytes + 1) {
                    overlong = true;
                    append(buf, pos, Math.max(0, Math.min(len, PREFIX_BYTES - size)));
                } else {
                    append(buf, pos, len);
                }
            }
            pos = nl < 0 ? limit : nl + 1;
            if (nl >= 0) {
                return finish(total, overlong);
            }
        }
    }

    private Line finish(long total, boolean overlong) {
        if (!overlong && size > 0 && line[size - 1] == '\r') {
            size--;
            total--;
        }
        if (!overlong && size > maxBytes) {
            overlong = true;
        }
        if (overlong) {
            return new Line(Arrays.copyOf(line, Math.min(size, PREFIX_BYTES)), total, true);
        }
        return new Line(Arrays.copyOf(line, size), total, false);
    }

    private int indexOfNewline() {
        for (int i = pos; i < limit; i++) {
            if (buf[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private void append(byte[] src, int from, int len) {
        if (len <= 0) {
            return;
        }
        if (size + len > line.length) {
            line = Arrays.copyOf(line, Math.max(size + len, Math.min(line.length * 2, maxBytes + 1)));
        }
        System.arraycopy(src, from, line, size, len);
        size += len;
    }
}
