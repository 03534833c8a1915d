package dev.toolbus.mcp.server;

import dev.toolbus.mcp.McpCallException;
import dev.toolbus.tool.ToolContext;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Mono;

/**
 * Lets a tool reach the MCP client of its call: ask the client's model for a completion
 * ({@code sampling/createMessage}), ask for the client's roots ({@code roots/list}), and tell
 * beforehand what the client can do ({@link #available}, {@link #rootsAvailable},
 * {@link #elicitationAvailable}). Sampling works while
 * the tool runs under an {@link McpToolServer} that was given this instance, and the client declared
 * the {@code sampling} capability in {@code initialize}. The request travels with the tool's
 * {@code tools/call} (stdio: the output; HTTP: the call's SSE stream), as elicitation does.
 *
 * <pre>{@code
 * McpSampling sampling = McpSampling.create();
 * ToolSpec ask = new ToolSpec(definition, (args, ctx) -> sampling.createMessage(ctx,
 *         McpSchema.CreateMessageRequest.builder()
 *             .messages(List.of(new McpSchema.SamplingMessage(McpSchema.Role.USER,
 *                     new McpSchema.TextContent(args.node().path("prompt").asText()))))
 *             .maxTokens(100).build())
 *     .map(r -> ToolResult.text(((McpSchema.TextContent) r.content()).text())));
 * ToolExecutor executor = ToolExecutor.builder().tool(ask).build();
 * McpToolServer server = McpToolServer.builder(executor).sampling(sampling).build();
 * }</pre>
 *
 * <p>The instance knows the MCP calls running now on the servers that use it (each forgotten when its
 * call ends). Outside such a call (a tool run from the bus, where the bot owns the model) and for a
 * client without the capability, the Mono fails with {@link IllegalStateException}; a client's
 * JSON-RPC error fails it with {@link McpCallException}; no answer within the timeout fails it with
 * {@link java.util.concurrent.TimeoutException} and the client's request is cancelled, as it is when
 * the tool's call is cancelled or ends. The tool's failure becomes an ordinary error result.
 */
public final class McpSampling {

    /** The wait for the client's answer when none is given. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /** The MCP calls running now, by stream, turn and call id; each removed when its call ends. */
    private final Map<String, CallPeer> running = new ConcurrentHashMap<>();

    private McpSampling() {
    }

    /** A new instance that knows no call yet; give it to {@link McpToolServer.Builder#sampling}. */
    public static McpSampling create() {
        return new McpSampling();
    }

    /** Whether the tool of this context runs under an MCP client that can sample. */
    public boolean available(ToolContext ctx) {
        CallPeer live = peer(ctx);
        return live != null && live.canSample();
    }

    /** Whether the tool of this context runs under an MCP client that declared {@code roots}. */
    public boolean rootsAvailable(ToolContext ctx) {
        CallPeer live = peer(ctx);
        return live != null && live.canListRoots();
    }

    /**
     * Whether the tool of this context runs under an MCP client that can answer its questions
     * ({@code ToolContext.ask}); {@code url}: URL-mode questions. Without it a 2025 client's question
     * is answered cancel, and a 2026-07-28 client's request fails with -32021.
     */
    public boolean elicitationAvailable(ToolContext ctx, boolean url) {
        CallPeer live = peer(ctx);
        return live != null && live.canElicit(url);
    }

    private CallPeer peer(ToolContext ctx) {
        return running.get(key(ctx.streamId(), ctx.turnId(), ctx.toolCallId()));
    }

    /** {@link #createMessage(ToolContext, McpSchema.CreateMessageRequest, Duration)} with {@link #DEFAULT_TIMEOUT}. */
    public Mono<McpSchema.CreateMessageResult> createMessage(ToolContext ctx, McpSchema.CreateMessageRequest request) {
        return createMessage(ctx, request, DEFAULT_TIMEOUT);
    }

    /**
     * Sends {@code sampling/createMessage} to the MCP client of the tool's call.
     *
     * @param ctx the running tool's context
     * @param request the messages, {@code maxTokens} and preferences, passed on as they are
     * @param timeout how long to wait for the client's model
     * @return the client's answer; an error as described in the class comment
     */
    public Mono<McpSchema.CreateMessageResult> createMessage(ToolContext ctx, McpSchema.CreateMessageRequest request,
            Duration timeout) {
        return createMessage(ctx, null, request, timeout);
    }

    /**
     * {@link #createMessage(ToolContext, McpSchema.CreateMessageRequest, Duration)} naming the request:
     * a 2026-07-28 client gets it in an {@code input_required} result under {@code key}.
     *
     * @param key 1 to 64 of {@code A-Z a-z 0-9 _ . -}, or {@code null} for a generated one
     */
    public Mono<McpSchema.CreateMessageResult> createMessage(ToolContext ctx, String key,
            McpSchema.CreateMessageRequest request, Duration timeout) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(timeout, "timeout");
        return Mono.defer(() -> {
            CallPeer live = peer(ctx);
            if (live == null) {
                return Mono.error(new IllegalStateException("sampling needs a tool call that runs under toolbus's MCP"
                        + " server; tool '" + ctx.toolName() + "' runs outside one"));
            }
            return live.sample(key, request, timeout);
        });
    }

    /**
     * Asks the MCP client of the tool's call for its roots ({@code roots/list}), under the same rules
     * as sampling: the client must have declared {@code roots}.
     *
     * @param key the request's name in an {@code input_required} result, or {@code null}
     */
    public Mono<McpSchema.ListRootsResult> listRoots(ToolContext ctx, String key, Duration timeout) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(timeout, "timeout");
        return Mono.defer(() -> {
            CallPeer live = peer(ctx);
            if (live == null) {
                return Mono.error(new IllegalStateException("roots/list needs a tool call that runs under toolbus's"
                        + " MCP server; tool '" + ctx.toolName() + "' runs outside one"));
            }
            return live.listRoots(key, timeout);
        });
    }

    /**
     * Asks several things at once: the questions {@code asks} asks as it is built and subscribed
     * ({@code ToolContext.ask}, {@link #createMessage}, {@link #listRoots}, typically under one
     * {@code Mono.zip}) reach a 2026-07-28 client in one {@code input_required} result, however long
     * building them takes. (Questions asked apart from each other are gathered only within a short
     * window.) A 2025 client is asked each at once, as without this.
     *
     * @param ctx the running tool's context
     * @param asks builds the questions' joint answer; called once per subscription
     * @return what {@code asks} returns
     */
    public <T> Mono<T> together(ToolContext ctx, java.util.function.Supplier<Mono<T>> asks) {
        Objects.requireNonNull(ctx, "ctx");
        Objects.requireNonNull(asks, "asks");
        return Mono.create(sink -> {
            CallPeer live = peer(ctx);
            Runnable release = live == null ? () -> { } : live.hold();
            try {
                sink.onDispose(asks.get().contextWrite(sink.contextView())
                        .subscribe(sink::success, sink::error, sink::success));
            } catch (RuntimeException e) {
                sink.error(e);
            } finally {
                release.run();
            }
        });
    }

    /** Makes a call's client reachable by its tools; {@code false} when the ids are taken. */
    boolean register(String streamId, String turnId, String toolCallId, CallPeer live) {
        return running.putIfAbsent(key(streamId, turnId, toolCallId), live) == null;
    }

    void unregister(String streamId, String turnId, String toolCallId, CallPeer live) {
        running.remove(key(streamId, turnId, toolCallId), live);
    }

    /** The calls known now (tests). */
    int running() {
        return running.size();
    }

    private static String key(String streamId, String turnId, String toolCallId) {
        return streamId + '\n' + turnId + '\n' + toolCallId;
    }
}
