package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.Hosts;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.McpResults;
import dev.toolbus.mcp.McpToolHints;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.Principal;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpStatelessAsyncServer;
import io.modelcontextprotocol.server.McpStatelessServerFeatures;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Serves the tools of a toolbus executor to MCP clients, over stdio or streamable HTTP.
 *
 * <p>The tools are those a configured session may see: {@code executor.listTools} in the MCP format
 * for the {@link Builder#context(CallContext) context} and {@link Builder#streamId(String) stream id}
 * given here, read when a transport starts. Each {@code tools/call} runs through the executor as a
 * turn of one call, so timeouts, the cache, the policy, metrics and the call log apply. The
 * turn's events become the MCP result: the tool text as text content, each image follow-up as image
 * content, {@code is_error} as {@code isError}, object {@code data} as structured content, and the
 * error code in {@code _meta["dev.toolbus/error_code"]}; audio, embedded resources and resource links
 * as their MCP content types. While a call runs, its {@code tool_progress} events become
 * {@code notifications/progress} (when the client sent a {@code progressToken}), its
 * {@code send_message} events log messages ({@code notifications/message}, level info), and its
 * {@code input_request} an {@code elicitation/create} to the client (when the client declared the
 * capability; else the question is answered cancel), whose answer goes back to the executor. A
 * tool may ask the client's model for a completion through the server's {@link McpSampling} (when the
 * client declared {@code sampling}). A
 * client's {@code notifications/cancelled} (or, over HTTP, a dropped connection) cancels the
 * executor's call.
 *
 * <pre>{@code
 * McpToolServer server = McpToolServer.builder(executor)
 *     .context(CallContext.builder().userId("u1").platform("mcp").permission("member").build())
 *     .build();
 * server.serveStdio(System.in, System.out).block();          // until stdin ends
 * McpHttpServer http = server.startHttp("127.0.0.1", 3001).block();
 * }</pre>
 *
 * <p><b>Ordering.</b> By default every call uses the one stream id, so calls run one after the other
 * in arrival order (as the turns of one conversation do) and share the stream's cache scope. With
 * {@link Builder#parallelCalls(boolean) parallelCalls(true)} each call gets its own stream id
 * ({@code <streamId>#<n>}) and calls run concurrently, at the price of a per-call cache scope for
 * tools that are not globally cached.
 *
 * <p>Both transports sit on the MCP Java SDK's stateless server ({@code McpStatelessAsyncServer}); the
 * messages a call sends the client travel with the call's request (stdio: the output; HTTP: an SSE
 * response to its POST), and the session state is what {@code initialize} declared, the log level
 * and the requests waiting for the client.
 *
 * <p><b>Two eras.</b> Both transports serve the legacy revisions (2025-11-25 and earlier: an
 * {@code initialize} handshake, on the SDK) and 2026-07-28 (no handshake: each request's
 * {@code _meta} names the version and the client's capabilities) side by side, request by request:
 * {@code server/discover}; {@code input_required} rounds for the questions of a call (its
 * {@code requestState} HMAC-protected and bound to the client, the tool, its arguments and an
 * expiry; the call runs once and waits, parked, for the retry); {@code subscriptions/listen}; caching
 * hints; and the Tasks extension for tools declared task-capable
 * ({@link dev.toolbus.mcp.McpToolHints#taskSupport(dev.toolbus.tool.ToolDefinition.Builder,
 * dev.toolbus.mcp.McpToolHints.TaskSupport)}), whose state is kept in an {@link McpTaskStore}; 2025-11-25
 * clients get the revision's tasks on the same calls and store. docs/mcp.md has the rules.
 *
 * <p><b>A changing tool list.</b> The server declares {@code tools.listChanged}. When the tools a
 * client may see change (a tool registered or removed, a plugin reloaded, or {@link #refreshTools()}
 * after a new policy), every running transport serves the new list and its clients get
 * {@code notifications/tools/list_changed}: on stdio on the output, over HTTP on each session's
 * standalone SSE stream ({@code GET} with the {@code Mcp-Session-Id}). Registry changes are noticed by
 * themselves ({@link ToolRegistry#onChange}), and a burst of them is told once, after
 * {@value #SETTLE_MS} ms of quiet; a policy change is not visible to the registry, so whoever swaps the
 * policy calls {@link #refreshTools()} ({@code toolbus mcp} does on a config reload).
 */
public final class McpToolServer {

    /** The server version sent in {@code initialize} unless {@link Builder#serverInfo} sets one. */
    public static final String VERSION = "0.1.0";

    private static final Logger log = LoggerFactory.getLogger(McpToolServer.class);

    private final ToolExecutor executor;
    private final CallContext context;
    private final String streamId;
    private final String name;
    private final String version;
    private final String instructions;
    private final boolean parallelCalls;
    private final int maxMessageBytes;
    private final int maxHttpConnections;
    private final java.time.Duration httpIdleTimeout;
    private final Set<String> allowedOrigins;
    private final String httpPath;
    private final AccessTokens tokens;
    private final ObjectMapper mapper;
    private final McpJsonMapper json;
    private final McpSampling sampling;
    private final java.time.Duration httpHeaderTimeout;
    private final java.time.Clock clock;
    private final int maxSessionsPerClient;
    private final int maxHttpSessions;
    private final Subscriptions subscriptions;
    private final ModernCalls modernCalls;
    private final CallerPrincipals callers = new CallerPrincipals();
    private final ModernDispatcher modern;
    private final LegacyTasks legacyTasks;
    /** Process-wide: turn and call ids stay unique across servers sharing an executor or an {@link McpSampling}. */
    private static final AtomicLong SEQ = new AtomicLong();
    /** How long registry changes must settle before the clients are told. */
    static final long SETTLE_MS = 100;

    /** The transports running now, each with its SDK server. */
    private final List<Served> served = new CopyOnWriteArrayList<>();
    /** The tools last served, by name. */
    private Map<String, McpSchema.Tool> current = Map.of();
    private final AtomicBoolean refreshQueued = new AtomicBoolean();
    private Disposable registryListener;
    private final AtomicLong listChanges = new AtomicLong();

    private record Served(McpStatelessAsyncServer server, SessionBroadcast sessions) {
    }

    private McpToolServer(Builder b) {
        this.executor = b.executor;
        this.context = b.context;
        this.streamId = b.streamId;
        this.name = b.name;
        this.version = b.version;
        this.instructions = b.instructions;
        this.parallelCalls = b.parallelCalls;
        this.maxMessageBytes = b.maxMessageBytes;
        this.maxHttpConnections = b.maxHttpConnections;
        this.httpIdleTimeout = b.httpIdleTimeout;
        this.allowedOrigins = Set.copyOf(b.allowedOrigins);
        this.httpPath = b.httpPath;
        this.tokens = b.tokens;
        this.mapper = b.objectMapper;
        this.json = new JacksonMcpJsonMapper(mapper);
        this.sampling = b.sampling == null ? McpSampling.create() : b.sampling;
        this.httpHeaderTimeout = b.httpHeaderTimeout;
        this.clock = b.clock;
        this.maxSessionsPerClient = b.maxSessionsPerClient;
        this.maxHttpSessions = b.maxHttpSessions;
        this.subscriptions = new Subscriptions(this::serverInfo);
        byte[] key = b.requestStateKey;
        if (key == null) {
            key = new byte[32];
            new java.security.SecureRandom().nextBytes(key);
        }
        McpTaskStore store = b.taskStore != null ? b.taskStore
                : McpTaskStore.inMemory(b.maxTasks, 64L << 20, b.clock);
        this.modernCalls = new ModernCalls(executor, mapper, new RequestStateCodec(key, b.clock), b.clock, sampling,
                store, streamId, b.taskAfter, b.taskTtl, b.taskPollInterval, b.maxParkedCalls, subscriptions,
                this::serverInfo, this::served, SEQ, callers);
        this.modern = new ModernDispatcher(modernCalls, subscriptions, this::toolsJson, this::serverInfo, instructions,
                b.toolsTtl.toMillis());
        this.legacyTasks = new LegacyTasks(modernCalls, mapper, this::served, context);
    }

    /** The server's identity in a result's {@code _meta}. */
    private ObjectNode serverInfo() {
        return mapper.createObjectNode().put("name", name).put("version", version);
    }

    /** Whether a tool is served, and how it may become a task: {@code null} when it is not served. */
    private McpToolHints.TaskSupport served(String toolName) {
        McpSchema.Tool t;
        synchronized (this) {
            t = current.get(toolName);
        }
        ToolRegistry.Entry entry = executor.registry().find(toolName);
        if (t == null) {
            // a registered tool the policy hides is called all the same: the executor answers its refusal
            return entry == null ? null : McpToolHints.TaskSupport.FORBIDDEN;
        }
        return entry == null ? McpToolHints.TaskSupport.FORBIDDEN : McpToolHints.taskSupport(entry.tool().definition());
    }

    /** The tools served now, as a 2026-07-28 {@code tools/list} gives them (in registration order). */
    private com.fasterxml.jackson.databind.node.ArrayNode toolsJson() {
        List<McpSchema.Tool> now;
        synchronized (this) {
            now = List.copyOf((served.isEmpty() ? initialTools() : current).values());
        }
        com.fasterxml.jackson.databind.node.ArrayNode a = mapper.createArrayNode();
        now.forEach(t -> a.add((JsonNode) mapper.valueToTree(t)));
        return a;
    }

    private Map<String, McpSchema.Tool> initialTools() {
        Map<String, McpSchema.Tool> m = new LinkedHashMap<>();
        tools().forEach(t -> m.put(t.name(), t));
        return m;
    }

    /** A tool's arguments that its client mirrors in headers ({@code x-mcp-header}): header name → argument. */
    private Map<String, String> paramHeaders(String toolName) {
        McpSchema.Tool t;
        synchronized (this) {
            t = current.get(toolName);
        }
        if (t == null || t.inputSchema() == null) {
            return Map.of();
        }
        JsonNode props = mapper.valueToTree(t.inputSchema()).path("properties");
        Map<String, String> out = new LinkedHashMap<>();
        props.fields().forEachRemaining(e -> {
            JsonNode h = e.getValue().get("x-mcp-header");
            if (h != null && h.isTextual() && !h.textValue().isBlank()) {
                out.put(h.textValue(), e.getKey());
            }
        });
        return out;
    }

    /**
     * Starts a builder.
     *
     * @param executor the executor that runs the calls
     */
    public static Builder builder(ToolExecutor executor) {
        return new Builder(executor);
    }

    /** The sampling instance through which this server's tools reach the client's model. */
    public McpSampling sampling() {
        return sampling;
    }

    /** The MCP tool definitions this server offers now. */
    public List<McpSchema.Tool> tools() {
        List<McpSchema.Tool> out = new ArrayList<>();
        for (JsonNode t : executor.listTools(new ListToolsEvent(streamId, "", context, ListToolsEvent.Format.MCP)).tools()) {
            String toolName = t.path("name").asText();
            try {
                @SuppressWarnings("unchecked")
                Map<String, Object> schema = mapper.convertValue(t.path("inputSchema"), LinkedHashMap.class);
                McpSchema.Tool.Builder tb = McpSchema.Tool.builder(toolName).description(t.path("description").asText(""))
                        .inputSchema(schema).annotations(annotations(toolName));
                if (t.has("outputSchema")) {
                    @SuppressWarnings("unchecked")
                    Map<String, Object> output = mapper.convertValue(t.path("outputSchema"), LinkedHashMap.class);
                    tb.outputSchema(output);
                }
                out.add(tb.build());
            } catch (IllegalArgumentException e) {
                log.warn("tool '{}' is not served over MCP: {}", toolName, e.getMessage());
            }
        }
        return out;
    }

    /** The hints an MCP client sees ({@link McpToolHints#annotations}); {@code null} for an unknown tool. */
    private McpSchema.ToolAnnotations annotations(String toolName) {
        ToolRegistry.Entry entry = executor.registry().find(toolName);
        return entry == null ? null : McpToolHints.annotations(entry.tool().definition());
    }

    /**
     * Serves MCP over a pair of streams (normally {@code System.in} and {@code System.out}): one
     * JSON-RPC message per line. Nothing else may write to the output stream.
     *
     * @return completes when the input ends (the client went away)
     */
    public Mono<Void> serveStdio(InputStream in, OutputStream out) {
        Objects.requireNonNull(in, "in");
        Objects.requireNonNull(out, "out");
        return Mono.defer(() -> {
            StdioServerTransport transport = new StdioServerTransport(in, out, json, maxMessageBytes);
            McpStatelessAsyncServer server = sdkServer(transport);
            transport.modern(modern, context, legacyTasks);
            Served s = started(server, transport);
            return transport.run().then(Mono.defer(server::closeGracefully)).onErrorResume(e -> Mono.empty())
                    .doFinally(sig -> stopped(s));
        });
    }

    /**
     * Serves MCP over streamable HTTP at {@code http://host:port/<path>} (path {@code /mcp} unless set).
     *
     * @param host the address to bind; anything but a loopback address needs {@link Builder#tokens tokens}
     * @param port the port, or 0 for a free one
     * @return the running endpoint; fails with {@link IllegalStateException} for a non-loopback host
     *     without a token
     */
    public Mono<McpHttpServer> startHttp(String host, int port) {
        Objects.requireNonNull(host, "host");
        return Mono.defer(() -> {
            Hosts.requireTokenOffLoopback("MCP", host, tokens);
            NettyHttpServerTransport transport = new NettyHttpServerTransport(json, mapper, httpPath, maxMessageBytes,
                    allowedOrigins, maxHttpSessions, maxSessionsPerClient, tokens, grant -> grant.admit(streamId, context),
                    maxHttpConnections, httpIdleTimeout, httpHeaderTimeout, clock);
            McpStatelessAsyncServer server = sdkServer(transport);
            transport.callers(callers);
            transport.modern(modern, this::paramHeaders, legacyTasks);
            transport.onClose(subscriptions::closeAll);
            return transport.bind(host, port).map(s -> {
                Served served = started(server, transport);
                s.onDispose(() -> stopped(served));
                return new McpHttpServer(s, httpPath, server);
            });
        });
    }

    /**
     * Re-reads the tools a client may see now and, when they differ from those served, serves the new
     * list on every running transport and sends its clients {@code notifications/tools/list_changed}.
     * Call it after swapping the policy; registry changes call it by themselves.
     *
     * @return whether the list changed (and the clients were told)
     */
    public synchronized boolean refreshTools() {
        Map<String, McpSchema.Tool> next = new LinkedHashMap<>();
        for (McpSchema.Tool t : tools()) {
            next.put(t.name(), t);
        }
        if (next.equals(current)) {
            return false;
        }
        Map<String, McpSchema.Tool> before = current;
        current = Collections.unmodifiableMap(next);
        for (Served s : served) {
            for (Map.Entry<String, McpSchema.Tool> e : before.entrySet()) {
                if (!e.getValue().equals(next.get(e.getKey()))) {
                    s.server().removeTool(e.getKey()).onErrorResume(x -> Mono.empty()).block();
                }
            }
            for (Map.Entry<String, McpSchema.Tool> e : next.entrySet()) {
                if (!e.getValue().equals(before.get(e.getKey()))) {
                    s.server().addTool(spec(e.getValue())).onErrorResume(x -> {
                        log.warn("tool '{}' is not served over MCP: {}", e.getKey(), x.getMessage());
                        return Mono.empty();
                    }).block();
                }
            }
            s.sessions().notifySessions(McpSchema.METHOD_NOTIFICATION_TOOLS_LIST_CHANGED);
        }
        subscriptions.toolsChanged();
        listChanges.incrementAndGet();
        log.info("MCP tool list changed ({} tools); {} transports told their clients", next.size(), served.size());
        return true;
    }

    /** How many times the served tool list changed (tests). */
    long listChanges() {
        return listChanges.get();
    }

    /** Queues one refresh after {@link #SETTLE_MS} ms; changes meanwhile join it. */
    private void refreshSoon() {
        if (refreshQueued.compareAndSet(false, true)) {
            Schedulers.boundedElastic().schedule(() -> {
                refreshQueued.set(false);
                try {
                    refreshTools();
                } catch (RuntimeException e) {
                    log.warn("refreshing the MCP tool list failed: {}", e.toString());
                }
            }, SETTLE_MS, TimeUnit.MILLISECONDS);
        }
    }

    private synchronized Served started(McpStatelessAsyncServer server, SessionBroadcast sessions) {
        Served s = new Served(server, sessions);
        served.add(s);
        if (registryListener == null) {
            registryListener = executor.registry().onChange(this::refreshSoon);
        }
        return s;
    }

    private synchronized void stopped(Served s) {
        served.remove(s);
        if (served.isEmpty() && registryListener != null) {
            registryListener.dispose();
            registryListener = null;
        }
    }

    /** Whether a name is a registered tool this server does not list (the policy hides it from the session). */
    private synchronized boolean hidden(String name) {
        return !current.containsKey(name) && executor.registry().find(name) != null;
    }

    private McpStatelessServerFeatures.AsyncToolSpecification spec(McpSchema.Tool tool) {
        return McpStatelessServerFeatures.AsyncToolSpecification.builder().tool(tool).callHandler(this::call).build();
    }

    private McpStatelessAsyncServer sdkServer(McpStatelessServerTransport transport) {
        List<McpStatelessServerFeatures.AsyncToolSpecification> specs = new ArrayList<>();
        List<McpSchema.Tool> now = tools();
        synchronized (this) {
            if (served.isEmpty()) {
                Map<String, McpSchema.Tool> m = new LinkedHashMap<>();
                now.forEach(t -> m.put(t.name(), t));
                current = Collections.unmodifiableMap(m);
            } else {
                // the transports already running serve this list; a new one starts with the same
                now = List.copyOf(current.values());
            }
        }
        for (McpSchema.Tool tool : now) {
            specs.add(spec(tool));
        }
        McpServer.StatelessAsyncSpecification spec = McpServer.async(new HiddenToolCalls(transport, this::hidden,
                        this::call, json))
                .serverInfo(name, version)
                .jsonMapper(json)
                .jsonSchemaValidator(new DefaultJsonSchemaValidator(mapper))
                .validateToolInputs(false) // the executor validates, so its metrics and call log see bad input too
                .strictToolNameValidation(false)
                .capabilities(McpSchema.ServerCapabilities.builder().tools(true).logging().build())
                .tools(specs);
        if (!instructions.isEmpty()) {
            spec.instructions(instructions);
        }
        return spec.build();
    }

    private Mono<McpSchema.CallToolResult> call(McpTransportContext ctx, McpSchema.CallToolRequest request) {
        long n = SEQ.incrementAndGet();
        String stream = parallelCalls ? streamId + "#" + n : streamId;
        ObjectNode args = request.arguments() == null ? mapper.createObjectNode() : mapper.valueToTree(request.arguments());
        return Mono.deferContextual(reactorContext -> {
            // over HTTP, the context the caller's token admitted (possibly clamped); else the configured one
            CallContext who = reactorContext.getOrDefault(NettyHttpServerTransport.CONTEXT_KEY, context);
            // the client the transport names: over HTTP its token's principal (its cut results, approvals and
            // questions are its own; "local" without tokens), on stdio the stdio caller
            Principal caller = callers.of(ctx != null && ctx.get(NettyHttpServerTransport.PRINCIPAL_KEY) instanceof String p
                    ? p : reactorContext.getOrDefault(NettyHttpServerTransport.PRINCIPAL_KEY, StdioServerTransport.PRINCIPAL));
            String turnId = "mcp-turn-" + n;
            String callId = "mcp_call_" + n;
            dev.toolbus.protocol.TraceContext trace = trace(request.meta());
            ToolCallsEvent turn = new ToolCallsEvent(stream, turnId, List.of(ToolCall.of(callId, request.name(), args)),
                    who, null, trace);
            LiveEvents live = new LiveEvents(executor, caller, SessionOutbox.of(ctx),
                    request.meta() == null ? null : request.meta().get("progressToken"), mapper);
            sampling.register(stream, turnId, callId, live);
            return executor.execute(turn, caller)
                    .filter(live::resultEvent)
                    .collectList()
                    .map(events -> withTrace(McpResults.toCallToolResult(events, mapper), events))
                    .doFinally(s -> {
                        sampling.unregister(stream, turnId, callId, live);
                        live.close();
                    });
        });
    }

    /** The W3C trace context of a request's {@code _meta} ({@code traceparent}, {@code tracestate}, {@code baggage}), or {@code null}. */
    static dev.toolbus.protocol.TraceContext trace(Map<String, Object> meta) {
        if (meta == null || !(meta.get("traceparent") instanceof String tp)) {
            return null;
        }
        dev.toolbus.protocol.TraceContext t = dev.toolbus.protocol.TraceContext.parse(tp,
                meta.get("tracestate") instanceof String ts ? ts : null);
        return t == null || !(meta.get("baggage") instanceof String b) ? t : t.withBaggage(b);
    }

    /** The result with the call's trace context in its {@code _meta}, when the call had one. */
    private static McpSchema.CallToolResult withTrace(McpSchema.CallToolResult r, List<dev.toolbus.protocol.OutboundEvent> events) {
        dev.toolbus.protocol.TraceContext trace = events.stream()
                .filter(dev.toolbus.protocol.ToolResultEvent.class::isInstance)
                .map(e -> ((dev.toolbus.protocol.ToolResultEvent) e).trace()).filter(Objects::nonNull).findFirst()
                .orElse(null);
        if (trace == null) {
            return r;
        }
        Map<String, Object> meta = new LinkedHashMap<>();
        if (r.meta() != null) {
            meta.putAll(r.meta());
        }
        meta.put("traceparent", trace.traceparent());
        if (trace.tracestate() != null) {
            meta.put("tracestate", trace.tracestate());
        }
        if (trace.baggage() != null) {
            meta.put("baggage", trace.baggage());
        }
        return new McpSchema.CallToolResult(r.content(), r.isError(), r.structuredContent(), meta);
    }

    /** Builder of {@link McpToolServer}. */
    public static final class Builder {
        private final ToolExecutor executor;
        private CallContext context = CallContext.EMPTY;
        private String streamId = "mcp";
        private String name = "toolbus";
        private String version = VERSION;
        private String instructions = "";
        private boolean parallelCalls;
        private int maxMessageBytes = 4 * 1024 * 1024;
        private int maxHttpConnections = 1024;
        private java.time.Duration httpIdleTimeout = java.time.Duration.ofSeconds(60);
        private final Set<String> allowedOrigins = new LinkedHashSet<>();
        private String httpPath = "/mcp";
        private AccessTokens tokens = AccessTokens.NONE;
        private ObjectMapper objectMapper = new ObjectMapper();
        private McpSampling sampling;
        private java.time.Duration httpHeaderTimeout = java.time.Duration.ofSeconds(10);
        private int maxSessionsPerClient = 64;
        private int maxHttpSessions = 10_000;
        private java.time.Duration taskAfter = java.time.Duration.ofSeconds(1);
        private java.time.Duration taskTtl = java.time.Duration.ofHours(1);
        private java.time.Duration taskPollInterval = java.time.Duration.ofSeconds(1);
        private java.time.Duration toolsTtl = java.time.Duration.ZERO;
        private byte[] requestStateKey;
        private int maxParkedCalls = 1024;
        private int maxTasks = 10_000;
        private McpTaskStore taskStore;
        private java.time.Clock clock = java.time.Clock.systemUTC();

        private Builder(ToolExecutor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
        }

        /** Who the MCP client is, for the policy and the tools' context (default: empty). */
        public Builder context(CallContext context) {
            this.context = Objects.requireNonNull(context, "context");
            return this;
        }

        /** The stream id of the calls (default {@code mcp}). */
        public Builder streamId(String streamId) {
            Objects.requireNonNull(streamId, "streamId");
            if (streamId.isBlank()) {
                throw new IllegalArgumentException("streamId must not be blank");
            }
            this.streamId = streamId;
            return this;
        }

        /** The name and version in {@code initialize} (default {@code toolbus}). */
        public Builder serverInfo(String name, String version) {
            this.name = Objects.requireNonNull(name, "name");
            this.version = Objects.requireNonNull(version, "version");
            return this;
        }

        /** Instructions for the client's model, sent in {@code initialize}. */
        public Builder instructions(String text) {
            this.instructions = Objects.requireNonNullElse(text, "");
            return this;
        }

        /** Runs calls concurrently, each as its own stream (default: one stream, in arrival order). */
        public Builder parallelCalls(boolean value) {
            this.parallelCalls = value;
            return this;
        }

        /** The largest message accepted, in bytes: a stdio line or an HTTP body (default 4 MiB). */
        public Builder maxMessageBytes(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxMessageBytes must be at least 1024");
            }
            this.maxMessageBytes = bytes;
            return this;
        }

        /**
         * Connections the HTTP endpoint keeps open at once (default 1024); one more is closed as soon as
         * it is accepted, so a flood of idle sockets cannot exhaust the process.
         */
        public Builder maxHttpConnections(int connections) {
            if (connections < 1) {
                throw new IllegalArgumentException("maxHttpConnections must be at least 1");
            }
            this.maxHttpConnections = connections;
            return this;
        }

        /**
         * How long an HTTP connection may wait for its next request, or between reads of one request,
         * before it is closed (default 60 s; an open SSE stream is not idle).
         */
        public Builder httpIdleTimeout(java.time.Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("httpIdleTimeout must be positive");
            }
            this.httpIdleTimeout = timeout;
            return this;
        }

        /**
         * How long an HTTP connection may take to send a request's headers, from its first byte (from
         * its accept, for the first request) before it is closed (default 10 s). With the eviction of
         * the oldest idle connection at {@link #maxHttpConnections}, sockets that dribble headers
         * cannot keep clients out.
         */
        public Builder httpHeaderTimeout(java.time.Duration timeout) {
            this.httpHeaderTimeout = positive(timeout, "httpHeaderTimeout");
            return this;
        }

        /**
         * Legacy (2025) HTTP sessions one client (one token) may hold (default 64); opening one more ends
         * its own oldest. Another client's session is never ended to make room.
         */
        public Builder maxSessionsPerClient(int sessions) {
            if (sessions < 1) {
                throw new IllegalArgumentException("maxSessionsPerClient must be at least 1");
            }
            this.maxSessionsPerClient = sessions;
            return this;
        }

        /**
         * Legacy (2025) HTTP sessions open at once (default 10,000); with all taken, a new
         * {@code initialize} is answered 503 (no client's session is ended to make room).
         */
        public Builder maxHttpSessions(int sessions) {
            if (sessions < 1) {
                throw new IllegalArgumentException("maxHttpSessions must be at least 1");
            }
            this.maxHttpSessions = sessions;
            return this;
        }

        /**
         * How long a call of a tool declared {@link McpToolHints.TaskSupport#OPTIONAL} may run before it
         * becomes a task, for a client that supports tasks (default 1 s; zero: at once).
         */
        public Builder taskAfter(java.time.Duration after) {
            if (after == null || after.isNegative()) {
                throw new IllegalArgumentException("taskAfter must not be negative");
            }
            this.taskAfter = after;
            return this;
        }

        /** How long a task is kept, counted from its creation (default 1 h); a task still running then is cancelled and fails. */
        public Builder taskTtl(java.time.Duration ttl) {
            this.taskTtl = positive(ttl, "taskTtl");
            return this;
        }

        /** The poll interval suggested to task clients (default 1 s). */
        public Builder taskPollInterval(java.time.Duration interval) {
            this.taskPollInterval = positive(interval, "taskPollInterval");
            return this;
        }

        /** The {@code ttlMs} of a 2026-07-28 {@code tools/list} (default 0: the list follows reloads). */
        public Builder toolsTtl(java.time.Duration ttl) {
            if (ttl == null || ttl.isNegative()) {
                throw new IllegalArgumentException("toolsTtl must not be negative");
            }
            this.toolsTtl = ttl;
            return this;
        }

        /**
         * The key of the {@code requestState} HMAC (at least 32 bytes; default: random per process, so a
         * restart invalidates the states handed out, as it ends the calls they name).
         */
        public Builder requestStateKey(byte[] key) {
            if (key == null || key.length < 32) {
                throw new IllegalArgumentException("requestStateKey needs at least 32 bytes");
            }
            this.requestStateKey = key.clone();
            return this;
        }

        /** Calls that may wait for the retry of their {@code input_required} result at once (default 1024). */
        public Builder maxParkedCalls(int calls) {
            if (calls < 1) {
                throw new IllegalArgumentException("maxParkedCalls must be at least 1");
            }
            this.maxParkedCalls = calls;
            return this;
        }

        /** Tasks kept at once by the default in-memory store (default 10,000, and 64 MiB of task state in all). */
        public Builder maxTasks(int tasks) {
            if (tasks < 1) {
                throw new IllegalArgumentException("maxTasks must be at least 1");
            }
            this.maxTasks = tasks;
            return this;
        }

        /** Where tasks are kept (default: in memory, {@link #maxTasks}). */
        public Builder taskStore(McpTaskStore store) {
            this.taskStore = Objects.requireNonNull(store, "store");
            return this;
        }

        /**
         * The clock of task times, TTLs, {@code requestState} expiry and the HTTP clients' {@code initialize}
         * budgets (default: the system's, UTC).
         */
        public Builder clock(java.time.Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        private static java.time.Duration positive(java.time.Duration d, String what) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive");
            }
            return d;
        }

        /** An HTTP {@code Origin} to accept besides loopback ones ({@code *} for any). */
        public Builder allowOrigin(String origin) {
            this.allowedOrigins.add(Objects.requireNonNull(origin, "origin"));
            return this;
        }

        /**
         * The bearer tokens the HTTP endpoint accepts (default none: loopback only). Each token's scope
         * must admit this server's {@link #streamId stream id} and {@link #context context}: a token
         * that may not use them is answered 403; with {@code clamp}, a permission above the token's is
         * lowered for its calls.
         */
        public Builder tokens(AccessTokens tokens) {
            this.tokens = Objects.requireNonNull(tokens, "tokens");
            return this;
        }

        /** One bearer token with full scope ({@code null}: none); replaces {@link #tokens}. */
        public Builder token(String token) {
            this.tokens = AccessTokens.single(token);
            return this;
        }

        /** The HTTP endpoint path (default {@code /mcp}). */
        public Builder httpPath(String path) {
            Objects.requireNonNull(path, "path");
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("httpPath must start with /");
            }
            this.httpPath = path;
            return this;
        }

        /** The Jackson 2 mapper for MCP messages (default: a plain {@code new ObjectMapper()}). */
        public Builder objectMapper(ObjectMapper mapper) {
            this.objectMapper = Objects.requireNonNull(mapper, "mapper");
            return this;
        }

        /**
         * Where this server's calls are known to {@link McpSampling}, so that their tools can ask the
         * client's model (default: an instance of its own, {@link McpToolServer#sampling()}). Several
         * servers may share one.
         */
        public Builder sampling(McpSampling sampling) {
            this.sampling = Objects.requireNonNull(sampling, "sampling");
            return this;
        }

        /** The server; nothing starts until {@link #serveStdio} or {@link #startHttp}. */
        public McpToolServer build() {
            return new McpToolServer(this);
        }
    }
}
