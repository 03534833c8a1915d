package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.mcp.McpCallException;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Wraps a client transport so that a {@code tools/call} can be cancelled on the server.
 *
 * <p>The MCP Java SDK neither sends {@code notifications/cancelled} nor tells its caller the JSON-RPC id
 * of a request. The SDK's session does pass the caller's Reactor context down to
 * {@link #sendMessage}, so a call subscribes with a {@link CallTag} in its context; this wrapper
 * records the request id in the tag as the request goes out, and {@link #cancel} sends the
 * notification for that id through the same transport (and so the same stdio pipe or HTTP session).
 *
 * <p>It also carries what the SDK cannot: the 2025-11-25 revision's tasks. {@link #request} sends a
 * request of toolbus's own (a {@code tools/call} with {@code task}, {@code tasks/get},
 * {@code tasks/result}, {@code tasks/cancel}) with an id of its own ({@value #RAW_PREFIX}n) and takes
 * its response off the inbound stream before the SDK's session sees it (a response to such an id that
 * nobody waits for any more is dropped); and it reads the {@code initialize} and {@code tools/list}
 * responses on their way to the SDK for what they say about tasks ({@link #tasks()}).
 */
final class CancellingTransport implements McpClientTransport {

    private static final Logger log = LoggerFactory.getLogger(CancellingTransport.class);

    /** The Reactor context key of a {@link CallTag}. */
    static final String TAG_KEY = CancellingTransport.class.getName() + ".tag";
    /** The id prefix of toolbus's own requests. */
    static final String RAW_PREFIX = "toolbus-raw-";
    /** The 2025-11-25 notification of a task's new status. */
    static final String TASK_STATUS = "notifications/tasks/status";
    /** Own requests waiting for their response, at most (more fail at once); also the most tasks followed. */
    static final int MAX_PENDING = 1024;
    /** SDK requests whose response is read on the way, at most (more are not read). */
    static final int MAX_WATCHED = 64;

    private final McpClientTransport delegate;
    private final ObjectMapper mapper;
    private final LegacyTaskSupport tasks = new LegacyTaskSupport();
    private final AtomicLong rawIds = new AtomicLong();
    private final Map<String, Sinks.One<McpSchema.JSONRPCResponse>> pending = new ConcurrentHashMap<>();
    private final Map<Object, Consumer<JsonNode>> watched = new ConcurrentHashMap<>();
    private final Map<String, Consumer<JsonNode>> taskStatus = new ConcurrentHashMap<>();

    CancellingTransport(McpClientTransport delegate, ObjectMapper mapper) {
        this.delegate = delegate;
        this.mapper = mapper;
    }

    /** What the server said about its tasks. */
    LegacyTaskSupport tasks() {
        return tasks;
    }

    McpClientTransport delegate() {
        return delegate;
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return delegate.connect(in -> in.flatMap(m -> {
            if (m instanceof McpSchema.JSONRPCNotification n && TASK_STATUS.equals(n.method())) {
                // the SDK has no handler for it: to the call that follows the task, else dropped
                JsonNode params = n.params() == null ? mapper.nullNode() : mapper.valueToTree(n.params());
                Consumer<JsonNode> follower = taskStatus.get(params.path("taskId").asText(""));
                if (follower != null) {
                    try {
                        follower.accept(params);
                    } catch (RuntimeException e) {
                        log.debug("a task status could not be handled: {}", e.toString());
                    }
                }
                return Mono.empty();
            }
            if (m instanceof McpSchema.JSONRPCResponse r && r.id() != null) {
                if (r.id() instanceof String id && id.startsWith(RAW_PREFIX)) {
                    Sinks.One<McpSchema.JSONRPCResponse> waiting = pending.remove(id);
                    if (waiting != null) {
                        waiting.tryEmitValue(r);
                    }
                    return Mono.empty();
                }
                Consumer<JsonNode> reader = watched.remove(r.id());
                if (reader != null && r.result() != null) {
                    try {
                        reader.accept(mapper.valueToTree(r.result()));
                    } catch (RuntimeException e) {
                        log.debug("a response could not be read for its task support: {}", e.toString());
                    }
                }
            }
            return handler.apply(Mono.just(m));
        }));
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
        delegate.setExceptionHandler(handler);
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        if (message instanceof McpSchema.JSONRPCRequest request && request.id() != null
                && watched.size() < MAX_WATCHED) {
            if (McpSchema.METHOD_INITIALIZE.equals(request.method())) {
                watched.put(request.id(), tasks::initialized);
            } else if (McpSchema.METHOD_TOOLS_LIST.equals(request.method())) {
                watched.put(request.id(), tasks::listed);
            }
        }
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

    /**
     * Sends a request the SDK cannot send, with an id of its own, and waits for its response (a
     * JSON-RPC error is an {@link McpCallException}); the tag, when given, gets the id. Unsubscribing
     * stops the wait (the server is not told: see {@link #cancel}).
     */
    Mono<JsonNode> request(String method, Object params, CallTag tag) {
        return Mono.defer(() -> {
            if (pending.size() >= MAX_PENDING) {
                return Mono.error(new McpCallException("too many MCP requests waiting (" + MAX_PENDING + ")"));
            }
            String id = RAW_PREFIX + rawIds.incrementAndGet();
            Sinks.One<McpSchema.JSONRPCResponse> response = Sinks.one();
            pending.put(id, response);
            if (tag != null) {
                tag.requestId = id;
            }
            return delegate.sendMessage(new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, method, id, params))
                    .then(response.asMono())
                    .doFinally(x -> pending.remove(id, response))
                    .map(r -> {
                        if (r.error() != null) {
                            throw new McpCallException(r.error().message() + " (" + r.error().code() + ")");
                        }
                        return r.result() == null ? mapper.nullNode() : (JsonNode) mapper.valueToTree(r.result());
                    });
        });
    }

    /**
     * Tells {@code follower} each {@value #TASK_STATUS} of the task (its params) until the returned
     * handle is disposed. When {@link #MAX_PENDING} tasks are followed already, or this one is, nothing is
     * told (the follower learns the status by polling only).
     */
    reactor.core.Disposable followStatus(String taskId, Consumer<JsonNode> follower) {
        if (taskStatus.size() >= MAX_PENDING || taskStatus.putIfAbsent(taskId, follower) != null) {
            return () -> { };
        }
        return () -> taskStatus.remove(taskId, follower);
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
