package dev.toolbus.mcp.server;

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
import java.util.concurrent.atomic.AtomicInteger;
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
    private final Map<String, Long> sessions = new ConcurrentHashMap<>();
    private volatile RpcDispatcher dispatcher;
    private volatile DisposableServer server;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final ListChangedStreams streams = new ListChangedStreams();
    private final int maxConnections;
    private final Duration idleTimeout;
    private final AtomicInteger open = new AtomicInteger();

    NettyHttpServerTransport(McpJsonMapper json, String path, int maxBodyBytes, Set<String> allowedOrigins,
                             int maxSessions, AccessTokens tokens, Function<AccessTokens.Grant, TokenScope.Admission> admit) {
        this(json, path, maxBodyBytes, allowedOrigins, maxSessions, tokens, admit, 1024, Duration.ofSeconds(60));
    }

    /**
     * @param maxConnections connections open at once; one above is closed as soon as it is accepted
     * @param idleTimeout how long a connection may wait for its next request (or for the rest of a
     *     request's body) before it is closed; a running SSE stream is not idle
     */
    NettyHttpServerTransport(McpJsonMapper json, String path, int maxBodyBytes, Set<String> allowedOrigins,
                             int maxSessions, AccessTokens tokens, Function<AccessTokens.Grant, TokenScope.Admission> admit,
                             int maxConnections, Duration idleTimeout) {
        this.maxConnections = maxConnections;
        this.idleTimeout = idleTimeout;
        this.tokens = tokens;
        this.admit = admit;
        this.json = json;
        this.path = path;
        this.maxBodyBytes = maxBodyBytes;
        this.allowedOrigins = Set.copyOf(allowedOrigins);
        this.maxSessions = maxSessions;
    }

    @Override
    public void setMcpHandler(McpStatelessServerHandler handler) {
        this.dispatcher = new RpcDispatcher(handler);
    }

    @Override
    public List<String> protocolVersions() {
        return VERSIONS;
    }

    Mono<DisposableServer> bind(String host, int port) {
        return HttpServer.create().host(host).port(port).channelGroup(connections)
                .idleTimeout(idleTimeout).readTimeout(idleTimeout)
                .doOnChannelInit((observer, channel, remote) -> {
                    channel.closeFuture().addListener(f -> open.decrementAndGet());
                    if (open.incrementAndGet() > maxConnections) {
                        log.debug("mcp http: {} connections open, closing {}", maxConnections, remote);
                        channel.close();
                    }
                })
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
        return Mono.from(route(req, res)).contextWrite(c -> c.put(CONTEXT_KEY, admission.context()));
    }

    private Publisher<Void> route(HttpServerRequest req, HttpServerResponse res) {
        String uriPath = req.fullPath();
        if (!path.equals(uriPath) && !(path + "/").equals(uriPath)) {
            return status(res, HttpResponseStatus.NOT_FOUND, "not found");
        }
        String origin = req.requestHeaders().get("Origin");
        if (origin != null && !originAllowed(origin)) {
            return status(res, HttpResponseStatus.FORBIDDEN, "origin not allowed: " + origin);
        }
        String version = req.requestHeaders().get(VERSION);
        if (version != null && !VERSIONS.contains(version) && !ProtocolVersions.MCP_2024_11_05.equals(version)) {
            return jsonError(res, HttpResponseStatus.BAD_REQUEST, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "unsupported MCP-Protocol-Version: " + version);
        }
        HttpMethod method = req.method();
        if (HttpMethod.POST.equals(method)) {
            return post(req, res);
        }
        if (HttpMethod.DELETE.equals(method)) {
            String id = req.requestHeaders().get(SESSION);
            if (id == null) {
                return status(res, HttpResponseStatus.BAD_REQUEST, "missing " + SESSION);
            }
            if (sessions.remove(id) == null) {
                return status(res, HttpResponseStatus.NOT_FOUND, "unknown session");
            }
            dispatcher.cancelAll(id);
            streams.close(id);
            return res.status(HttpResponseStatus.NO_CONTENT).send();
        }
        String session = req.requestHeaders().get(SESSION);
        if (HttpMethod.GET.equals(method) && session != null) {
            return openStream(req, res, session);
        }
        res.header("Allow", "POST, DELETE");
        return status(res, HttpResponseStatus.METHOD_NOT_ALLOWED, "use POST");
    }

    private Publisher<Void> post(HttpServerRequest req, HttpServerResponse res) {
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
        return req.receive()
                .reduce(new ByteArrayOutputStream(), (acc, buf) -> append(acc, buf))
                .defaultIfEmpty(new ByteArrayOutputStream())
                .flatMap(body -> Mono.from(message(body.toString(StandardCharsets.UTF_8), sessionHeader,
                        accept.contains("text/event-stream"), res)))
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

    private Publisher<Void> message(String body, String sessionHeader, boolean sse, HttpServerResponse res) {
        if (body.strip().startsWith("[")) {
            return jsonError(res, HttpResponseStatus.BAD_REQUEST, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "JSON-RPC batches are not supported");
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, body);
        } catch (Exception e) {
            return jsonError(res, HttpResponseStatus.BAD_REQUEST, null, McpSchema.ErrorCodes.PARSE_ERROR,
                    "parse error: " + e.getMessage());
        }
        String scope = sessionHeader == null ? "" : sessionHeader;
        if (sessionHeader != null && !sessions.containsKey(sessionHeader)) {
            return jsonError(res, HttpResponseStatus.NOT_FOUND, null, McpSchema.ErrorCodes.INVALID_REQUEST,
                    "unknown or ended session: " + sessionHeader);
        }
        McpTransportContext ctx = McpTransportContext.create(Map.of("session", scope));
        if (message instanceof McpSchema.JSONRPCRequest request) {
            if (McpSchema.METHOD_INITIALIZE.equals(request.method())) {
                scope = openSession();
                res.header(SESSION, scope);
            }
            Object id = request.id();
            if (sse) {
                return StreamedResponse.send(dispatcher, json, scope, request, res,
                        (status, encoded) -> sendBody(res, status, encoded));
            }
            return dispatcher.request(scope, request, null)
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
    private Publisher<Void> openStream(HttpServerRequest req, HttpServerResponse res, String session) {
        if (!sessions.containsKey(session)) {
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

    private String openSession() {
        if (sessions.size() >= maxSessions) {
            // forget the oldest: sessions only scope cancellations here, so this loses nothing else
            sessions.entrySet().stream().min(Map.Entry.comparingByValue())
                    .ifPresent(e -> {
                        sessions.remove(e.getKey());
                        dispatcher.forget(e.getKey());
                        streams.close(e.getKey());
                    });
        }
        String id = UUID.randomUUID().toString();
        sessions.put(id, System.nanoTime());
        return id;
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

    /** The body grew past the bound. */
    private static final class TooLarge extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TooLarge() {
            super("body too large", null, false, false);
        }
    }
}
