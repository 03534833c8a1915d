package dev.toolbus.protocol;

/** Strict UTF-8 checks and byte counting without decoding or allocating. */
final class Utf8 {

    private Utf8() {
    }

    /**
     * The offset of the first byte that does not start a well-formed UTF-8 sequence (RFC 3629: no
     * overlong forms, no surrogates, nothing above U+10FFFF), or of the first NUL byte, which never
     * occurs in a UTF-8 JSON text; {@code -1} when every byte is fine.
     */
    static int firstInvalid(byte[] b, int off, int len) {
        int end = off + len;
        int i = off;
        while (i < end) {
            int c = b[i] & 0xFF;
            if (c >= 0x01 && c < 0x80) {
                i++;
                continue;
            }
            int n;
            int lo = 0x80;
            int hi = 0xBF;
            if (c >= 0xC2 && c <= 0xDF) {
                n = 1;
            } else if (c >= 0xE0 && c <= 0xEF) {
                n = 2;
                if (c == 0xE0) {
                    lo = 0xA0;
                } else if (c == 0xED) {
                    hi = 0x9F;
                }
            } else if (c >= 0xF0 && c <= 0xF4) {
                n = 3;
                if (c == 0xF0) {
                    lo = 0x90;
                } else if (c == 0xF4) {
                    hi = 0x8F;
                }
            } else {
                return i;
            }
            if (i + n >= end) {
                return i;
            }
            int second = b[i + 1] & 0xFF;
            if (second < lo || second > hi) {
                return i;
            }
            for (int k = 2; k <= n; k++) {
                int cont = b[i + k] & 0xFF;
                if (cont < 0x80 || cont > 0xBF) {
                    return i;
                }
            }
            i += n + 1;
        }
        return -1;
    }

    /** The UTF-8 length of {@code s}, counting only until it exceeds {@code limit}. */
    static long length(CharSequence s, long limit) {
        long n = 0;
        int len = s.length();
        for (int i = 0; i < len && n <= limit; i++) {
            char ch = s.charAt(i);
            if (ch < 0x80) {
                n++;
            } else if (ch < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(ch) && i + 1 < len && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
