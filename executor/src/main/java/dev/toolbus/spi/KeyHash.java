package dev.toolbus.spi;

import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * SHA-256 over length-prefixed parts: each part is its UTF-8 length as four big-endian bytes followed by
 * its bytes, so no two different lists of parts hash the same input ({@code ("a:b","c")} and
 * {@code ("a","b:c")} differ). The turn state's keys ({@link TurnKey}, {@link CallKey}, {@link CutKey},
 * {@link GrantKey}) are named by it; a turn-state store names its other keys (a stream's holds, an
 * answer's request) with it too, so every key of the state follows one scheme.
 */
public final class KeyHash {

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    /** The largest input a thread's scratch keeps; a longer one is hashed from an array of its own. */
    private static final int MAX_KEPT_BYTES = 4096;

    /**
     * A thread's digest and buffers: {@code MessageDigest.getInstance} looks the provider up on every
     * call, and a Redis bus hashes several keys per turn, so the input is gathered into one array (ASCII
     * copied as it is) and hashed with one update, the digest and its hex written into arrays kept here.
     */
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private KeyHash() {
    }

    /**
     * The 64 lower-case hex digits of the hash.
     *
     * @param parts the parts, in order; none may be {@code null}
     * @return the hash in hex
     */
    public static String hex(String... parts) {
        Scratch s = SCRATCH.get();
        byte[] d = s.digest(parts);
        byte[] h = s.hex;
        for (int i = 0; i < d.length; i++) {
            h[2 * i] = HEX[(d[i] >>> 4) & 0xf];
            h[2 * i + 1] = HEX[d[i] & 0xf];
        }
        return new String(h, 0, 2 * d.length, StandardCharsets.ISO_8859_1);
    }

    /**
     * The first {@code n} hex digits of the hash.
     *
     * @param n how many digits, 1 to 64
     * @param parts the parts, in order; none may be {@code null}
     * @return the first {@code n} digits of {@link #hex(String...)}
     */
    public static String hex(int n, String... parts) {
        return hex(parts).substring(0, n);
    }

    private static final class Scratch {
        private final MessageDigest md;
        private final byte[] out;
        final byte[] hex;
        private byte[] in = new byte[256];

        Scratch() {
            try {
                md = MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            out = new byte[md.getDigestLength()];
            hex = new byte[2 * out.length];
        }

        /** The digest of the length-prefixed parts, in {@link #out}; nothing of a failed call is kept. */
        byte[] digest(String... parts) {
            int max = 0;
            for (String p : parts) {
                max += 4 + 3 * p.length(); // UTF-8 takes at most three bytes per char
            }
            byte[] b = in;
            if (max > b.length) {
                b = new byte[max];
                if (max <= MAX_KEPT_BYTES) {
                    in = b;
                }
            }
            int at = 0;
            for (String p : parts) {
                at = put(p, b, at);
            }
            md.reset();
            md.update(b, 0, at);
            try {
                md.digest(out, 0, out.length);
            } catch (DigestException e) {
                throw new IllegalStateException(e);
            }
            return out;
        }

        /** {@code p} as its UTF-8 length (four bytes, big-endian) and its UTF-8 bytes, at {@code at}. */
        private static int put(String p, byte[] b, int at) {
            int n = p.length();
            int body = at + 4;
            int i = 0;
            while (i < n) {
                char c = p.charAt(i);
                if (c >= 0x80) {
                    break;
                }
                b[body + i++] = (byte) c;
            }
            int len = i;
            if (i < n) {
                // not ASCII: the JDK's encoder (lone surrogates become '?', as String.getBytes does)
                byte[] u = p.getBytes(StandardCharsets.UTF_8);
                System.arraycopy(u, 0, b, body, u.length);
                len = u.length;
            }
            b[at] = (byte) (len >>> 24);
            b[at + 1] = (byte) (len >>> 16);
            b[at + 2] = (byte) (len >>> 8);
            b[at + 3] = (byte) len;
            return body + len;
        }
    }
}
