package dev.toolbus.config;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.spi.Checks;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The {@code gateway} section: the WebSocket/HTTP gateway. Immutable; built with {@link #builder()}, which starts
 * from the defaults (docs/configuration.md); its {@link #toString()} masks the token.
 */
public final class GatewayConfig {

    /** The default port. */
    public static final int DEFAULT_PORT = 8765;
    /** The default bound of a request body or WebSocket frame: 1 MiB. */
    public static final long DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;
    /** The default number of events buffered per connection. */
    public static final int DEFAULT_MAX_OUTBOUND_EVENTS = 1024;
    /** The default number of connections open at once. */
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    /** The default time a connection may take to send a request head. */
    public static final long DEFAULT_HEADER_TIMEOUT_MS = 10_000;
    /** The default time a request body may take to arrive. */
    public static final long DEFAULT_BODY_TIMEOUT_MS = 30_000;
    /** The default bytes of non-streaming answers gathered at once for one token: 32 MiB. */
    public static final long DEFAULT_MAX_ANSWER_BYTES = 32L << 20;
    /** The default bytes of non-streaming answers gathered at once for all tokens: 128 MiB. */
    public static final long DEFAULT_MAX_ANSWER_BYTES_TOTAL = 128L << 20;
    /** The bounds of the answer byte bounds: 64 KiB to 1 TiB. */
    static final long MIN_ANSWER_BYTES = 64L * 1024;
    static final long MAX_ANSWER_BYTES = 1L << 40;
    /** The {@code onExcess} rules. */
    public static final List<String> ON_EXCESS = List.of("refuse", "clamp");
    /** The bounds of {@code maxRequestBytes}: 1 KiB to 64 MiB. */
    static final long MIN_REQUEST_BYTES = 1024;
    static final long MAX_REQUEST_BYTES = 64L * 1024 * 1024;
    /** The bounds of {@code maxOutboundEvents}. */
    static final int MIN_OUTBOUND_EVENTS = 16;
    static final int MAX_OUTBOUND_EVENTS = 1_000_000;
    /** The most connections that may be allowed. */
    static final int MAX_CONNECTIONS = 1_000_000;
    /** The bounds of the header and body timeouts: 100 ms to 1 h. */
    static final long MIN_TIMEOUT_MS = 100;
    static final long MAX_TIMEOUT_MS = 3_600_000;

    /** The defaults: enabled on 127.0.0.1:8765, no token. */
    public static final GatewayConfig DEFAULTS = builder().build();

    private final boolean enabled;
    private final String host;
    private final int port;
    private final String token;
    private final long maxRequestBytes;
    private final int maxOutboundEvents;
    private final List<GatewayToken> tokens;
    private final String onExcess;
    private final int maxConnections;
    private final long headerTimeoutMs;
    private final long bodyTimeoutMs;
    private final long maxAnswerBytes;
    private final long maxAnswerBytesTotal;

    private GatewayConfig(Builder b) {
        boolean enabled = b.enabled;
        String host = b.host;
        int port = b.port;
        String token = b.token;
        long maxRequestBytes = b.maxRequestBytes;
        int maxOutboundEvents = b.maxOutboundEvents;
        List<GatewayToken> tokens = b.tokens;
        String onExcess = b.onExcess;
        int maxConnections = b.maxConnections;
        long headerTimeoutMs = b.headerTimeoutMs;
        long bodyTimeoutMs = b.bodyTimeoutMs;
        Objects.requireNonNull(host, "host");
        Checks.requireRange(port, 0, 65_535, "gateway.port");
        token = Objects.requireNonNullElse(token, "");
        Checks.requireRange(maxRequestBytes, MIN_REQUEST_BYTES, MAX_REQUEST_BYTES, "gateway.maxRequestBytes");
        Checks.requireRange(maxOutboundEvents, MIN_OUTBOUND_EVENTS, MAX_OUTBOUND_EVENTS, "gateway.maxOutboundEvents");
        tokens = tokens == null ? List.of() : List.copyOf(tokens);
        onExcess = onExcess == null ? "refuse" : onExcess;
        Checks.requireArgument(ON_EXCESS.contains(onExcess),
                "gateway.onExcess must be refuse or clamp, got '" + onExcess + "'");
        Checks.requireRange(maxConnections, 1, MAX_CONNECTIONS, "gateway.maxConnections");
        Checks.requireRange(headerTimeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS, "gateway.headerTimeout");
        Checks.requireRange(bodyTimeoutMs, MIN_TIMEOUT_MS, MAX_TIMEOUT_MS, "gateway.bodyTimeout");
        Checks.requireRange(b.maxAnswerBytes, MIN_ANSWER_BYTES, MAX_ANSWER_BYTES, "gateway.maxAnswerBytes");
        Checks.requireRange(b.maxAnswerBytesTotal, MIN_ANSWER_BYTES, MAX_ANSWER_BYTES, "gateway.maxAnswerBytesTotal");
        this.enabled = enabled;
        this.host = host;
        this.port = port;
        this.token = token;
        this.maxRequestBytes = maxRequestBytes;
        this.maxOutboundEvents = maxOutboundEvents;
        this.tokens = tokens;
        this.onExcess = onExcess;
        this.maxConnections = maxConnections;
        this.headerTimeoutMs = headerTimeoutMs;
        this.bodyTimeoutMs = bodyTimeoutMs;
        this.maxAnswerBytes = b.maxAnswerBytes;
        this.maxAnswerBytesTotal = b.maxAnswerBytesTotal;
    }

    /** Starts a builder from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this section's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.enabled = enabled;
        b.host = host;
        b.port = port;
        b.token = token;
        b.maxRequestBytes = maxRequestBytes;
        b.maxOutboundEvents = maxOutboundEvents;
        b.tokens = tokens;
        b.onExcess = onExcess;
        b.maxConnections = maxConnections;
        b.headerTimeoutMs = headerTimeoutMs;
        b.bodyTimeoutMs = bodyTimeoutMs;
        b.maxAnswerBytes = maxAnswerBytes;
        b.maxAnswerBytesTotal = maxAnswerBytesTotal;
        return b;
    }

    /** Whether {@code serve} starts it. */
    public boolean enabled() {
        return enabled;
    }

    /** The bind address. */
    public String host() {
        return host;
    }

    /** The port (0: any free port). */
    public int port() {
        return port;
    }

    /** The bearer token with full scope (empty: none). */
    public String token() {
        return token;
    }

    /** The largest request body or WebSocket frame. */
    public long maxRequestBytes() {
        return maxRequestBytes;
    }

    /** Events buffered per connection before a slow client is disconnected. */
    public int maxOutboundEvents() {
        return maxOutboundEvents;
    }

    /** Scoped tokens (besides {@code token}). */
    public List<GatewayToken> tokens() {
        return tokens;
    }

    /** {@code refuse} or {@code clamp}: what a context claiming a permission above its token's gets. */
    public String onExcess() {
        return onExcess;
    }

    /** The most connections open at once. */
    public int maxConnections() {
        return maxConnections;
    }

    /** How long a connection may take to send a request head. */
    public long headerTimeoutMs() {
        return headerTimeoutMs;
    }

    /** How long a request body may take to arrive. */
    public long bodyTimeoutMs() {
        return bodyTimeoutMs;
    }

    /** Bytes of non-streaming answers gathered at once for one token. */
    public long maxAnswerBytes() {
        return maxAnswerBytes;
    }

    /** Bytes of non-streaming answers gathered at once for all tokens. */
    public long maxAnswerBytesTotal() {
        return maxAnswerBytesTotal;
    }

    /** Whether the bind address is a loopback address ({@code 127.*}, {@code ::1}, {@code localhost}). */
    public boolean loopback() {
        String h = host.strip().toLowerCase(Locale.ROOT);
        return h.equals("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("[::1]");
    }

    /** Whether any token is configured ({@code token} or {@code tokens}). */
    public boolean hasTokens() {
        return !token.isEmpty() || !tokens.isEmpty();
    }

    /**
     * The tokens as the servers take them: {@code token} with full scope (named {@code gateway.token}),
     * then each of {@code tokens}; {@link AccessTokens#NONE} when there are none.
     *
     * @param tokenOverride a full-scope token that replaces {@code token} (from {@code --token}), or
     *     {@code null}
     */
    public AccessTokens accessTokens(String tokenOverride) {
        AccessTokens.Builder b = AccessTokens.builder()
                .onExcess(AccessTokens.OnExcess.parse(onExcess) == AccessTokens.OnExcess.CLAMP
                        ? AccessTokens.OnExcess.CLAMP : AccessTokens.OnExcess.REFUSE);
        Set<String> seen = new HashSet<>();
        int n = 0;
        if (tokenOverride != null && !tokenOverride.isBlank()) {
            seen.add(tokenOverride.strip());
            b.token(tokenOverride, TokenScope.builder("--token").build());
            n++;
        } else if (!token.isEmpty() && seen.add(token.strip())) {
            b.token(token, TokenScope.builder("gateway.token").build());
            n++;
        }
        for (GatewayToken t : tokens) {
            if (!t.token().isBlank() && seen.add(t.token().strip())) {
                b.token(t.token(), t.scope());
                n++;
            }
        }
        return n == 0 ? AccessTokens.NONE : b.build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof GatewayConfig e && enabled == e.enabled && host.equals(e.host) && port == e.port
                && token.equals(e.token) && maxRequestBytes == e.maxRequestBytes
                && maxOutboundEvents == e.maxOutboundEvents && tokens.equals(e.tokens) && onExcess.equals(e.onExcess)
                && maxConnections == e.maxConnections && headerTimeoutMs == e.headerTimeoutMs
                && bodyTimeoutMs == e.bodyTimeoutMs && maxAnswerBytes == e.maxAnswerBytes
                && maxAnswerBytesTotal == e.maxAnswerBytesTotal;
    }

    @Override
    public int hashCode() {
        return Objects.hash(enabled, host, port, token, maxRequestBytes, maxOutboundEvents, tokens, onExcess,
                maxConnections, headerTimeoutMs, bodyTimeoutMs, maxAnswerBytes, maxAnswerBytesTotal);
    }

    @Override
    public String toString() {
        return "GatewayConfig[enabled=" + enabled + ", host=" + host + ", port=" + port + ", token="
                + (token.isEmpty() ? "none" : "***") + ", tokens=" + tokens + ", onExcess=" + onExcess
                + ", maxRequestBytes=" + maxRequestBytes + ", maxConnections=" + maxConnections + "]";
    }

    /**
     * Builder of {@link GatewayConfig}, starting from the defaults.
     */
    public static final class Builder {
        private boolean enabled = true;
        private String host = "127.0.0.1";
        private int port = DEFAULT_PORT;
        private String token;
        private long maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;
        private int maxOutboundEvents = DEFAULT_MAX_OUTBOUND_EVENTS;
        private List<GatewayToken> tokens;
        private String onExcess;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private long headerTimeoutMs = DEFAULT_HEADER_TIMEOUT_MS;
        private long bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS;
        private long maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES;
        private long maxAnswerBytesTotal = DEFAULT_MAX_ANSWER_BYTES_TOTAL;

        private Builder() {
        }

        /** Whether {@code serve} starts it. */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** The bind address (default 127.0.0.1). */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** The port, 0..65535 (0: any free port). */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** The bearer token with full scope ({@code null} or empty: none). */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** The largest request body or WebSocket frame: 1 KiB to 64 MiB. */
        public Builder maxRequestBytes(long maxRequestBytes) {
            this.maxRequestBytes = maxRequestBytes;
            return this;
        }

        /** Events buffered per connection before a slow client is disconnected: 16..1,000,000. */
        public Builder maxOutboundEvents(int maxOutboundEvents) {
            this.maxOutboundEvents = maxOutboundEvents;
            return this;
        }

        /** Scoped tokens (besides {@code token}; {@code null}: none). */
        public Builder tokens(List<GatewayToken> tokens) {
            this.tokens = tokens;
            return this;
        }

        /** {@code refuse} or {@code clamp} ({@code null}: refuse). */
        public Builder onExcess(String onExcess) {
            this.onExcess = onExcess;
            return this;
        }

        /** The most connections open at once: 1..1,000,000. */
        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        /** How long a connection may take to send a request head: 100 ms to 1 h. */
        public Builder headerTimeoutMs(long headerTimeoutMs) {
            this.headerTimeoutMs = headerTimeoutMs;
            return this;
        }

        /** How long a request body may take to arrive: 100 ms to 1 h. */
        public Builder bodyTimeoutMs(long bodyTimeoutMs) {
            this.bodyTimeoutMs = bodyTimeoutMs;
            return this;
        }

        /** Bytes of non-streaming answers gathered at once for one token: 64 KiB to 1 TiB. */
        public Builder maxAnswerBytes(long maxAnswerBytes) {
            this.maxAnswerBytes = maxAnswerBytes;
            return this;
        }

        /** Bytes of non-streaming answers gathered at once for all tokens: 64 KiB to 1 TiB. */
        public Builder maxAnswerBytesTotal(long maxAnswerBytesTotal) {
            this.maxAnswerBytesTotal = maxAnswerBytesTotal;
            return this;
        }

        /**
         * The section.
         *
         * @throws NullPointerException when {@code host} is {@code null}
         * @throws IllegalArgumentException when a value is out of its range (the message names it and the
         *     range)
         */
        public GatewayConfig build() {
            return new GatewayConfig(this);
        }
    }
}
