package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.protocol.CallContext;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import io.modelcontextprotocol.spec.ProtocolVersions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * MCP's streamable HTTP transport on reactor-netty, over the SDK's stateless server (the SDK has
 * Servlet and Spring transports only).
 *
 * <p>One endpoint path. {@code POST} carries one JSON-RPC message: a request is answered
 * {@code 200 application/json} with its response, or, when the call sends the client messages while
 * it runs (progress, log messages, {@code elicitation/create}) and the client accepts
 * {@code text/event-stream}, with an SSE stream of those messages ending with the response; a
 * notification or response is answered {@code 202} (a response goes to the request of ours it
 * answers). {@code initialize} opens a session whose id comes back in {@code Mcp-Session-Id}; later
 * requests may send it (an unknown id is {@code 404}), and it scopes {@code notifications/cancelled}.
 * {@code DELETE} with the header ends the session. {@code GET} with a session id and {@code Accept:
 * text/event-stream} opens the session's standalone SSE stream, which carries
 * {@code notifications/tools/list_changed} ({@link ListChangedStreams}); without a session id it is
 * {@code 405}. Bodies are bounded
 * ({@code 413} above), a browser {@code Origin} that is not loopback is refused ({@code 403}) against
 * DNS rebinding, and an unsupported {@code MCP-Protocol-Version} is {@code 400}. With tokens configured,
 * every request needs {@code Authorization: Bearer <token>} ({@code 401} and a closed connection
 * otherwise), and the token's scope must admit the server's stream and context ({@code 403}); a
 * clamped context reaches the calls through the Reactor context under {@link #CONTEXT_KEY}.
 *
 * <p>A POST whose {@code MCP-Protocol-Version} is 2026-07-28 (or a version no era serves), or whose
 * body's {@code _meta} names a version, goes to the 2026-07-28 side ({@link ModernHttp}). Connections
 * are bounded by {@link HttpConnections} (a header deadline; the oldest idle one makes room at the
 * cap). Each client (its token, {@link ClientKeys}) has its own request-id scope without a session,
 * owns its sessions (at most {@code maxSessionsPerClient}; its own oldest goes), and an
 * {@code initialize} budget ({@link InitializeBuckets}); a {@code Host} that is not loopback is refused
 * on a loopback endpoint.
 */
final class NettyHttpServerTransport implements McpStatelessServerTransport, SessionBroadcast {

    private static final Logger log = LoggerFactory.getLogger(NettyHttpServerTransport.class);
    private static final String SESSION = "Mcp-Session-Id";
    private static final String VERSION = "MCP-Protocol-Version";
    private static final List<String> VERSIONS = List.of(ProtocolVersions.MCP_2025_03_26,
            ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);

    /** The Reactor context key of the {@link CallContext} a token's scope admitted for the request. */
    static final String CONTEXT_KEY = "dev.toolbus.mcp.context";

    private final AccessTokens tokens;
    private final Function<AccessTokens.Grant, TokenScope.Admission> admit;
    private final McpJsonMapper json;
    private final String path;
    private final int maxBodyBytes;
    private final Set<String> allowedOrigins;
    private final int maxSessions;
    private final int maxSessionsPerClient;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final InitializeBuckets initializes;
    private volatile RpcDispatcher dispatcher;
    private volatile DisposableServer server;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final ListChangedStreams streams = new ListChangedStreams();
    private final HttpConnections open;
    private final Duration idleTimeout;
    private final ClientKeys clientKeys = new ClientKeys();
    private volatile CallerPrincipals callers;
    private final ObjectMapper mapper;
    private volatile ModernDispatcher modern;
    private volatile Function<String, Map<String, String>> paramHeaders = tool -> Map.of();
    private volatile LegacyTasks legacyTasks;

    /** A legacy session: the client that opened it, and when. */
    private record Session(String principal, long openedNanos) {
    }

    /** {@code initialize} requests one client may send at once, and per second after that. */
    static final int INITIALIZE_BURST = 100;
    static final double INITIALIZE_PER_SECOND = 20;

    /** The principal of the request, in the Reactor context of its handling. */
    static final String PRINCIPAL_KEY = "dev.toolbus.mcp.principal";

    NettyHttpServerTransport(McpJsonMapper json, String path, int maxBodyBytes, Set<String> allowedOrigins,
                             int maxSessions, AccessTokens tokens, Function<AccessTokens.Grant, TokenScope.Admission> admit) {
        this(json, new ObjectMapper(), path, maxBodyBytes, allowedOrigins, maxSessions, 64, tokens, admit, 1024,
                Duration.ofSeconds(60), Duration.ofSeconds(10), java.time.Clock.systemUTC());
    }

    /**
     * @param maxSessions legacy sessions open at once
     * @param maxSessionsPerClient legacy sessions one client (one token) may hold; its oldest goes when it opens more
     * @param maxConnections connections open at once; at the cap a new one closes the oldest idle one
     * @param idleTimeout how long a connection may wait for its next request (or for the rest of a
     *     request's body) before it is closed; a running SSE stream is not idle
     * @param headerTimeout how long a connection may take to send a request's headers
     * @param clock the time of the clients' {@code initialize} budgets
     */
    NettyHttpServerTransport(McpJsonMapper json, ObjectMapper mapper, String path, int maxBodyBytes,
                             Set<String> allowedOrigins, int maxSessions, int maxSessionsPerClient, AccessTokens tokens,
                             Function<AccessTokens.Grant, TokenScope.Admission> admit, int maxConnections,
                             Duration idleTimeout, Duration headerTimeout, java.time.Clock clock) {
        this.open = new HttpConnections(maxConnections, headerTimeout, System::nanoTime);
        this.idleTimeout = idleTimeout;
        this.tokens = tokens;
        this.admit = admit;
        this.json = json;
        this.mapper = mapper;
        this.path = path;
        this.maxBodyBytes = maxBodyBytes;
        this.allowedOrigins = Set.copyOf(allowedOrigins);
        this.maxSessions = maxSessions;
        this.maxSessionsPerClient = maxSessionsPerClient;
        this.initializes = new InitializeBuckets(INITIALIZE_BURST, INITIALIZE_PER_SECOND,
                () -> java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(clock.millis()));
    }

    /** Serves 2026-07-28 requests with {@code modern}; {@code paramHeaders}: a tool's mirrored arguments. */
    /** Where the principal of each authenticated client's key is recorded for the executor. */
    void callers(CallerPrincipals callers) {
        this.callers = callers;
    }

    void modern(ModernDispatcher modern, Function<String, Map<String, String>> paramHeaders, LegacyTasks legacyTasks) {
        this.modern = modern;
        this.paramHeaders = paramHeaders;
        this.legacyTasks = legacyTasks;
        if (dispatcher != null) {
            dispatcher.legacyTasks(legacyTasks);
        }
    }

    @Override
    public void setMcpHandler(McpStatelessServerHandler handler) {
        this.dispatcher = new RpcDispatcher(handler);
        if (legacyTasks != null) {
            dispatcher.legacyTasks(legacyTasks);
        }
    }

    @Override
    public List<String> protocolVersions() {
        return VERSIONS;
    }

    Mono<DisposableServer> bind(String host, int port) {
        return HttpServer.create().host(host).port(port).channelGroup(connections)
                .idleTimeout(idleTimeout).readTimeout(idleTimeout)
                .doOnChannelInit((observer, channel, remote) -> open.accepted(channel))
                .handle(this::handle).bind()
                .map(s -> {
                    server = s;
                    return (DisposableServer) s;
                });
    }

    private Publisher<Void> handle(HttpServerRequest req, HttpServerResponse res) {
        Optional<AccessTokens.Grant> grant = tokens.authenticateHeader(req.requestHeaders().get("Authorization"));
        if (grant.isEmpty()) {
            res.keepAlive(false).header("WWW-Authenticate", "Bearer realm=\"toolbus-mcp\"");
            return jsonError(res, HttpResponseStatus.UNAUTHORIZED, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "missing or wrong bearer token: send the header 'Authorization: Bearer <token>'");
        }
        TokenScope.Admission admission = admit.apply(grant.get());
        if (!admission.admitted()) {
            return jsonError(res, HttpResponseStatus.FORBIDDEN, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    admission.refusal());
        }
        String principal = clientKeys.of(tokens.required(), req.requestHeaders().get("Authorization"));
        CallerPrincipals known = callers;
        if (known != null && tokens.required()) {
            known.record(principal, grant.get().scope().principal());
        }
        return Mono.from(route(req, res, principal, admission.context()))
                .contextWrite(c -> c.put(CONTEXT_KEY, admission.context()).put(PRINCIPAL_KEY, principal));
    }

    private Publisher<Void> route(HttpServerRequest req, HttpServerResponse res, String principal, CallContext context) {
        String uriPath = req.fullPath();
        if (!path.equals(uriPath) && !(path + "/").equals(uriPath)) {
            return status(res, HttpResponseStatus.NOT_FOUND, "not found");
        }
        String origin = req.requestHeaders().get("Origin");
        if (origin != null && !originAllowed(origin)) {
            return status(res, HttpResponseStatus.FORBIDDEN, "origin not allowed: " + origin);
        }
        String host = req.requestHeaders().get("Host");
        if (host != null && !hostAllowed(host)) {
            return status(res, HttpResponseStatus.FORBIDDEN, "host not allowed: " + host);
        }
        HttpMethod method = req.method();
        if (HttpMethod.POST.equals(method)) {
            return post(req, res, principal, context);
        }
        String version = req.requestHeaders().get(VERSION);
        if (version != null && !VERSIONS.contains(version) && !ProtocolVersions.MCP_2024_11_05.equals(version)) {
            return jsonError(res, HttpResponseStatus.BAD_REQUEST, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "unsupported MCP-Protocol-Version: " + version);
        }
        if (HttpMethod.DELETE.equals(method)) {
            String id = req.requestHeaders().get(SESSION);
            if (id == null) {
                return status(res, HttpResponseStatus.BAD_REQUEST, "missing " + SESSION);
            }
            Session owned = sessions.get(id);
            if (owned == null || !owned.principal().equals(principal) || !sessions.remove(id, owned)) {
                return status(res, HttpResponseStatus.NOT_FOUND, "unknown session");
            }
            dispatcher.cancelAll(id);
            streams.close(id);
            return res.status(HttpResponseStatus.NO_CONTENT).send();
        }
        String session = req.requestHeaders().get(SESSION);
        if (HttpMethod.GET.equals(method) && session != null) {
            return openStream(req, res, session, principal);
        }
        res.header("Allow", "POST, DELETE");
        return status(res, HttpResponseStatus.METHOD_NOT_ALLOWED, "use POST");
    }

    private Publisher<Void> post(HttpServerRequest req, HttpServerResponse res, String principal, CallContext context) {
        String contentType = req.requestHeaders().get("Content-Type", "");
        if (!contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            return jsonError(res, HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "Content-Type must be application/json");
        }
        String accept = req.requestHeaders().get("Accept", "*/*").toLowerCase(Locale.ROOT);
        if (!accept.contains("application/json") && !accept.contains("*/*") && !accept.contains("application/*")) {
            return jsonError(res, HttpResponseStatus.NOT_ACCEPTABLE, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "Accept must allow application/json");
        }
        long declared = req.requestHeaders().getInt("Content-Length", -1);
        if (declared > maxBodyBytes) {
            return jsonError(res, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "body exceeds " + maxBodyBytes + " bytes");
        }
        String sessionHeader = req.requestHeaders().get(SESSION);
        boolean sse = accept.contains("text/event-stream");
        return req.receive()
                .reduce(new ByteArrayOutputStream(), (acc, buf) -> append(acc, buf))
                .defaultIfEmpty(new ByteArrayOutputStream())
                .flatMap(body -> Mono.from(dispatch(body.toString(StandardCharsets.UTF_8), req, sessionHeader, sse, res,
                        principal, context)))
                .onErrorResume(TooLarge.class, e -> Mono.from(jsonError(res, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                        null, McpSchema.ErrorCodes.INVALID_REQUEST, "body exceeds " + maxBodyBytes + " bytes")));
    }

    private ByteArrayOutputStream append(ByteArrayOutputStream acc, ByteBuf buf) {
        int n = buf.readableBytes();
        if (acc.size() + n > maxBodyBytes) {
            throw new TooLarge();
        }
        byte[] b = new byte[n];
        buf.readBytes(b);
        acc.write(b, 0, n);
        return acc;
    }

    /** A POST's body: to the 2026-07-28 side when its version header or its {@code _meta} says so, else to the legacy one. */
    private Publisher<Void> dispatch(String body, HttpServerRequest req, String sessionHeader, boolean sse,
                                     HttpServerResponse res, String principal, CallContext context) {
        if (body.strip().startsWith("[")) {
            return jsonError(res, HttpResponseStatus.BAD_REQUEST, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "JSON-RPC batches are not supported");
        }
        String version = req.requestHeaders().get(VERSION);
        ModernDispatcher m = modern;
        if (m != null) {
            JsonNode tree;
            try {
                tree = mapper.readTree(body);
            } catch (java.io.IOException | RuntimeException e) {
                return jsonError(res, HttpResponseStatus.BAD_REQUEST, null, McpSchema.ErrorCodes.PARSE_ERROR,
                        "parse error: " + e.getMessage());
            }
            if (tree == null) {
                return jsonError(res, HttpResponseStatus.BAD_REQUEST, null, McpSchema.ErrorCodes.PARSE_ERROR,
                        "parse error: empty body");
            }
            if (ModernHttp.modern(version, tree)) {
                return ModernHttp.serve(m, tree, req.requestHeaders(), sse, res, principal, context, paramHeaders);
            }
        }
        if (version != null && !VERSIONS.contains(version) && !ProtocolVersions.MCP_2024_11_05.equals(version)) {
            return jsonError(res, HttpResponseStatus.BAD_REQUEST, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "unsupported MCP-Protocol-Version: " + version);
        }
        return message(body, sessionHeader, sse, res, principal);
    }

    private Publisher<Void> message(String body, String sessionHeader, boolean sse, HttpServerResponse res,
                                    String principal) {
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, body);
        } catch (Exception e) {
            return jsonError(res, HttpResponseStatus.BAD_REQUEST, null, McpSchema.ErrorCodes.PARSE_ERROR,
                    "parse error: " + e.getMessage());
        }
        // requests without a session are scoped to their client: one client cannot cancel another's ids
        String scope = sessionHeader == null ? RpcDispatcher.sessionless(principal) : sessionHeader;
        if (sessionHeader != null) {
            Session owned = sessions.get(sessionHeader);
            if (owned == null || !owned.principal().equals(principal)) {
                return jsonError(res, HttpResponseStatus.NOT_FOUND, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                        "unknown or ended session: " + sessionHeader);
            }
        }
        McpTransportContext ctx = McpTransportContext.create(Map.of("session", scope));
        if (message instanceof McpSchema.JSONRPCRequest request) {
            if (McpSchema.METHOD_INITIALIZE.equals(request.method())) {
                if (!initializes.take(principal)) {
                    res.header("Retry-After", "1");
                    return jsonError(res, HttpResponseStatus.TOO_MANY_REQUESTS, request.id(),
                            McpSchema.ErrorCodes.INVALID_REQUEST, "too many initialize requests from this client; retry later");
                }
                scope = openSession(principal);
                if (scope == null) {
                    return jsonError(res, HttpResponseStatus.SERVICE_UNAVAILABLE, request.id(),
                            McpSchema.ErrorCodes.INVALID_REQUEST, "too many MCP sessions are open; retry later");
                }
                res.header(SESSION, scope);
            }
            Object id = request.id();
            if (sse) {
                return StreamedResponse.send(dispatcher, json, scope, principal, request, res,
                        (status, encoded) -> sendBody(res, status, encoded));
            }
            return dispatcher.request(scope, principal, request, null)
                    .switchIfEmpty(Mono.fromSupplier(() -> cancelled(id)))
                    .flatMap(response -> Mono.from(sendJson(res, HttpResponseStatus.OK, response)));
        }
        if (message instanceof McpSchema.JSONRPCResponse response) {
            // the client's answer to a request of ours (elicitation/create), sent on its own POST
            dispatcher.response(scope, response);
            return res.status(HttpResponseStatus.ACCEPTED).send();
        }
        if (message instanceof McpSchema.JSONRPCNotification notification) {
            return dispatcher.notification(scope, ctx, notification)
                    .onErrorResume(e -> {
                        log.warn("MCP notification {} failed: {}", notification.method(), e.toString());
                        return Mono.empty();
                    })
                    .then(Mono.defer(() -> Mono.from(res.status(HttpResponseStatus.ACCEPTED).send())));
        }
        return res.status(HttpResponseStatus.ACCEPTED).send();
    }

    /** {@code GET} of a session: its standalone SSE stream, open until the session or the server ends. */
    private Publisher<Void> openStream(HttpServerRequest req, HttpServerResponse res, String session, String principal) {
        Session owned = sessions.get(session);
        if (owned == null || !owned.principal().equals(principal)) {
            return jsonError(res, HttpResponseStatus.NOT_FOUND, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "unknown or ended session: " + session);
        }
        if (!req.requestHeaders().get("Accept", "").toLowerCase(Locale.ROOT).contains("text/event-stream")) {
            return jsonError(res, HttpResponseStatus.NOT_ACCEPTABLE, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "Accept must allow text/event-stream");
        }
        var stream = streams.open(session);
        if (stream == null) {
            return status(res, HttpResponseStatus.SERVICE_UNAVAILABLE, "too many open streams");
        }
        res.status(HttpResponseStatus.OK).header("Content-Type", "text/event-stream").header("Cache-Control", "no-cache");
        // an SSE comment first, so that the client sees the stream open at once
        return res.send(Flux.concat(
                Mono.fromSupplier(() -> Unpooled.copiedBuffer(": stream open\n\n", StandardCharsets.UTF_8)),
                stream), b -> true).then();
    }

    @Override
    public void notifySessions(String method) {
        try {
            streams.broadcast(json.writeValueAsString(
                    new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, method, null)));
        } catch (IOException e) {
            log.warn("cannot encode {}: {}", method, e.getMessage());
        }
    }

    private static McpSchema.JSONRPCResponse cancelled(Object id) {
        return McpSchema.JSONRPCResponse.error(id, new McpSchema.JSONRPCResponse.JSONRPCError(-32800, "request cancelled", null));
    }

    /**
     * Opens a session for {@code principal}. A client at its own cap loses its own oldest session;
     * another client's session is never ended to make room: with every slot taken, {@code null}.
     */
    private synchronized String openSession(String principal) {
        List<Map.Entry<String, Session>> own = sessions.entrySet().stream()
                .filter(e -> e.getValue().principal().equals(principal))
                .sorted(java.util.Comparator.comparingLong(e -> e.getValue().openedNanos())).toList();
        for (int i = 0; i <= own.size() - maxSessionsPerClient; i++) {
            endSession(own.get(i).getKey());
        }
        if (sessions.size() >= maxSessions) {
            return null;
        }
        String id = UUID.randomUUID().toString();
        sessions.put(id, new Session(principal, System.nanoTime()));
        return id;
    }

    private void endSession(String id) {
        if (sessions.remove(id) != null) {
            dispatcher.cancelAll(id);
            streams.close(id);
        }
    }

    /** Sessions open now (tests). */
    int sessions() {
        return sessions.size();
    }

    /** The connections of the endpoint (tests). */
    HttpConnections connections() {
        return open;
    }

    /**
     * A {@code Host} the endpoint answers to, against DNS rebinding: when bound to a loopback address,
     * a loopback name ({@code localhost}, {@code 127.0.0.1}, {@code [::1]}) with any port, or an
     * allowed origin's host; any host when bound elsewhere (tokens protect that endpoint).
     */
    private boolean hostAllowed(String host) {
        DisposableServer s = server;
        if (s == null || !(s.address() instanceof java.net.InetSocketAddress a) || !a.getAddress().isLoopbackAddress()) {
            return true;
        }
        String h = host.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            h = end < 0 ? h : h.substring(0, end + 1);
        } else if (h.indexOf(':') >= 0 && h.indexOf(':') == h.lastIndexOf(':')) {
            h = h.substring(0, h.indexOf(':'));
        }
        if (h.equals("localhost") || h.equals("127.0.0.1") || h.equals("[::1]") || h.equals("::1")) {
            return true;
        }
        if (allowedOrigins.contains("*")) {
            return true;
        }
        for (String o : allowedOrigins) {
            try {
                String oh = URI.create(o).getHost();
                if (oh != null && oh.equalsIgnoreCase(h.replace("[", "").replace("]", ""))) {
                    return true;
                }
            } catch (IllegalArgumentException e) {
                // not a URL: not a host either
            }
        }
        return false;
    }

    private boolean originAllowed(String origin) {
        if (allowedOrigins.contains(origin) || allowedOrigins.contains("*")) {
            return true;
        }
        try {
            String host = URI.create(origin).getHost();
            return host != null && (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]")
                    || host.equals("::1"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private Publisher<Void> sendJson(HttpServerResponse res, HttpResponseStatus status, Object body) {
        byte[] bytes;
        try {
            bytes = json.writeValueAsString(body).getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return status(res, HttpResponseStatus.INTERNAL_SERVER_ERROR, "cannot encode the response");
        }
        return res.status(status).header("Content-Type", "application/json")
                .header("Content-Length", String.valueOf(bytes.length))
                .sendByteArray(Mono.just(bytes)).then();
    }

    private static Publisher<Void> sendBody(HttpServerResponse res, HttpResponseStatus status, String json) {
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
        return res.status(status).header("Content-Type", "application/json")
                .header("Content-Length", String.valueOf(bytes.length))
                .sendByteArray(Mono.just(bytes)).then();
    }

    private Publisher<Void> jsonError(HttpServerResponse res, HttpResponseStatus status, Object id, int code, String msg) {
        return sendJson(res, status, RpcDispatcher.errorResponse(id, code, msg));
    }

    private static Publisher<Void> status(HttpServerResponse res, HttpResponseStatus status, String text) {
        return res.status(status).header("Content-Type", "text/plain; charset=utf-8").sendString(Mono.just(text)).then();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            if (dispatcher != null) {
                dispatcher.cancelAll(null);
            }
            if (onClose != null) {
                onClose.run();
            }
            streams.closeAll();
            DisposableServer s = server;
            if (s == null) {
                return Mono.empty();
            }
            s.dispose();
            // disposing the server closes its listening socket; the group closes keep-alive connections too
            return s.onDispose().then(Mono.<Void>create(sink -> connections.close().addListener(f -> sink.success())));
        });
    }

    private volatile Runnable onClose;

    /** Runs at close, before the connections are: ends the 2026-07-28 listen streams gracefully. */
    void onClose(Runnable r) {
        this.onClose = r;
    }

    /** The body grew past the bound. */
    private static final class TooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super("body too large", null, false, false);
        }
    }
}
