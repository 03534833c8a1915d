package dev.toolbus.mcp.server;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Hands JSON-RPC messages of one server transport to the SDK's stateless handler, and implements
 * {@code notifications/cancelled}, which the SDK ignores: each request in flight is registered under
 * (scope, id), and a cancellation for it disposes the request's subscription, which cancels the
 * executor's call. A cancelled request gets no response (as the MCP specification asks).
 */
final class RpcDispatcher {

    static final String CANCELLED = "notifications/cancelled";
    static final String SET_LEVEL = "logging/setLevel";
    private static final int MAX_SESSIONS = 20_000;
    /** The most requests in flight at once, over all scopes. */
    static final int MAX_INFLIGHT = 100_000;
    private static final Logger log = LoggerFactory.getLogger(RpcDispatcher.class);

    private final McpStatelessServerHandler handler;
    private volatile LegacyTasks legacyTasks;
    private final Map<String, Sinks.One<Boolean>> inflight = new ConcurrentHashMap<>();
    private final Map<String, SessionState> sessions = new ConcurrentHashMap<>();

    RpcDispatcher(McpStatelessServerHandler handler) {
        this.handler = handler;
    }

    /** Serves 2025-11-25 tasks ({@code tools/call} with {@code task}, {@code tasks/*}) with these. */
    void legacyTasks(LegacyTasks tasks) {
        this.legacyTasks = tasks;
    }

    /** The scope of a client's requests without a session: its own, so ids never meet another client's. */
    static String sessionless(String principal) {
        return "anon:" + principal;
    }

    /**
     * Runs a request; empty when it was cancelled. {@code out} writes a message to the client while
     * the request runs ({@code null} when this request cannot carry any): the handler finds it as the
     * {@link SessionOutbox} in its transport context. {@code initialize} records the client's
     * capabilities for the scope, and {@code logging/setLevel} is answered here.
     */
    Mono<McpSchema.JSONRPCResponse> request(String scope, String principal, McpSchema.JSONRPCRequest request,
                                            Consumer<Object> out) {
        String key = key(scope, request.id());
        return Mono.defer(() -> {
            SessionState session = session(scope);
            if (McpSchema.METHOD_INITIALIZE.equals(request.method())) {
                session.initialized(request.params());
            } else if (SET_LEVEL.equals(request.method())) {
                Object level = request.params() instanceof Map<?, ?> m ? m.get("level") : null;
                return Mono.just(level instanceof String l && session.logLevel(l)
                        ? new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, request.id(), Map.of(), null)
                        : McpSchema.JSONRPCResponse.error(request.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                                McpSchema.ErrorCodes.INVALID_PARAMS, "unknown log level: " + level, null)));
            }
            Map<String, Object> values = new HashMap<>();
            values.put("session", scope);
            values.put(SessionOutbox.KEY, new SessionOutbox(session, out));
            values.put(NettyHttpServerTransport.PRINCIPAL_KEY, principal);
            McpTransportContext withOutbox = McpTransportContext.create(values);
            Sinks.One<Boolean> cancel = Sinks.one();
            if (inflight.size() >= MAX_INFLIGHT && !inflight.containsKey(key)) {
                return Mono.just(McpSchema.JSONRPCResponse.error(request.id(), new McpSchema.JSONRPCResponse.JSONRPCError(
                        McpSchema.ErrorCodes.INTERNAL_ERROR, "too many requests in flight", null)));
            }
            inflight.put(key, cancel);
            LegacyTasks tasks = legacyTasks;
            Mono<McpSchema.JSONRPCResponse> handled = tasks != null && tasks.handles(request)
                    ? tasks.handle(request, principal, new SessionOutbox(session, out))
                    : handler.handleRequest(withOutbox, request).map(r -> tasks == null ? r : tasks.decorate(request, r));
            return handled
                    .takeUntilOther(cancel.asMono())
                    .doFinally(s -> inflight.remove(key, cancel));
        });
    }

    /** Hands a client's response to the request of ours that waits for it (else drops it). */
    void response(String scope, McpSchema.JSONRPCResponse response) {
        SessionState session = scope.isEmpty() || scope.startsWith("anon:") ? null : sessions.get(scope);
        if (session == null || !session.response(response)) {
            log.debug("MCP response {} matches no request of this server; dropped", response.id());
        }
    }

    /** Forgets a scope's session: its waiting requests to the client fail. */
    void forget(String scope) {
        SessionState s = sessions.remove(scope);
        if (s != null) {
            s.close();
        }
    }

    /** The session of a scope; a sessionless HTTP request gets a throwaway one. */
    private SessionState session(String scope) {
        if (scope.isEmpty() || scope.startsWith("anon:")) {
            return new SessionState("toolbus-");
        }
        SessionState s = sessions.get(scope);
        if (s != null) {
            return s;
        }
        if (sessions.size() >= MAX_SESSIONS) {
            // the transports bound their sessions; this only guards against a leak
            sessions.keySet().stream().findFirst().ifPresent(this::forget);
        }
        return sessions.computeIfAbsent(scope, k -> new SessionState("toolbus-"));
    }

    /** Handles a notification: a cancellation here, anything else by the SDK. */
    Mono<Void> notification(String scope, McpTransportContext ctx, McpSchema.JSONRPCNotification notification) {
        if (CANCELLED.equals(notification.method())) {
            Object id = notification.params() instanceof Map<?, ?> m ? m.get("requestId") : null;
            Sinks.One<Boolean> cancel = id == null ? null : inflight.get(key(scope, id));
            if (cancel != null) {
                log.debug("MCP request {} cancelled by the client: {}", id,
                        notification.params() instanceof Map<?, ?> m ? m.get("reason") : "");
                cancel.tryEmitValue(Boolean.TRUE);
            }
            return Mono.empty();
        }
        return handler.handleNotification(ctx, notification);
    }

    /** Cancels every request of a scope (a closed session), or all with {@code null}. */
    void cancelAll(String scope) {
        inflight.forEach((k, v) -> {
            if (scope == null || k.startsWith(scope + '\u0000')) {
                v.tryEmitValue(Boolean.TRUE);
            }
        });
        if (scope == null) {
            sessions.keySet().forEach(this::forget);
        } else {
            forget(scope);
        }
    }

    int inflight() {
        return inflight.size();
    }

    /**
     * A JSON-RPC error response as a map: the SDK's response record refuses the {@code null} id that
     * JSON-RPC prescribes for a message whose id could not be read.
     */
    static Map<String, Object> errorResponse(Object id, int code, String message) {
        Map<String, Object> error = new java.util.LinkedHashMap<>();
        error.put("code", code);
        error.put("message", message);
        Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("jsonrpc", McpSchema.JSONRPC_VERSION);
        m.put("id", id);
        m.put("error", error);
        return m;
    }

    private static String key(String scope, Object id) {
        String ids = id instanceof Number n && n.doubleValue() == Math.rint(n.doubleValue()) ? "n" + n.longValue() : "s" + id;
        return scope + '\u0000' + ids;
    }
}
