package dev.toolbus.mcp.server;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;

/**
 * The way back to the MCP client of a session for one request in flight: notifications and requests
 * sent while the request runs travel with it (on stdio, the output; over HTTP, the SSE stream of the
 * request's POST). {@link RpcDispatcher} puts one into the request's {@link McpTransportContext}
 * under {@link #KEY}.
 */
final class SessionOutbox {

    /** The transport-context key of the outbox. */
    static final String KEY = "dev.toolbus/session-outbox";

    private final SessionState session;
    private final Consumer<Object> out;

    /**
     * @param session the client's session
     * @param out writes one JSON-RPC message to the client, or {@code null} when this request cannot
     *     carry any (an HTTP client that does not accept {@code text/event-stream})
     */
    SessionOutbox(SessionState session, Consumer<Object> out) {
        this.session = session;
        this.out = out;
    }

    /** The outbox of a request, or {@code null}. */
    static SessionOutbox of(McpTransportContext ctx) {
        return ctx == null ? null : ctx.get(KEY) instanceof SessionOutbox c ? c : null;
    }

    /** Whether messages can reach the client during this request. */
    boolean open() {
        return out != null;
    }

    /** Whether the client can be asked: it declared {@code elicitation} and messages reach it. */
    boolean canElicit() {
        return out != null && session.canElicit();
    }

    /** Whether the client can be asked to visit a URL: it declared {@code elicitation.url}. */
    boolean canElicitUrl() {
        return out != null && session.canElicitUrl();
    }

    /** Whether the client's roots can be asked for: it declared {@code roots} and messages reach it. */
    boolean canListRoots() {
        return out != null && session.canListRoots();
    }

    /** The client's session. */
    SessionState session() {
        return session;
    }

    /** Whether the client's model can be asked: it declared {@code sampling} and messages reach it. */
    boolean canSample() {
        return out != null && session.canSample();
    }

    /** Sends a notification, if messages reach the client. */
    void notify(String method, Map<String, Object> params) {
        if (out != null) {
            out.accept(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, method, params));
        }
    }

    /** Sends a log message ({@code notifications/message}) when the client's level lets it through. */
    void log(String level, String logger, Object data) {
        if (out != null && session.logs(level)) {
            Map<String, Object> params = new LinkedHashMap<>();
            params.put("level", level);
            params.put("logger", logger);
            params.put("data", data);
            notify("notifications/message", params);
        }
    }

    /**
     * Sends a request and waits for the client's response; when {@code timeout} passes first, the
     * client gets {@code notifications/cancelled} for it and the Mono completes empty. A Mono
     * cancelled by its subscriber cancels the client's request the same way.
     */
    Mono<McpSchema.JSONRPCResponse> request(String method, Object params, Duration timeout) {
        if (out == null) {
            return Mono.error(new IllegalStateException("this request cannot carry messages to the client"));
        }
        return Mono.defer(() -> {
            SessionState.Pending p = session.open();
            if (p == null) {
                return Mono.error(new IllegalStateException("too many requests wait for the MCP client"));
            }
            out.accept(new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, method, p.id(), params));
            return p.response()
                    .timeout(timeout, Mono.fromRunnable(() -> cancel(p.id(), "timed out")))
                    .doOnCancel(() -> cancel(p.id(), "no longer needed"));
        });
    }

    private void cancel(String id, String reason) {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("requestId", id);
        params.put("reason", reason);
        notify(RpcDispatcher.CANCELLED, params);
    }
}
