package dev.toolbus.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    private static final Logger log = LoggerFactory.getLogger(RpcDispatcher.class);

    private final McpStatelessServerHandler handler;
    private final Map<String, Sinks.One<Boolean>> inflight = new ConcurrentHashMap<>();

    RpcDispatcher(McpStatelessServerHandler handler) {
        this.handler = handler;
    }

    /** Runs a request; empty when it was cancelled. */
    Mono<McpSchema.JSONRPCResponse> request(String scope, McpTransportContext ctx, McpSchema.JSONRPCRequest request) {
        String key = key(scope, request.id());
        return Mono.defer(() -> {
            Sinks.One<Boolean> cancel = Sinks.one();
            inflight.put(key, cancel);
            return handler.handleRequest(ctx, request)
                    .takeUntilOther(cancel.asMono())
                    .doFinally(s -> inflight.remove(key, cancel));
        });
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
