package dev.toolbus.mcp.server;

import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Predicate;
import reactor.core.publisher.Mono;

/**
 * A transport whose SDK handler runs a {@code tools/call} of a registered tool that the session is not
 * shown (its policy hides it) through the executor too, so the policy answers as on every other face:
 * an error result with its code ({@code PERMISSION_DENIED}, {@code NOT_AVAILABLE}) in
 * {@code _meta["dev.toolbus/error_code"]}, instead of the SDK's "Unknown tool" protocol error. A name
 * no registered tool has still gets the SDK's answer.
 */
final class HiddenToolCalls implements McpStatelessServerTransport {

    private final McpStatelessServerTransport transport;
    private final Predicate<String> hidden;
    private final BiFunction<McpTransportContext, McpSchema.CallToolRequest, Mono<McpSchema.CallToolResult>> call;
    private final McpJsonMapper json;

    /**
     * @param hidden whether a name is a registered tool the server does not list
     * @param call runs a call through the executor
     */
    HiddenToolCalls(McpStatelessServerTransport transport, Predicate<String> hidden,
                    BiFunction<McpTransportContext, McpSchema.CallToolRequest, Mono<McpSchema.CallToolResult>> call,
                    McpJsonMapper json) {
        this.transport = transport;
        this.hidden = hidden;
        this.call = call;
        this.json = json;
    }

    @Override
    public void setMcpHandler(McpStatelessServerHandler handler) {
        transport.setMcpHandler(new McpStatelessServerHandler() {
            @Override
            public Mono<McpSchema.JSONRPCResponse> handleRequest(McpTransportContext ctx, McpSchema.JSONRPCRequest r) {
                if (McpSchema.METHOD_TOOLS_CALL.equals(r.method()) && r.params() instanceof Map<?, ?> p
                        && p.get("name") instanceof String name && hidden.test(name)) {
                    McpSchema.CallToolRequest request = json.convertValue(r.params(), McpSchema.CallToolRequest.class);
                    return call.apply(ctx, request)
                            .map(result -> new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, r.id(), result, null));
                }
                return handler.handleRequest(ctx, r);
            }

            @Override
            public Mono<Void> handleNotification(McpTransportContext ctx, McpSchema.JSONRPCNotification n) {
                return handler.handleNotification(ctx, n);
            }
        });
    }

    @Override
    public void close() {
        transport.close();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return transport.closeGracefully();
    }

    @Override
    public List<String> protocolVersions() {
        return transport.protocolVersions();
    }
}
