package dev.toolbus.mcp.server;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Who an HTTP client is, for the per-client bounds and bindings of the MCP endpoint (request ids,
 * sessions, {@code initialize}, {@code requestState}, tasks): with tokens configured, its token
 * ({@code token:} and a keyed hash of it, so the key never reveals the token); without tokens, every
 * client is the one local principal ({@code local}: the endpoint is then loopback only).
 */
final class ClientKeys {

    /** The principal of every client of an endpoint without tokens. */
    static final String LOCAL = "local";

    private final byte[] salt = new byte[32];

    ClientKeys() {
        new SecureRandom().nextBytes(salt);
    }

    /** The principal of a request that passed authentication with this {@code Authorization} header. */
    String of(boolean tokensRequired, String authorization) {
        if (!tokensRequired || authorization == null || authorization.length() < 7) {
            return LOCAL;
        }
        String token = authorization.substring(7).strip();
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(salt, "HmacSHA256"));
            byte[] d = mac.doFinal(token.getBytes(StandardCharsets.UTF_8));
            return "token:" + HexFormat.of().formatHex(d, 0, 12);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }
}
