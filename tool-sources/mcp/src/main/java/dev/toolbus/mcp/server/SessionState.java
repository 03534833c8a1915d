package dev.toolbus.mcp.server;

import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What this server knows of one MCP client session (stdio, or one HTTP {@code Mcp-Session-Id}): the
 * capabilities it declared in {@code initialize}, the log level it set, and the requests this server
 * sent it ({@code elicitation/create}, {@code sampling/createMessage}) that wait for its response. Bounded: at most
 * {@link #MAX_PENDING} requests wait at once.
 */
final class SessionState {

    /** The most requests to the client that may wait for a response at once. */
    static final int MAX_PENDING = 256;

    /** MCP's log levels, least severe first. */
    static final List<String> LEVELS = List.of("debug", "info", "notice", "warning", "error", "critical", "alert",
            "emergency");

    private final String prefix;
    private final AtomicLong ids = new AtomicLong();
    private final Map<String, Sinks.One<McpSchema.JSONRPCResponse>> pending = new ConcurrentHashMap<>();
    private volatile boolean elicitation;
    private volatile boolean sampling;
    private volatile boolean roots;
    private volatile boolean elicitationUrl;
    private volatile int logLevel = 0;

    SessionState(String prefix) {
        this.prefix = prefix;
    }

    /** Records the client's {@code initialize} parameters. */
    void initialized(Object params) {
        Object caps = params instanceof Map<?, ?> m ? m.get("capabilities") : null;
        elicitation = caps instanceof Map<?, ?> c && c.get("elicitation") != null;
        elicitationUrl = caps instanceof Map<?, ?> c && c.get("elicitation") instanceof Map<?, ?> e && e.get("url") != null;
        sampling = caps instanceof Map<?, ?> c && c.get("sampling") != null;
        roots = caps instanceof Map<?, ?> c && c.get("roots") != null;
    }

    /** Whether the client declared the {@code elicitation} capability. */
    boolean canElicit() {
        return elicitation;
    }

    /** Sets the least severe level the client wants; {@code false} for an unknown level. */
    boolean logLevel(String level) {
        int i = LEVELS.indexOf(level);
        if (i < 0) {
            return false;
        }
        logLevel = i;
        return true;
    }

    /** Whether a log message at this level goes out. */
    boolean logs(String level) {
        return LEVELS.indexOf(level) >= logLevel;
    }

    /** Whether the client declared URL-mode elicitation ({@code elicitation.url}). */
    boolean canElicitUrl() {
        return elicitationUrl;
    }

    /** Whether the client declared the {@code roots} capability. */
    boolean canListRoots() {
        return roots;
    }

    /** What the client declared, as a {@link ClientCaps} (its tasks support is not read here). */
    ClientCaps caps() {
        return new ClientCaps(elicitation, elicitationUrl, sampling, roots, false);
    }

    /** Whether the client declared the {@code sampling} capability. */
    boolean canSample() {
        return sampling;
    }

    /** Registers a request to the client; its id, and the response's Mono, or an error when too many wait. */
    Pending open() {
        if (pending.size() >= MAX_PENDING) {
            return null;
        }
        String id = prefix + ids.incrementAndGet();
        Sinks.One<McpSchema.JSONRPCResponse> sink = Sinks.one();
        pending.put(id, sink);
        return new Pending(id, sink.asMono().doFinally(s -> pending.remove(id, sink)));
    }

    /** Hands a client's response to the request waiting for it; {@code false} when none waits. */
    boolean response(McpSchema.JSONRPCResponse response) {
        Sinks.One<McpSchema.JSONRPCResponse> sink = response.id() == null ? null : pending.remove(String.valueOf(response.id()));
        return sink != null && sink.tryEmitValue(response).isSuccess();
    }

    /** Fails every waiting request: the session ended. */
    void close() {
        pending.forEach((id, sink) -> sink.tryEmitError(new IllegalStateException("the MCP session ended")));
        pending.clear();
    }

    int pending() {
        return pending.size();
    }

    /** A request to the client: its JSON-RPC id and its response. */
    record Pending(String id, Mono<McpSchema.JSONRPCResponse> response) {
    }
}
