package dev.toolbus.mcp.server;

import io.modelcontextprotocol.server.McpStatelessAsyncServer;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;

/** A running streamable HTTP endpoint of an {@link McpToolServer}. */
public final class McpHttpServer implements AutoCloseable {

    private final DisposableServer server;
    private final String path;
    private final McpStatelessAsyncServer mcp;

    McpHttpServer(DisposableServer server, String path, McpStatelessAsyncServer mcp) {
        this.server = server;
        this.path = path;
        this.mcp = mcp;
    }

    /** The bound port. */
    public int port() {
        return server.port();
    }

    /** The bound host. */
    public String host() {
        return server.host();
    }

    /** The endpoint, for example {@code http://127.0.0.1:3001/mcp}. */
    public String url() {
        String h = host().contains(":") ? "[" + host() + "]" : host();
        return "http://" + h + ":" + port() + path;
    }

    /** Stops accepting connections, cancels calls in flight and releases the port. */
    public Mono<Void> closeGracefully() {
        return mcp.closeGracefully().onErrorResume(e -> Mono.empty()).then(Mono.defer(() -> {
            server.dispose();
            return server.onDispose();
        }));
    }

    @Override
    public void close() {
        closeGracefully().block(Duration.ofSeconds(10));
    }
}
