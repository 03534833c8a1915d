package dev.toolbus.tool;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Derives {@link ToolContext#idempotencyKey()}: a hex SHA-256 of stream, turn and call id. */
final class IdempotencyKeys {

    private IdempotencyKeys() {
    }

    static String of(String streamId, String turnId, String toolCallId) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String part : new String[] {streamId, turnId, toolCallId}) {
                byte[] b = (part == null ? "" : part).getBytes(StandardCharsets.UTF_8);
                sha.update((byte) (b.length >>> 24));
                sha.update((byte) (b.length >>> 16));
                sha.update((byte) (b.length >>> 8));
                sha.update((byte) b.length);
                sha.update(b);
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
