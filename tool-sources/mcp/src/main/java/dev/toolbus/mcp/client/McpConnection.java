package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.McpCallException;
import dev.toolbus.mcp.McpResults;
import dev.toolbus.mcp.internal.Wire;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolResult;
import io.modelcontextprotocol.client.McpAsyncClient;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.transport.HttpClientSseClientTransport;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.context.Context;

/**
 * One external MCP server: a client session that is (re)established on demand.
 *
 * <p>A session lives until its server dies (the stdio child exits, or an HTTP request fails below the
 * MCP layer). Calls in flight on a dead session fail at once; the next call starts a new session,
 * after a backoff that doubles with each consecutive failure. A call whose subscription is disposed
 * (a cancel, or the executor's timeout) sends {@code notifications/cancelled} for its request. The
 * server's progress notifications and questions reach the call's {@link ToolContext}.
 */
final class McpConnection {

    private static final Logger log = LoggerFactory.getLogger(McpConnection.class);

    private final McpServerConfig config;
    private final McpToolSource.Settings settings;
    private final McpJsonMapper json;
    private final ObjectMapper mapper;
    private final AtomicReference<Session> current = new AtomicReference<>();
    private final AtomicInteger failures = new AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong callSeq = new java.util.concurrent.atomic.AtomicLong();
    private final List<Session> all = new ArrayList<>();
    private volatile long notBeforeNanos;
    private volatile boolean closed;
    /** The era the server speaks, once known (configured or probed). */
    private volatile McpServerConfig.Protocol era;
    private final AtomicReference<ModernSession> modern = new AtomicReference<>();
    private final List<ModernSession> allModern = new ArrayList<>();
    private volatile java.util.function.Consumer<List<McpSchema.Tool>> toolsChanged = list -> { };

    McpConnection(McpServerConfig config, McpToolSource.Settings settings, McpJsonMapper json, ObjectMapper mapper) {
        this.config = config;
        this.settings = settings;
        this.json = json;
        this.mapper = mapper;
    }

    McpServerConfig config() {
        return config;
    }

    /** Told the server's new tool list after its {@code notifications/tools/list_changed} (2025-11-25 era). */
    void onToolsChanged(java.util.function.Consumer<List<McpSchema.Tool>> consumer) {
        this.toolsChanged = java.util.Objects.requireNonNull(consumer, "consumer");
    }

    /** Lists every tool of the server (following pagination). */
    Mono<List<McpSchema.Tool>> listTools() {
        return era().flatMap(e -> e == McpServerConfig.Protocol.MODERN
                ? modernSession().flatMap(m -> watchModern(m, m.listTools()))
                : session().flatMap(s -> page(s, null, new ArrayList<>())));
    }

    /** The era the server speaks: configured, or discovered once ({@link EraProbe}) and kept. */
    private Mono<McpServerConfig.Protocol> era() {
        McpServerConfig.Protocol e = era;
        if (e != null) {
            return Mono.just(e);
        }
        if (config.protocol() != McpServerConfig.Protocol.AUTO) {
            if (config.protocol() == McpServerConfig.Protocol.MODERN && config.transport() == McpServerConfig.Transport.SSE) {
                return Mono.error(new McpCallException("MCP server '" + config.name() + "': the legacy sse transport"
                        + " cannot speak " + McpServerConfig.Protocol.MODERN.wireName()));
            }
            era = config.protocol();
            return Mono.just(era);
        }
        return EraProbe.modern(config, settings, json, mapper).map(m -> {
            era = m ? McpServerConfig.Protocol.MODERN : McpServerConfig.Protocol.LEGACY;
            return era;
        });
    }

    /** The era in use, or {@code null} before the first connect. */
    McpServerConfig.Protocol protocol() {
        return era;
    }

    private Mono<List<McpSchema.Tool>> page(Session s, String cursor, List<McpSchema.Tool> acc) {
        return watch(s, s.client.listTools(cursor)).flatMap(r -> {
            if (r.tools() != null) {
                acc.addAll(r.tools());
            }
            return r.nextCursor() == null || r.nextCursor().isEmpty() ? Mono.just(acc) : page(s, r.nextCursor(), acc);
        });
    }

    /**
     * Calls a tool. An {@code isError} result is an error result; a JSON-RPC error or a dead server is
     * a failed call ({@link McpCallException}). The request carries a progress token, so the server's
     * progress notifications for it become the call's {@code ToolContext.progress}; the server's
     * questions while it runs go to the call's {@code ToolContext.ask} (see {@link #elicit}). A tool
     * that a 2025-11-25 server offers as a task is called as one ({@link LegacyTaskCall}).
     */
    Mono<ToolResult> call(String tool, Map<String, Object> arguments, ToolContext context) {
        return era().flatMap(e -> e == McpServerConfig.Protocol.MODERN
                ? modernSession().flatMap(m -> watchModern(m, m.call(tool, arguments, context)))
                : legacyCall(tool, arguments, context));
    }

    private Mono<ToolResult> legacyCall(String tool, Map<String, Object> arguments, ToolContext context) {
        return session().flatMap(s -> {
            CancellingTransport.CallTag tag = new CancellingTransport.CallTag();
            long n = callSeq.incrementAndGet();
            String token = "toolbus-" + n;
            InFlight call = new InFlight(n, context);
            Map<String, Object> meta = new java.util.LinkedHashMap<>();
            meta.put("progressToken", token);
            dev.toolbus.protocol.TraceContext trace = context == null ? null : context.trace();
            if (trace != null) {
                // the call's trace goes on at the server (W3C Trace Context in _meta, as 2026-07-28 reserves it)
                meta.put("traceparent", trace.traceparent());
                if (trace.tracestate() != null) {
                    meta.put("tracestate", trace.tracestate());
                }
                if (trace.baggage() != null) {
                    meta.put("baggage", trace.baggage());
                }
            }
            if (s.transport.tasks().asTask(tool)) {
                AtomicReference<String> taskId = new AtomicReference<>();
                return watch(s, new LegacyTaskCall(config.name(), tool, s.transport, mapper, settings.requestTimeout(),
                        context, id -> {
                            taskId.set(id);
                            s.tasks.put(id, call);
                        }).run(arguments, meta))
                        .doOnSubscribe(x -> s.calls.put(token, call))
                        .doFinally(x -> {
                            s.calls.remove(token, call);
                            String id = taskId.get();
                            if (id != null) {
                                s.tasks.remove(id, call);
                            }
                        });
            }
            McpSchema.CallToolRequest request = McpSchema.CallToolRequest.builder(tool).arguments(arguments)
                    .meta(meta).build();
            return watch(s, s.client.callTool(request))
                    .contextWrite(Context.of(CancellingTransport.TAG_KEY, tag))
                    .doOnSubscribe(x -> s.calls.put(token, call))
                    .doFinally(x -> s.calls.remove(token, call))
                    .doOnCancel(() -> {
                        if (s.transport.cancel(tag, "cancelled by toolbus (cancel, timeout or abandoned call)")) {
                            log.debug("MCP server '{}': sent notifications/cancelled for {} ({})", config.name(),
                                    tag.requestId, tool);
                        }
                    })
                    .map(r -> McpResults.toToolResult(config.name(), tool, r, mapper));
        });
    }

    /** A server's {@code notifications/progress}: to the call whose token it names (else dropped). */
    private Mono<Void> progress(Session s, McpSchema.ProgressNotification n) {
        InFlight call = n.progressToken() == null ? null : s.calls.get(String.valueOf(n.progressToken()));
        if (call != null && call.context != null && n.progress() != null) {
            call.context.progress(n.progress(), n.total(), n.message())
                    .subscribe(null, e -> log.debug("MCP server '{}': progress not published: {}", config.name(), e.toString()));
        }
        return Mono.empty();
    }

    /**
     * A server's {@code elicitation/create}: MCP does not say which request a question belongs to, so
     * it goes to the call in flight on this session, the oldest when several are and all belong to one
     * conversation; when calls of several conversations are in flight (a question must never reach
     * the wrong user), or none is, the answer is {@code cancel}. A question of a 2025-11-25 task (its
     * {@code _meta} names the related task) goes to the call that follows that task, and is answered
     * {@code cancel} when none does. accept / decline map one to one; cancel and expiry are
     * {@code cancel}.
     */
    private Mono<McpSchema.ElicitResult> elicit(Session s, McpSchema.ElicitFormRequest request) {
        String task = relatedTask(request.meta());
        InFlight target;
        String why;
        if (task != null) {
            // a question of a task (2025-11-25 tasks): to the call that follows that task, or to nobody
            target = s.tasks.get(task);
            why = "no call of its task " + task + " is running";
        } else {
            List<InFlight> running = List.copyOf(s.calls.values());
            target = running.stream().min(java.util.Comparator.comparingLong(InFlight::seq)).orElse(null);
            boolean mixed = running.stream().map(InFlight::stream).distinct().count() > 1;
            why = target == null ? "no call of it is running" : "calls of several conversations are running";
            if (mixed) {
                target = null;
            }
        }
        if (target == null || target.context == null) {
            log.warn("MCP server '{}' asked \"{}\" but {}: answered cancel", config.name(), request.message(), why);
            return Mono.just(new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.CANCEL, null));
        }
        JsonNode schema = request.requestedSchema() == null ? null : mapper.valueToTree(request.requestedSchema());
        return target.context.ask(request.message(), schema).map(answer -> switch (answer.outcome()) {
            case ACCEPT -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, answer.content() == null
                    ? Map.of() : toMap(answer.content()));
            case DECLINE -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.DECLINE, null);
            case CANCEL, EXPIRED -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.CANCEL, null);
        }).onErrorResume(IllegalStateException.class, e -> {
            log.warn("MCP server '{}' asked \"{}\": {}; answered cancel", config.name(), request.message(), e.getMessage());
            return Mono.just(new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.CANCEL, null));
        });
    }

    /** The task id of a request's {@code _meta["io.modelcontextprotocol/related-task"]}, or {@code null}. */
    private static String relatedTask(Map<String, Object> meta) {
        Object related = meta == null ? null : meta.get(Wire.META_RELATED_TASK);
        Object id = related instanceof Map<?, ?> m ? m.get("taskId") : null;
        return id instanceof String t && !t.isEmpty() ? t : null;
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> toMap(JsonNode node) {
        return node.isObject() ? mapper.convertValue(node, Map.class) : Map.of("value", mapper.convertValue(node, Object.class));
    }

    /** Fails the operation when the session dies; a failure below MCP retires the session. */
    private <T> Mono<T> watch(Session s, Mono<T> op) {
        Mono<T> died = s.dead.asMono().then(Mono.error(() -> new McpCallException(
                "MCP server '" + config.name() + "' stopped during the call; the next call restarts it")));
        return Mono.firstWithSignal(op, died).onErrorMap(e -> {
            if (e instanceof McpCallException) {
                return e;
            }
            if (e instanceof McpError m) {
                return new McpCallException("MCP server '" + config.name() + "': " + m.getMessage(), m);
            }
            retire(s, e);
            return new McpCallException("MCP server '" + config.name() + "' failed: " + message(e), e);
        });
    }

    /** The messages of a failure's cause chain, each once, outermost first (at most four). */
    static String message(Throwable e) {
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (Throwable t = e; t != null && n < 4; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage() == null || t.getMessage().isBlank() ? t.getClass().getSimpleName() : t.getMessage();
            if (sb.indexOf(m) >= 0) {
                continue;
            }
            if (t.getCause() != null && t.getCause().getMessage() != null && m.contains(t.getCause().getMessage())
                    && !m.equals(t.getCause().getMessage())) {
                // this message already quotes its cause's: keep the outer one only
                if (sb.length() > 0) {
                    sb.append(": ");
                }
                sb.append(m);
                break;
            }
            if (sb.length() > 0) {
                sb.append(": ");
            }
            sb.append(m);
            n++;
        }
        return sb.toString();
    }

    /** The live session, starting one (after the backoff) when there is none. */
    private Mono<Session> session() {
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(new McpCallException("MCP tool source is closed"));
            }
            Session s = current.get();
            if (s != null) {
                return s.ready;
            }
            Session fresh = newSession();
            if (!current.compareAndSet(null, fresh)) {
                fresh.transport.close();
                return session();
            }
            synchronized (all) {
                all.add(fresh);
            }
            return fresh.ready;
        });
    }

    private Session newSession() {
        Session s = new Session();
        McpClientTransport raw = switch (config.transport()) {
            case STDIO -> new ProcessClientTransport(config, json, settings.maxLineBytes(), settings.closeGrace(),
                    settings.initTimeout(), settings.stderr(), () -> retire(s, null));
            case HTTP -> httpTransport();
            case SSE -> sseTransport();
        };
        s.transport = new CancellingTransport(raw, mapper);
        s.client = McpClient.async(s.transport)
                .clientInfo(new McpSchema.Implementation("toolbus", McpToolSource.VERSION))
                .requestTimeout(settings.requestTimeout())
                .initializationTimeout(settings.initTimeout())
                .jsonSchemaValidator(new DefaultJsonSchemaValidator(mapper))
                .capabilities(McpSchema.ClientCapabilities.builder().elicitation().build())
                .progressConsumer(n -> progress(s, n))
                .toolsChangeConsumer(list -> {
                    if (!closed) {
                        try {
                            toolsChanged.accept(list);
                        } catch (RuntimeException e) {
                            log.warn("MCP server '{}': its new tool list could not be applied: {}", config.name(),
                                    e.toString());
                        }
                    }
                    return Mono.empty();
                })
                .elicitation(r -> elicit(s, r))
                .build();
        long wait = notBeforeNanos - System.nanoTime();
        Mono<Void> delay = wait > 0 ? Mono.delay(Duration.ofNanos(wait)).then() : Mono.empty();
        s.ready = delay.then(Mono.defer(() -> s.client.initialize()))
                .doOnNext(init -> {
                    failures.set(0);
                    log.info("MCP server '{}' initialized: {} {} (protocol {})", config.name(),
                            init.serverInfo() == null ? "?" : init.serverInfo().name(),
                            init.serverInfo() == null ? "" : init.serverInfo().version(), init.protocolVersion());
                })
                .onErrorMap(e -> {
                    retire(s, e);
                    return e instanceof McpCallException ? e
                            : new McpCallException("MCP server '" + config.name() + "' could not be started: " + message(e), e);
                })
                .thenReturn(s)
                .cache();
        return s;
    }

    private McpClientTransport httpTransport() {
        URI uri = URI.create(config.url());
        String base = uri.getScheme() + "://" + uri.getRawAuthority();
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (uri.getRawQuery() != null) {
            path += "?" + uri.getRawQuery();
        }
        HttpRequest.Builder rb = HttpRequest.newBuilder();
        config.headers().forEach(rb::header);
        return HttpClientStreamableHttpTransport.builder(base).endpoint(path).jsonMapper(json).requestBuilder(rb)
                .connectTimeout(settings.connectTimeout()).build();
    }

    @SuppressWarnings("deprecation")
    private McpClientTransport sseTransport() {
        URI uri = URI.create(config.url());
        String base = uri.getScheme() + "://" + uri.getRawAuthority();
        HttpRequest.Builder rb = HttpRequest.newBuilder();
        config.headers().forEach(rb::header);
        return HttpClientSseClientTransport.builder(base).sseEndpoint(uri.getRawPath()).jsonMapper(json)
                .requestBuilder(rb).connectTimeout(settings.connectTimeout()).build();
    }

    /** Marks the session dead: fails its calls, schedules the backoff, closes it. */
    private void retire(Session s, Throwable cause) {
        if (!s.retired.compareAndSet(false, true)) {
            return;
        }
        current.compareAndSet(s, null);
        int n = failures.incrementAndGet();
        long backoff = Math.min(settings.maxBackoff().toNanos(),
                settings.minBackoff().toNanos() << Math.min(20, n - 1));
        notBeforeNanos = System.nanoTime() + backoff;
        if (!closed) {
            log.warn("MCP server '{}' session ended{}; the next call reconnects in at least {} ms", config.name(),
                    cause == null ? " (process exited)" : ": " + message(cause), Duration.ofNanos(backoff).toMillis());
        }
        s.dead.tryEmitEmpty();
        if (s.client != null) {
            s.client.closeGracefully().onErrorResume(e -> Mono.empty()).subscribe();
        }
    }

    /** The pid of the current stdio child, or -1. */
    long pid() {
        ModernSession m = modern.get();
        if (m != null) {
            return m.channel.pid();
        }
        Session s = current.get();
        return s != null && s.transport.delegate() instanceof ProcessClientTransport p ? p.pid() : -1;
    }

    // ---------------------------------------------------------------- 2026-07-28 servers

    /** The live 2026-07-28 session, starting one (its process, for stdio) after the backoff when there is none. */
    private Mono<ModernSession> modernSession() {
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(new McpCallException("MCP tool source is closed"));
            }
            ModernSession m = modern.get();
            if (m != null) {
                return m.ready;
            }
            ModernChannel channel = config.transport() == McpServerConfig.Transport.STDIO
                    ? new StdioChannel(config, json, mapper, settings.maxLineBytes(), settings.closeGrace(),
                            settings.initTimeout(), settings.stderr())
                    : new HttpChannel(config, mapper, settings.maxLineBytes(), settings.connectTimeout());
            ModernSession fresh = new ModernSession(config, channel, mapper);
            if (!modern.compareAndSet(null, fresh)) {
                return modernSession();
            }
            synchronized (allModern) {
                allModern.add(fresh);
            }
            long wait = notBeforeNanos - System.nanoTime();
            Mono<Void> delay = wait > 0 ? Mono.delay(Duration.ofNanos(wait)).then() : Mono.empty();
            Mono<Void> started = channel instanceof StdioChannel stdio ? stdio.start() : Mono.empty();
            channel.dead().subscribe(null, null, () -> retireModern(fresh, null));
            fresh.ready = delay.then(started).doOnSuccess(x -> {
                        failures.set(0);
                        listen(fresh, 0);
                    }).thenReturn(fresh)
                    .onErrorMap(e -> {
                        retireModern(fresh, e);
                        return new McpCallException("MCP server '" + config.name() + "' could not be started: "
                                + message(e), e);
                    })
                    .cache();
            return fresh.ready;
        });
    }

    /** Fails the operation when the channel dies; a failure below MCP retires the session. */
    private <T> Mono<T> watchModern(ModernSession m, Mono<T> op) {
        Mono<T> died = m.channel.dead().then(Mono.error(() -> new McpCallException(
                "MCP server '" + config.name() + "' stopped during the call; the next call restarts it")));
        return Mono.firstWithSignal(op, died).onErrorMap(e -> {
            if (e instanceof McpCallException) {
                return e;
            }
            retireModern(m, e);
            return new McpCallException("MCP server '" + config.name() + "' failed: " + message(e), e);
        });
    }

    /**
     * Keeps a {@code subscriptions/listen} for tool list changes open on a 2026-07-28 session while it
     * is the current one: each {@code notifications/tools/list_changed} re-lists the tools for
     * {@link #onToolsChanged}. A listen the server ends is opened again after a second, one that
     * fails after a backoff that doubles up to 30 s; a server that refuses it (an error response) is
     * not asked again.
     */
    private void listen(ModernSession m, int failed) {
        if (closed || modern.get() != m) {
            return;
        }
        ObjectNode params = Wire.object();
        params.putObject("notifications").put("toolsListChanged", true);
        java.util.concurrent.atomic.AtomicBoolean refused = new java.util.concurrent.atomic.AtomicBoolean();
        m.channel.exchange(m.request("subscriptions/listen", params, null, false))
                .doOnNext(msg -> {
                    if (Wire.isResponse(msg) && msg.has("error")) {
                        refused.set(true);
                        log.info("MCP server '{}' does not take subscriptions/listen ({}): its tool list is read once",
                                config.name(), msg.path("error").path("message").asText());
                    }
                })
                .filter(msg -> "notifications/tools/list_changed".equals(msg.path("method").asText()))
                .concatMap(x -> m.listTools().onErrorResume(e -> {
                    log.warn("MCP server '{}' changed its tools, but listing them failed: {}", config.name(), message(e));
                    return Mono.empty();
                }))
                .subscribe(list -> {
                    try {
                        toolsChanged.accept(list);
                    } catch (RuntimeException e) {
                        log.warn("MCP server '{}': its new tool list could not be applied: {}", config.name(), e.toString());
                    }
                }, e -> {
                    long ms = Math.min(30_000L, 1000L << Math.min(5, failed));
                    log.debug("MCP server '{}': the listen stream failed ({}); again in {} ms", config.name(),
                            message(e), ms);
                    Mono.delay(Duration.ofMillis(ms)).subscribe(x -> listen(m, failed + 1));
                }, () -> {
                    if (!refused.get()) {
                        Mono.delay(Duration.ofSeconds(1)).subscribe(x -> listen(m, 0));
                    }
                });
    }

    private void retireModern(ModernSession m, Throwable cause) {
        if (!modern.compareAndSet(m, null)) {
            return;
        }
        int n = failures.incrementAndGet();
        long backoff = Math.min(settings.maxBackoff().toNanos(), settings.minBackoff().toNanos() << Math.min(20, n - 1));
        notBeforeNanos = System.nanoTime() + backoff;
        if (!closed) {
            log.warn("MCP server '{}' ({}) session ended{}; the next call reconnects in at least {} ms", config.name(),
                    McpServerConfig.Protocol.MODERN.wireName(), cause == null ? " (process exited)" : ": " + message(cause),
                    Duration.ofNanos(backoff).toMillis());
        }
        m.channel.close().onErrorResume(e -> Mono.empty()).subscribe();
    }

    /** Ends every session this connection started and stops their processes. */
    Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            closed = true;
            List<Session> sessions;
            synchronized (all) {
                sessions = List.copyOf(all);
                all.clear();
            }
            current.set(null);
            List<ModernSession> modernSessions;
            synchronized (allModern) {
                modernSessions = List.copyOf(allModern);
                allModern.clear();
            }
            modern.set(null);
            Mono<Void> modernClosed = reactor.core.publisher.Flux.fromIterable(modernSessions)
                    .flatMap(m -> m.channel.close().onErrorResume(e -> Mono.empty())).then();
            return modernClosed.then(reactor.core.publisher.Flux.fromIterable(sessions)
                    .flatMap(s -> {
                        s.retired.set(true);
                        s.dead.tryEmitEmpty();
                        return s.client.closeGracefully()
                                .onErrorResume(e -> s.transport.closeGracefully().onErrorResume(x -> Mono.empty()));
                    })
                    .then());
        });
    }

    /** One client session and its transport. */
    private static final class Session {
        final Sinks.Empty<Void> dead = Sinks.empty();
        /** Calls in flight, by progress token; bounded by the executor's parallelism. */
        final Map<String, InFlight> calls = new java.util.concurrent.ConcurrentHashMap<>();
        /** Calls in flight that follow a task (2025-11-25), by task id; a subset of {@link #calls}. */
        final Map<String, InFlight> tasks = new java.util.concurrent.ConcurrentHashMap<>();
        final java.util.concurrent.atomic.AtomicBoolean retired = new java.util.concurrent.atomic.AtomicBoolean();
        volatile CancellingTransport transport;
        volatile McpAsyncClient client;
        volatile Mono<Session> ready;
    }

    /** One call in flight: its order and its context. */
    private record InFlight(long seq, ToolContext context) {
        String stream() {
            return context == null ? null : context.streamId();
        }
    }

    static BiConsumer<String, String> logStderr() {
        Logger stderrLog = LoggerFactory.getLogger("dev.toolbus.mcp.stderr");
        return (server, line) -> stderrLog.info("[{}] {}", server, line);
    }
}
