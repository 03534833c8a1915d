package dev.toolbus.plugins.stdio;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads {@code \n}-terminated UTF-8 lines with a hard bound on the bytes kept per line. Memory use
 * never exceeds the bound plus one read buffer, whatever the other side writes.
 */
final class LineReader {

    /** One line; {@code overlong} when the line had more than the bound's bytes. */
    record Line(String text, boolean overlong) {
    }

    private final InputStream in;
    private final int maxBytes;
    private final byte[] buf = new byte[8192];
    private int pos;
    private int lim;
    private byte[] line = new byte[256];
    private int len;

    LineReader(InputStream in, int maxBytes) {
        this.in = in;
        this.maxBytes = maxBytes;
    }

    /**
     * The next line without its terminator (a trailing {@code \r} is dropped too), or {@code null} at
     * the end of the stream. A line that reaches the bound is returned at once, cut at the bound and
     * marked overlong; with {@code skipRest} the rest of it is read and thrown away first, otherwise the
     * stream is left in the middle of the line (the caller is expected to stop reading).
     */
    Line next(boolean skipRest) throws IOException {
        return next(skipRest, n -> true);
    }

    /**
     * Like {@link #next(boolean)}, but the line is decoded only when {@code decode} accepts its byte
     * count; otherwise its text is {@code null} (cheap skipping of lines nobody will read).
     */
    Line next(boolean skipRest, java.util.function.IntPredicate decode) throws IOException {
        this.decode = decode;
        len = 0;
        while (true) {
            if (pos == lim) {
                lim = in.read(buf, 0, buf.length);
                pos = 0;
                if (lim <= 0) {
                    lim = 0;
                    return len == 0 ? null : new Line(text(), false);
                }
            }
            int start = pos;
            while (pos < lim && buf[pos] != '\n') {
                pos++;
            }
            int chunk = pos - start;
            if (len + chunk > maxBytes) {
                append(start, maxBytes - len);
                if (skipRest) {
                    skipToNewline();
                }
                return new Line(text(), true);
            }
            append(start, chunk);
            if (pos < lim) {
                pos++; // the newline
                return new Line(text(), false);
            }
        }
    }

    private void skipToNewline() throws IOException {
        while (true) {
            while (pos < lim) {
                if (buf[pos++] == '\n') {
                    return;
                }
            }
            lim = in.read(buf, 0, buf.length);
            pos = 0;
            if (lim <= 0) {
                lim = 0;
                return;
            }
        }
    }

    private void append(int from, int n) {
        if (len + n > line.length) {
            line = Arrays.copyOf(line, Math.min(maxBytes, Math.max(line.length * 2, len + n)));
        }
        System.arraycopy(buf, from, line, len, n);
        len += n;
    }

    private java.util.function.IntPredicate decode = n -> true;

    private String text() {
        if (!decode.test(len)) {
            return null;
        }
        int n = len;
        if (n > 0 && line[n - 1] == '\r') {
            n--;
        }
        return new String(line, 0, n, StandardCharsets.UTF_8);
    }
}
