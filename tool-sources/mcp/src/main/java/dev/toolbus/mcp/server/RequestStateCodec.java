package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code requestState} of an {@code input_required} result: which parked call the retry
 * continues, bound to the principal, the tool and its arguments, the round and an expiry, and
 * integrity-protected with HMAC-SHA256 ({@code v1.<payload>.<mac>}, both Base64url). The client
 * cannot read anything useful from it nor change it: a retry whose state fails any check is
 * refused with -32602, naming the check.
 */
final class RequestStateCodec {

    private static final String VERSION = "v1";
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getUrlDecoder();
    /** The longest state accepted: far above what {@link #encode} writes. */
    static final int MAX_CHARS = 1024;

    private final byte[] key;
    private final Clock clock;
    private final ObjectMapper mapper = new ObjectMapper();

    RequestStateCodec(byte[] key, Clock clock) {
        if (key.length < 16) {
            throw new IllegalArgumentException("the requestState key must have at least 16 bytes");
        }
        this.key = key.clone();
        this.clock = clock;
    }

    /** What a state names. */
    record State(String call, int round, long expiresAtMs) {
    }

    /** The state of round {@code round} of a call. */
    String encode(String call, String principal, String tool, byte[] argsDigest, int round, long expiresAtMs) {
        ObjectNode p = mapper.createObjectNode();
        p.put("c", call);
        p.put("p", B64.encodeToString(digest(principal.getBytes(StandardCharsets.UTF_8), 16)));
        p.put("m", "tools/call");
        p.put("n", tool);
        p.put("a", B64.encodeToString(argsDigest));
        p.put("r", round);
        p.put("e", expiresAtMs);
        String payload = B64.encodeToString(p.toString().getBytes(StandardCharsets.UTF_8));
        String signed = VERSION + "." + payload;
        return signed + "." + B64.encodeToString(mac(signed));
    }

    /**
     * Checks a state against the retry that carries it.
     *
     * @throws ModernError -32602 "requestState rejected: …" when it is malformed, its MAC is wrong, or
     *     it names another principal, method, tool or arguments, or it expired
     */
    State decode(String state, String principal, String method, String tool, byte[] argsDigest) {
        if (state == null || state.length() > MAX_CHARS) {
            throw rejected("malformed");
        }
        int a = state.indexOf('.');
        int b = state.lastIndexOf('.');
        if (a < 0 || b <= a || !state.substring(0, a).equals(VERSION)) {
            throw rejected("malformed");
        }
        byte[] given;
        JsonNode p;
        try {
            given = B64D.decode(state.substring(b + 1));
            if (!MessageDigest.isEqual(given, mac(state.substring(0, b)))) {
                throw rejected("its signature does not match (tampered, or issued by another server key)");
            }
            p = mapper.readTree(B64D.decode(state.substring(a + 1, b)));
        } catch (ModernError e) {
            throw e;
        } catch (IllegalArgumentException | java.io.IOException e) {
            throw rejected("malformed");
        }
        if (!MessageDigest.isEqual(B64D.decode(p.path("p").asText("")),
                digest(principal.getBytes(StandardCharsets.UTF_8), 16))) {
            throw rejected("it belongs to another client");
        }
        if (!method.equals(p.path("m").asText())) {
            throw rejected("it belongs to another method");
        }
        if (!tool.equals(p.path("n").asText())) {
            throw rejected("it belongs to another tool");
        }
        if (!MessageDigest.isEqual(B64D.decode(p.path("a").asText("")), argsDigest)) {
            throw rejected("it belongs to other arguments");
        }
        long expires = p.path("e").asLong();
        if (clock.millis() > expires) {
            throw rejected("it expired");
        }
        return new State(p.path("c").asText(), p.path("r").asInt(), expires);
    }

    private static ModernError rejected(String why) {
        return ModernError.invalidParams("requestState rejected: " + why);
    }

    private byte[] mac(String s) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return m.doFinal(s.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is missing from this JVM", e);
        }
    }

    /** The first {@code n} bytes of the SHA-256 of {@code b}. */
    static byte[] digest(byte[] b, int n) {
        try {
            return Arrays.copyOf(MessageDigest.getInstance("SHA-256").digest(b), n);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
