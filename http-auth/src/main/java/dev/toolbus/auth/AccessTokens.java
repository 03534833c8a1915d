package dev.toolbus.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The bearer tokens a server accepts, each with its {@link TokenScope}.
 *
 * <p><b>Trust model.</b> A token holder is trusted to say who the user is: the context it sends
 * ({@code user_id}, {@code permission}, {@code agent_id}, …) is believed within the token's scope. Give
 * each bot core its own token, scoped to the highest permission and the agents, channels and streams it
 * serves; keep the unscoped token for operators.
 *
 * <p>Tokens are compared in constant time: the SHA-256 digests of the presented bytes and of every
 * configured token are compared with {@link MessageDigest#isEqual}, all of them, whatever matches first.
 * Tokens are UTF-8; an HTTP header value decoded one byte per character (as Netty does) is turned back
 * into its bytes before the comparison, so non-ASCII tokens match.
 *
 * <pre>{@code
 * AccessTokens tokens = AccessTokens.builder()
 *         .token(System.getenv("OPS_TOKEN"), TokenScope.FULL)
 *         .token(System.getenv("BOT_TOKEN"), TokenScope.builder("bot").maxPermission(PermissionLevel.ADMIN).build())
 *         .onExcess(AccessTokens.OnExcess.CLAMP)
 *         .build();
 * }</pre>
 */
public final class AccessTokens {

    /** What happens to a context that claims a permission above its token's. */
    public enum OnExcess {
        /** The event is refused (HTTP 403, or an {@code error} event {@code PERMISSION_DENIED}). */
        REFUSE,
        /** The permission is lowered to the token's highest level and the event runs. */
        CLAMP;

        /** {@code refuse} or {@code clamp}, case-insensitive; {@code null} when neither. */
        public static OnExcess parse(String value) {
            if (value == null) {
                return null;
            }
            return switch (value.strip().toLowerCase(java.util.Locale.ROOT)) {
                case "refuse" -> REFUSE;
                case "clamp" -> CLAMP;
                default -> null;
            };
        }
    }

    /** No token: every request is let in with {@link TokenScope#FULL} (loopback only, by the servers' rule). */
    public static final AccessTokens NONE = new AccessTokens(List.of(), OnExcess.REFUSE);

    private final List<Entry> entries;
    private final OnExcess onExcess;

    private record Entry(byte[] digest, Grant grant) {
    }

    /**
     * The outcome of a successful check: the token's scope and the rule for excess claims.
     *
     * @param scope what the token may do
     * @param onExcess refuse or clamp a permission above the scope
     */
    public record Grant(TokenScope scope, OnExcess onExcess) {
        public Grant {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(onExcess, "onExcess");
        }

        /** {@link TokenScope#admit} with this grant's rule. */
        public TokenScope.Admission admit(String streamId, dev.toolbus.protocol.CallContext context) {
            return scope.admit(streamId, context, onExcess);
        }
    }

    private static final Grant OPEN = new Grant(TokenScope.FULL, OnExcess.REFUSE);

    private AccessTokens(List<Entry> entries, OnExcess onExcess) {
        this.entries = List.copyOf(entries);
        this.onExcess = onExcess;
    }

    /** One token with {@link TokenScope#FULL}; {@code null} or blank gives {@link #NONE}. */
    public static AccessTokens single(String token) {
        return token == null || token.isBlank() ? NONE : builder().token(token, TokenScope.FULL).build();
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether a token is needed at all. */
    public boolean required() {
        return !entries.isEmpty();
    }

    /** How many tokens are accepted. */
    public int size() {
        return entries.size();
    }

    /** The rule for excess claims. */
    public OnExcess onExcess() {
        return onExcess;
    }

    /**
     * Checks an {@code Authorization} header value ({@code Bearer <token>}, the scheme case-insensitive).
     *
     * @param header the header as the HTTP server decoded it, or {@code null}
     * @return the grant; empty when a token is required and this one is missing or wrong. With no tokens
     *     configured, every request gets {@link TokenScope#FULL}.
     */
    public Optional<Grant> authenticateHeader(String header) {
        if (entries.isEmpty()) {
            return Optional.of(OPEN);
        }
        if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        return match(headerBytes(header.substring(7).strip()));
    }

    /**
     * Checks a token given as text.
     *
     * @return the grant; empty when a token is required and this one is wrong
     */
    public Optional<Grant> authenticate(String token) {
        if (entries.isEmpty()) {
            return Optional.of(OPEN);
        }
        if (token == null) {
            return Optional.empty();
        }
        return match(token.strip().getBytes(StandardCharsets.UTF_8));
    }

    private Optional<Grant> match(byte[] given) {
        byte[] digest = sha256(given);
        Grant found = null;
        for (Entry e : entries) {
            // every entry is compared, so the time does not tell which one matched
            if (MessageDigest.isEqual(digest, e.digest()) && found == null) {
                found = e.grant();
            }
        }
        return Optional.ofNullable(found);
    }

    /**
     * The bytes of a header value: Netty decodes header bytes one per character, so a value with no
     * character above U+00FF is turned back into those bytes; anything else is taken as text (UTF-8).
     */
    static byte[] headerBytes(String value) {
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) > 0xFF) {
                return value.getBytes(StandardCharsets.UTF_8);
            }
        }
        return value.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** One digest per thread: {@code getInstance} looks the provider up on every call (every request). */
    private static final ThreadLocal<MessageDigest> SHA256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    });

    private static byte[] sha256(byte[] b) {
        MessageDigest md = SHA256.get();
        md.reset();
        return md.digest(b);
    }

    @Override
    public String toString() {
        return "AccessTokens[" + entries.size() + " tokens, onExcess " + onExcess + "]";
    }

    /** Builder of {@link AccessTokens}. */
    public static final class Builder {
        private final List<String> tokens = new ArrayList<>();
        private final List<TokenScope> scopes = new ArrayList<>();
        private OnExcess onExcess = OnExcess.REFUSE;

        private Builder() {
        }

        /**
         * Accepts {@code token} with {@code scope}.
         *
         * @throws IllegalArgumentException when the token is blank or already added
         */
        public Builder token(String token, TokenScope scope) {
            Objects.requireNonNull(token, "token");
            Objects.requireNonNull(scope, "scope");
            String t = token.strip();
            if (t.isEmpty()) {
                throw new IllegalArgumentException("token '" + scope.name() + "' is blank");
            }
            if (tokens.contains(t)) {
                throw new IllegalArgumentException("token '" + scope.name() + "' is the same as another token");
            }
            tokens.add(t);
            scopes.add(scope);
            return this;
        }

        /** What happens to a permission above the token's (default {@link OnExcess#REFUSE}). */
        public Builder onExcess(OnExcess rule) {
            this.onExcess = Objects.requireNonNull(rule, "rule");
            return this;
        }

        public AccessTokens build() {
            List<Entry> entries = new ArrayList<>(tokens.size());
            for (int i = 0; i < tokens.size(); i++) {
                entries.add(new Entry(sha256(tokens.get(i).getBytes(StandardCharsets.UTF_8)),
                        new Grant(scopes.get(i), onExcess)));
            }
            return new AccessTokens(entries, onExcess);
        }
    }
}
