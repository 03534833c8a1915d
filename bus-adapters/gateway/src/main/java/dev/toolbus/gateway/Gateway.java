package dev.toolbus.gateway;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.Hosts;
import dev.toolbus.executor.ToolExecutor;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Objects;

/**
 * The WebSocket and HTTP gateway of a {@link ToolExecutor}: bot cores send inbound events and receive
 * the events of their turns, over reactor-netty, without ever blocking an event loop.
 *
 * <table>
 *   <caption>Endpoints</caption>
 *   <tr><td>{@code GET /v1/ws}</td><td>WebSocket: one inbound event per text frame, one outbound event per frame</td></tr>
 *   <tr><td>{@code POST /v1/turns}</td><td>one inbound event; a JSON array of its events, or SSE with
 *       {@code Accept: text/event-stream}</td></tr>
 *   <tr><td>{@code POST /v1/control}</td><td>one control event ({@code cancel}, {@code approval_response},
 *       {@code input_response}), applied at once: 202 with the outcome, or an {@code error} event</td></tr>
 *   <tr><td>{@code GET /v1/tools}</td><td>the {@code tools} event for the context in the query</td></tr>
 *   <tr><td>{@code POST /v1/skills}</td><td>one {@code list_skills} event; the {@code skills} event</td></tr>
 *   <tr><td>{@code GET /v1/calls}</td><td>the recent-call log, filtered by tool, user, outcome, stream</td></tr>
 *   <tr><td>{@code GET /metrics}</td><td>Prometheus text format</td></tr>
 *   <tr><td>{@code GET /healthz}</td><td>{@code {"status":"UP"}}, never behind the token</td></tr>
 * </table>
 *
 * <p>Every request but {@code /healthz} needs a bearer token when {@link Builder#tokens tokens} are set;
 * each event is held against its token's {@link dev.toolbus.auth.TokenScope scope}. Connections are
 * capped, and a request head or body that does not arrive in time closes its connection.
 *
 * <p>A {@code Gateway} is an immutable, validated configuration; {@link #start()} binds it. The
 * gateway does not own the executor: close the server first, then the executor.
 *
 * <pre>{@code
 * PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
 * ToolExecutor executor = ToolExecutor.builder().tools(myTools).meterRegistry(meters).build();
 * GatewayServer server = Gateway.builder()
 *         .executor(executor)
 *         .port(8377)
 *         .meterRegistry(meters)
 *         .build()
 *         .start();
 * ...
 * server.closeGracefully().block(Duration.ofSeconds(30));
 * executor.close();
 * }</pre>
 */
public final class Gateway {

    /** Default bind address: loopback only. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** Default bound of one inbound event (HTTP body or WebSocket message): 1 MiB. */
    public static final int DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;
    /** Default bound of the bytes waiting to be written to one WebSocket client: 8 MiB. */
    public static final long DEFAULT_MAX_OUTBOUND_BYTES = 8L * 1024 * 1024;
    /** Default number of turns one WebSocket connection may have running at once. */
    public static final int DEFAULT_MAX_TURNS_PER_CONNECTION = 64;
    /** Default time an idle HTTP keep-alive connection stays open. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    /** Default WebSocket read-idle time after which the server pings; a peer silent for two is dropped. */
    public static final Duration DEFAULT_PING_INTERVAL = Duration.ofSeconds(30);
    /** Default time a close frame may take to be written before the connection is dropped. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(5);
    /** Default time {@link GatewayServer#closeGracefully()} waits for running turns. */
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);
    /** Default number of connections open at once (HTTP and WebSocket together). */
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    /** Default time a new connection has to deliver a whole request head. */
    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
    /** Default time a request body has to arrive in full. */
    public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(30);
    /** Default bytes of non-streaming answers gathered at once for one token: 32 MiB. */
    public static final long DEFAULT_MAX_ANSWER_BYTES = 32L << 20;
    /** Default bytes of non-streaming answers gathered at once for all tokens: 128 MiB. */
    public static final long DEFAULT_MAX_ANSWER_BYTES_TOTAL = 128L << 20;

    final ToolExecutor executor;
    final String host;
    final int port;
    final AccessTokens tokens;
    final int maxRequestBytes;
    final long maxOutboundBytes;
    final int maxTurnsPerConnection;
    final Duration idleTimeout;
    final Duration pingInterval;
    final Duration closeTimeout;
    final Duration drainTimeout;
    final PrometheusMeterRegistry meterRegistry;
    final boolean publicMetrics;
    final int maxConnections;
    final Duration headerTimeout;
    final Duration bodyTimeout;
    final long maxAnswerBytes;
    final long maxAnswerBytesTotal;

    private Gateway(Builder b) {
        this.executor = b.executor;
        this.host = b.host;
        this.port = b.port;
        this.tokens = b.tokens;
        this.maxRequestBytes = b.maxRequestBytes;
        this.maxOutboundBytes = b.maxOutboundBytes;
        this.maxTurnsPerConnection = b.maxTurnsPerConnection;
        this.idleTimeout = b.idleTimeout;
        this.pingInterval = b.pingInterval;
        this.closeTimeout = b.closeTimeout;
        this.drainTimeout = b.drainTimeout;
        this.meterRegistry = b.meterRegistry != null ? b.meterRegistry : new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.publicMetrics = b.publicMetrics;
        this.maxConnections = b.maxConnections;
        this.headerTimeout = b.headerTimeout;
        this.bodyTimeout = b.bodyTimeout;
        this.maxAnswerBytes = b.maxAnswerBytes;
        this.maxAnswerBytesTotal = b.maxAnswerBytesTotal;
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Binds the server and starts serving. Blocks the calling thread until the port is bound (at most
     * 30 seconds); do not call it on an event loop.
     *
     * @return the running server
     * @throws IllegalStateException when the address cannot be bound
     */
    public GatewayServer start() {
        return NettyGatewayServer.start(this);
    }

    /** The address the server binds. */
    public String host() {
        return host;
    }

    /** The configured port ({@code 0}: an ephemeral port, see {@link GatewayServer#port()}). */
    public int port() {
        return port;
    }

    /** Whether requests need a bearer token. */
    public boolean requiresToken() {
        return tokens.required();
    }

    /** The accepted tokens and their scopes. */
    public AccessTokens tokens() {
        return tokens;
    }

    /** The most connections open at once. */
    public int maxConnections() {
        return maxConnections;
    }

    /** The bound of one inbound event, in bytes. */
    public int maxRequestBytes() {
        return maxRequestBytes;
    }

    /** The bound of the bytes waiting to be written to one WebSocket client. */
    public long maxOutboundBytes() {
        return maxOutboundBytes;
    }

    /** The registry served on {@code /metrics}. */
    public PrometheusMeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** Builder of {@link Gateway}. Every setter checks its argument; cross-field rules are checked by {@link #build()}. */
    public static final class Builder {
        private ToolExecutor executor;
        private String host = DEFAULT_HOST;
        private int port;
        private AccessTokens tokens = AccessTokens.NONE;
        private int maxRequestBytes = DEFAULT_MAX_REQUEST_BYTES;
        private long maxOutboundBytes = DEFAULT_MAX_OUTBOUND_BYTES;
        private int maxTurnsPerConnection = DEFAULT_MAX_TURNS_PER_CONNECTION;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private Duration pingInterval = DEFAULT_PING_INTERVAL;
        private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
        private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
        private PrometheusMeterRegistry meterRegistry;
        private boolean publicMetrics;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private Duration headerTimeout = DEFAULT_HEADER_TIMEOUT;
        private Duration bodyTimeout = DEFAULT_BODY_TIMEOUT;
        private long maxAnswerBytes = DEFAULT_MAX_ANSWER_BYTES;
        private long maxAnswerBytesTotal = DEFAULT_MAX_ANSWER_BYTES_TOTAL;

        private Builder() {
        }

        /** The executor that answers the events (required; not closed by the gateway). */
        public Builder executor(ToolExecutor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /**
         * The address to bind (default {@code 127.0.0.1}). Anything but a loopback address
         * requires a {@link #token(String) token}.
         */
        public Builder host(String host) {
            Objects.requireNonNull(host, "host");
            if (host.isBlank()) {
                throw new IllegalArgumentException("host must not be blank");
            }
            this.host = host.strip();
            return this;
        }

        /** The port (default 0: an ephemeral port). */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port must be within 0..65535, got " + port);
            }
            this.port = port;
            return this;
        }

        /**
         * The one bearer token every request but {@code /healthz} must carry as
         * {@code Authorization: Bearer <token>}, with {@link dev.toolbus.auth.TokenScope#FULL full scope}:
         * its holder is trusted with any context. {@code null} turns authentication off, which is only
         * allowed on a loopback address. Replaces {@link #tokens(AccessTokens)}.
         */
        public Builder token(String token) {
            if (token != null && token.isBlank()) {
                throw new IllegalArgumentException("token must not be blank (pass null for no token)");
            }
            this.tokens = AccessTokens.single(token);
            return this;
        }

        /**
         * The accepted bearer tokens, each with its scope: a request's {@code stream_id} and context must
         * fit the scope of its token, else it is refused with 403 (an {@code error} event on a
         * WebSocket) or its permission is clamped, as the tokens say. {@link AccessTokens#NONE} turns
         * authentication off (loopback only). Replaces {@link #token(String)}.
         */
        public Builder tokens(AccessTokens tokens) {
            this.tokens = Objects.requireNonNull(tokens, "tokens");
            return this;
        }

        /**
         * The most connections open at once, HTTP and WebSocket together (default 1024). At the cap a new
         * connection closes the one idle longest (waiting for a request); when none is idle, the new one
         * is closed.
         */
        public Builder maxConnections(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxConnections must be at least 1, got " + n);
            }
            this.maxConnections = n;
            return this;
        }

        /**
         * How long a new connection may take to send a whole request head (default 10 s); a slower one
         * is closed, however steadily it sends.
         */
        public Builder headerTimeout(Duration timeout) {
            this.headerTimeout = positive(timeout, "headerTimeout");
            return this;
        }

        /**
         * How long a request body may take to arrive in full (default 30 s); a slower one is answered
         * 408 and its connection closed.
         */
        public Builder bodyTimeout(Duration timeout) {
            this.bodyTimeout = positive(timeout, "bodyTimeout");
            return this;
        }

        /**
         * The bound of one inbound event in bytes: an HTTP body above it is answered 413, a WebSocket
         * message above it closes the connection with 1009 (default 1 MiB, at least 1024).
         */
        public Builder maxRequestBytes(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxRequestBytes must be at least 1024, got " + bytes);
            }
            this.maxRequestBytes = bytes;
            return this;
        }

        /**
         * The bytes of events a non-streaming {@code POST /v1/turns} answer (a JSON array sent once the
         * turn is complete) may gather for one token, over all its answers being gathered at once
         * (default 32 MiB, at least 64 KiB). An answer that would pass it ends its turn: the turn is
         * cancelled and the answer is {@code 503} with a {@code REJECTED} error event. A streamed (SSE)
         * answer holds nothing and is not counted.
         */
        public Builder maxAnswerBytes(long bytes) {
            if (bytes < 64 * 1024) {
                throw new IllegalArgumentException("maxAnswerBytes must be at least 65536, got " + bytes);
            }
            this.maxAnswerBytes = bytes;
            return this;
        }

        /** {@link #maxAnswerBytes(long)} for all tokens together (default 128 MiB, at least 64 KiB). */
        public Builder maxAnswerBytesTotal(long bytes) {
            if (bytes < 64 * 1024) {
                throw new IllegalArgumentException("maxAnswerBytesTotal must be at least 65536, got " + bytes);
            }
            this.maxAnswerBytesTotal = bytes;
            return this;
        }

        /**
         * The bound of the bytes queued for one WebSocket client and not yet written to its socket
         * (default 8 MiB, at least 1024). A client that lets more pile up is disconnected with close code
         * 1008. One event is always accepted when nothing else is queued, however large.
         */
        public Builder maxOutboundBytes(long bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxOutboundBytes must be at least 1024, got " + bytes);
            }
            this.maxOutboundBytes = bytes;
            return this;
        }

        /**
         * How many turns one WebSocket connection may have running at once (default 64); further frames
         * are not read until one finishes.
         */
        public Builder maxTurnsPerConnection(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxTurnsPerConnection must be at least 1, got " + n);
            }
            this.maxTurnsPerConnection = n;
            return this;
        }

        /** How long an idle HTTP keep-alive connection stays open (default 60 s). */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = positive(timeout, "idleTimeout");
            return this;
        }

        /**
         * After this much WebSocket read silence the server sends a ping; a peer that stays silent for a
         * second interval, with no turn running, is dropped (default 30 s).
         */
        public Builder pingInterval(Duration interval) {
            this.pingInterval = positive(interval, "pingInterval");
            return this;
        }

        /** How long a close frame may wait to be written before the connection is dropped (default 5 s). */
        public Builder closeTimeout(Duration timeout) {
            this.closeTimeout = positive(timeout, "closeTimeout");
            return this;
        }

        /** How long {@link GatewayServer#closeGracefully()} waits for running turns (default 30 s). */
        public Builder drainTimeout(Duration timeout) {
            this.drainTimeout = positive(timeout, "drainTimeout");
            return this;
        }

        /**
         * The registry served on {@code /metrics}; pass the one given to
         * {@code ToolExecutor.builder().meterRegistry(..)} so the tool meters appear. By default a new,
         * private registry that holds the gateway's own meters only.
         */
        public Builder meterRegistry(PrometheusMeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Serves {@code /metrics} without the token (default false: when a token is set, the scraper
         * must send it too).
         */
        public Builder publicMetrics(boolean value) {
            this.publicMetrics = value;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalStateException when no executor was given, or when the host is not a loopback
         *     address and no token was given
         */
        public Gateway build() {
            if (executor == null) {
                throw new IllegalStateException("executor is required");
            }
            if (!tokens.required() && !isLoopback(host)) {
                throw new IllegalStateException("a token is required to bind " + host
                        + ": only loopback addresses may be served without one");
            }
            return new Gateway(this);
        }

        private static Duration positive(Duration d, String name) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, got " + d);
            }
            return d;
        }

        static boolean isLoopback(String host) {
            return Hosts.isLoopback(host);
        }
    }
}
