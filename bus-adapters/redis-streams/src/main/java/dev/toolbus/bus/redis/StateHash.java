package dev.toolbus.bus.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * SHA-256 over length-prefixed parts (each part its UTF-8 length as four big-endian bytes, then its
 * bytes), in 64 hex digits: how the turn state names a key built from ids that are not already a
 * {@code TurnKey}/{@code CallKey} hash (a stream's holds and cut results), the same scheme those keys use.
 * Two different lists of parts never give the same input.
 */
final class StateHash {

    private StateHash() {
    }

    static String of(String... parts) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
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
        return HexFormat.of().formatHex(md.digest());
    }
}
