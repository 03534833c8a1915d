package dev.toolbus.mcp.server;

import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * The MCP client of one running call, as its tool reaches it through {@link McpSampling}: whether the
 * client can be asked, and the asking. A legacy call ({@link LiveEvents}) sends the client a request
 * on the call's stream; a 2026-07-28 call ({@link ModernCall}) returns an {@code input_required}
 * result keyed by {@code key}.
 */
interface CallPeer {

    /** Whether the client declared {@code sampling} and can be reached during this call. */
    boolean canSample();

    /** {@code sampling/createMessage}; {@code key} names it in an {@code input_required} result ({@code null}: one is made up). */
    Mono<McpSchema.CreateMessageResult> sample(String key, McpSchema.CreateMessageRequest request, Duration timeout);

    /** Whether the client declared {@code roots} and can be reached during this call. */
    boolean canListRoots();

    /** {@code roots/list}. */
    Mono<McpSchema.ListRootsResult> listRoots(String key, Duration timeout);

    /** Whether the client can be asked a form question ({@code url}: a URL-mode one). */
    boolean canElicit(boolean url);

    /**
     * Holds the call's questions back until the returned release runs, so that questions asked
     * meanwhile share one {@code input_required} result (a legacy call asks each at once: nothing to hold).
     */
    default Runnable hold() {
        return () -> { };
    }
}
