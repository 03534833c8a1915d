package dev.toolbus.mcp.client;

import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * Wraps a client transport so that a {@code tools/call} can be cancelled on the server.
 *
 * <p>The MCP Java SDK neither sends {@code notifications/cancelled} nor tells its caller the JSON-RPC id
 * of a request. The SDK's session does pass the caller's Reactor context down to
 * {@link #sendMessage}, so a call subscribes with a {@link CallTag} in its context; this wrapper
 * records the request id in the tag as the request goes out, and {@link #cancel} sends the
 * notification for that id through the same transport (and so the same stdio pipe or HTTP session).
 */
final class CancellingTransport implements McpClientTransport {

    /** The Reactor context key of a {@link CallTag}. */
    static final String TAG_KEY = CancellingTransport.class.getName() + ".tag";

    private final McpClientTransport delegate;

    CancellingTransport(McpClientTransport delegate) {
        this.delegate = delegate;
    }

    McpClientTransport delegate() {
        return delegate;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return delegate.connect(handler);
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        if (message instanceof McpSchema.JSONRPCRequest request && McpSchema.METHOD_TOOLS_CALL.equals(request.method())) {
            return Mono.deferContextual(ctx -> {
                ctx.<CallTag>getOrEmpty(TAG_KEY).ifPresent(tag -> tag.requestId = request.id());
                return delegate.sendMessage(message);
            });
        }
        return delegate.sendMessage(message);
    }

    /**
     * Sends {@code notifications/cancelled} for the call's request, if it was sent.
     *
     * @return {@code true} when a notification went out
     */
    boolean cancel(CallTag tag, String reason) {
        Object id = tag.requestId;
        if (id == null || tag.cancelSent) {
            return false;
        }
        tag.cancelSent = true;
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("requestId", id);
        params.put("reason", reason);
        delegate.sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, "notifications/cancelled", params))
                .subscribe(null, e -> { /* the server may be gone: nothing to cancel */ });
        return true;
    }

    @Override
    public Mono<Void> closeGracefully() {
        return delegate.closeGracefully();
    }

    @Override
    public void close() {
        delegate.close();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return delegate.unmarshalFrom(data, typeRef);
    }

    @Override
    public List<String> protocolVersions() {
        return delegate.protocolVersions();
    }

    /** The JSON-RPC id of one {@code tools/call}, filled in as the request is sent. */
    static final class CallTag {
        volatile Object requestId;
        volatile boolean cancelSent;
    }
}
