package dev.toolbus.result;

import dev.toolbus.tool.ContentItem;

/**
 * The base64 payload of a media item, as a range of its source string (no copy): {@code data}, else a
 * {@code data:} URL in {@code uri}; a {@code data:…,} prefix and surrounding whitespace are skipped.
 *
 * <p>Decoding is MaiBot's: strict base64 first, else the text re-padded to a multiple of four and
 * decoded leniently (characters outside the alphabet ignored, decoding stops at the padding), else
 * nothing. Strict success implies the lenient pass gives the same bytes, so only the lenient pass
 * runs. A non-ASCII character fails both (Python refuses such a string).
 */
final class Base64Payload {

    private static final byte[] TABLE = new byte[128];

    static {
        java.util.Arrays.fill(TABLE, (byte) -1);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < alphabet.length(); i++) {
            TABLE[alphabet.charAt(i)] = (byte) i;
        }
    }

    private final String source;
    private final int from;
    private final int to;
    /** Decoded length, -1 when decoding fails; set by {@link #scan}. */
    private int length = -2;
    private boolean canonical;

    private Base64Payload(String source, int from, int to) {
        this.source = source;
        this.from = from;
        this.to = to;
    }

    /** The item's payload, or {@code null} when it has none. */
    static Base64Payload of(ContentItem item) {
        String raw = item.data();
        if (PyValues.isBlank(raw)) {
            raw = item.uri().startsWith("data:") ? item.uri() : "";
        }
        int from = 0;
        int to = raw.length();
        while (from < to && PyValues.isSpace(raw.charAt(from))) {
            from++;
        }
        while (to > from && PyValues.isSpace(raw.charAt(to - 1))) {
            to--;
        }
        if (raw.startsWith("data:", from)) {
            int comma = raw.indexOf(',', from);
            if (comma >= 0 && comma < to) {
                from = comma + 1;
                while (from < to && PyValues.isSpace(raw.charAt(from))) {
                    from++;
                }
            }
        }
        return from < to ? new Base64Payload(raw, from, to) : null;
    }

    /**
     * An upper bound of the decoded size from the text length alone: exact for canonical base64,
     * larger when the text holds whitespace or other ignored characters.
     */
    long maxDecodedBytes() {
        int pads = 0;
        for (int i = to - 1; i >= from && pads < 2 && source.charAt(i) == '='; i--) {
            pads++;
        }
        return (long) (to - from - pads) * 3 / 4;
    }

    /**
     * Validates without allocating and fills {@code head} with the first decoded bytes.
     *
     * @return the decoded length, or -1 when the text does not decode
     */
    int scan(byte[] head) {
        length = run(head);
        return length;
    }

    /** Whether the text is already canonical padded base64 (valid after {@link #scan}). */
    boolean isCanonical() {
        return canonical;
    }

    /** The payload text, the source itself when nothing was skipped. */
    String text() {
        return source.substring(from, to);
    }

    /** All decoded bytes; call after a successful {@link #scan}. */
    byte[] decode() {
        byte[] out = new byte[length];
        run(out);
        return out;
    }

    /** One lenient decoding pass, writing at most {@code out.length} bytes; returns the total or -1. */
    private int run(byte[] out) {
        int cap = out == null ? 0 : out.length;
        int virtualPads = (4 - (to - from) % 4) % 4;
        int quad = 0;
        int pads = 0;
        int left = 0;
        int n = 0;
        boolean skipped = false;
        int end = to + virtualPads;
        for (int i = from; i < end; i++) {
            char c = i < to ? source.charAt(i) : '=';
            if (c == '=') {
                if (quad >= 2 && quad + ++pads >= 4) {
                    canonical = !skipped && virtualPads == 0 && i == to - 1 && left == 0;
                    return n;
                }
                skipped |= quad != 2 || pads != 1;
                continue;
            }
            if (c >= 128) {
                return -1;
            }
            int v = TABLE[c];
            if (v < 0) {
                skipped = true;
                continue;
            }
            skipped |= pads > 0;
            pads = 0;
            int b;
            switch (quad) {
                case 0 -> {
                    left = v;
                    quad = 1;
                    continue;
                }
                case 1 -> {
                    b = left << 2 | v >> 4;
                    left = v & 0xf;
                    quad = 2;
                }
                case 2 -> {
                    b = left << 4 | v >> 2;
                    left = v & 0x3;
                    quad = 3;
                }
                default -> {
                    b = left << 6 | v;
                    left = 0;
                    quad = 0;
                }
            }
            if (n < cap) {
                out[n] = (byte) b;
            }
            n++;
        }
        if (quad != 0) {
            return -1;
        }
        canonical = !skipped && virtualPads == 0;
        return n;
    }
}
