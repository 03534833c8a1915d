package dev.toolbus.spi;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256 over length-prefixed parts: each part is its UTF-8 length as four big-endian bytes followed by
 * its bytes, so no two different lists of parts hash the same input ({@code ("a:b","c")} and
 * {@code ("a","b:c")} differ). The turn state's keys ({@link TurnKey}, {@link CallKey}, {@link CutKey},
 * {@link GrantKey}) are named by it; a turn-state store names its other keys (a stream's holds, an
 * answer's request) with it too, so every key of the state follows one scheme.
 */
public final class KeyHash {

    private KeyHash() {
    }

    /**
     * The 64 lower-case hex digits of the hash.
     *
     * @param parts the parts, in order; none may be {@code null}
     * @return the hash in hex
     */
    public static String hex(String... parts) {
        return HexFormat.of().formatHex(digest(parts));
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

    /** One digest per thread: {@code MessageDigest.getInstance} looks the provider up on every call. */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    });

    private static byte[] digest(String... parts) {
        MessageDigest md = SHA256.get();
        md.reset();
        byte[] len = new byte[4];
        for (String p : parts) {
            byte[] b = p.getBytes(StandardCharsets.UTF_8);
            len[0] = (byte) (b.length >>> 24);
            len[1] = (byte) (b.length >>> 16);
            len[2] = (byte) (b.length >>> 8);
            len[3] = (byte) b.length;
            md.update(len);
            md.update(b);
        }
        return md.digest();
    }
}
