package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * {@link ModernChannel} over a stdio server process ({@link ProcessClientTransport}: the process, its
 * lines, its exit and its stop). Answers are matched to requests by id, progress notifications by
 * their token (each request's token is its id), listen-stream notifications by their
 * {@code subscriptionId}; anything else (a log message, a request of the server, which 2026-07-28
 * servers never send) is dropped. A request whose Flux is cancelled gets {@code notifications/cancelled}.
 */
final class StdioChannel implements ModernChannel {

    private static final Logger log = LoggerFactory.getLogger(StdioChannel.class);
    /** Messages queued for one request while its subscriber is slow. */
    static final int MAX_QUEUED = 256;

    private final McpServerConfig config;
    private final ObjectMapper mapper;
    private final ProcessClientTransport process;
    private final Map<String, Sinks.Many<JsonNode>> open = new ConcurrentHashMap<>();
    private final Sinks.Empty<Void> dead = Sinks.empty();

    StdioChannel(McpServerConfig config, McpJsonMapper json, ObjectMapper mapper, int maxLineBytes, Duration closeGrace,
                 Duration startTimeout, BiConsumer<String, String> stderr) {
        this(config, json, mapper, maxLineBytes, closeGrace, startTimeout, stderr, "");
    }

    /** @param role what the process is for, in its log lines ({@code ""}: serving calls) */
    StdioChannel(McpServerConfig config, McpJsonMapper json, ObjectMapper mapper, int maxLineBytes, Duration closeGrace,
                 Duration startTimeout, BiConsumer<String, String> stderr, String role) {
        this.config = config;
        this.mapper = mapper;
        this.process = new ProcessClientTransport(config, json, maxLineBytes, closeGrace, startTimeout, stderr,
                this::exited, role);
    }

    /** Starts the process. */
    Mono<Void> start() {
        return process.connect(m -> m.doOnNext(this::received).then(Mono.<McpSchema.JSONRPCMessage>empty()));
    }

    private void exited() {
        dead.tryEmitEmpty();
        open.values().forEach(s -> s.tryEmitError(new dev.toolbus.mcp.McpCallException("MCP server '" + config.name()
                + "' stopped during the call; the next call restarts it")));
        open.clear();
    }

    private void received(McpSchema.JSONRPCMessage message) {
        JsonNode m = mapper.valueToTree(message);
        if (m instanceof ObjectNode o) {
            if (o.path("error").isNull()) {
                o.remove("error");
            }
            if (o.path("result").isNull() && o.has("error")) {
                o.remove("result");
            }
            if (o.path("params").isNull()) {
                o.remove("params");
            }
        }
        String key = null;
        if (message instanceof McpSchema.JSONRPCResponse r) {
            key = key(m.get("id"));
            Sinks.Many<JsonNode> sink = open.remove(key);
            if (sink != null) {
                sink.tryEmitNext(m);
                sink.tryEmitComplete();
            } else {
                log.debug("MCP server '{}': a response to no request of ours ({}); dropped", config.name(), r.id());
            }
            return;
        }
        if (message instanceof McpSchema.JSONRPCNotification n) {
            JsonNode params = m.path("params");
            if ("notifications/progress".equals(n.method())) {
                key = key(params.get("progressToken"));
            } else if (params.path("_meta").has(dev.toolbus.mcp.internal.Wire.META_SUBSCRIPTION_ID)) {
                key = key(params.path("_meta").get(dev.toolbus.mcp.internal.Wire.META_SUBSCRIPTION_ID));
            }
            Sinks.Many<JsonNode> sink = key == null ? null : open.get(key);
            if (sink != null) {
                sink.tryEmitNext(m);
            }
            return;
        }
        log.debug("MCP server '{}' sent a request on a 2026-07-28 connection; ignored", config.name());
    }

    private static String key(JsonNode id) {
        return id == null || id.isNull() ? null : id.isNumber() ? "n" + id.asLong() : "s" + id.asText();
    }

    @Override
    public Flux<JsonNode> exchange(ObjectNode request) {
        return Flux.defer(() -> {
            String key = key(request.get("id"));
            Sinks.Many<JsonNode> sink = Sinks.many().unicast().onBackpressureBuffer(Queues.<JsonNode>get(MAX_QUEUED).get());
            open.put(key, sink);
            return process.sendMessage(toMessage(request))
                    .thenMany(sink.asFlux())
                    .doOnCancel(() -> {
                        if (open.remove(key, sink)) {
                            Map<String, Object> params = new LinkedHashMap<>();
                            params.put("requestId", mapper.convertValue(request.get("id"), Object.class));
                            params.put("reason", "cancelled by toolbus");
                            process.sendMessage(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION,
                                    "notifications/cancelled", params)).subscribe(null, e -> { });
                        }
                    })
                    .doOnError(e -> open.remove(key, sink));
        });
    }

    private McpSchema.JSONRPCMessage toMessage(ObjectNode request) {
        return new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, request.path("method").asText(),
                mapper.convertValue(request.get("id"), Object.class),
                mapper.convertValue(request.get("params"), Object.class));
    }

    @Override
    public Mono<Void> dead() {
        return dead.asMono();
    }

    @Override
    public Mono<Void> close() {
        return process.closeGracefully().doFinally(s -> exited());
    }

    @Override
    public long pid() {
        return process.pid();
    }
}
