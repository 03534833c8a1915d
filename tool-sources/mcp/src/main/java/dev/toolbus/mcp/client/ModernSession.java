package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.McpCallException;
import dev.toolbus.mcp.McpResults;
import dev.toolbus.mcp.internal.Wire;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.tool.InputQuestion;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * toolbus as a client of one 2026-07-28 MCP server, over a {@link ModernChannel}: every request
 * carries the {@code _meta} envelope (the version, toolbus's {@code clientInfo}, the capabilities
 * {@code elicitation} form and URL and the Tasks extension, the call's progress token and trace
 * context). A call's result is read by its {@code resultType}: {@code complete} is the result;
 * {@code input_required} asks each question through the call's {@link ToolContext#ask} (form or URL
 * mode) and retries with the answers and the exact {@code requestState}, at most
 * {@link #MAX_INPUT_ROUNDS} rounds; {@code task} is polled with {@code tasks/get} at the interval the
 * server suggests (between {@link #MIN_POLL} and {@link #MAX_POLL}) for as long as the call's
 * subscription lives (the executor's timeout and cancels end it, and then {@code tasks/cancel} is
 * sent): a new status message is the call's progress, a question is asked and answered with
 * {@code tasks/update}, and the end is the call's result.
 */
final class ModernSession {

    private static final Logger log = LoggerFactory.getLogger(ModernSession.class);
    static final int MAX_INPUT_ROUNDS = 8;
    static final Duration MIN_POLL = Duration.ofMillis(250);
    static final Duration MAX_POLL = Duration.ofSeconds(5);
    private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    private final McpServerConfig config;
    final ModernChannel channel;
    private final ObjectMapper mapper;
    private final AtomicLong ids = new AtomicLong();
    /** Completes with this session once its channel is up (set by the connection that owns it). */
    volatile Mono<ModernSession> ready;

    ModernSession(McpServerConfig config, ModernChannel channel, ObjectMapper mapper) {
        this.config = config;
        this.channel = channel;
        this.mapper = mapper;
    }

    /** The capabilities toolbus declares on every request. */
    static ObjectNode capabilities() {
        ObjectNode caps = Wire.object();
        ObjectNode e = caps.putObject("elicitation");
        e.putObject("form");
        e.putObject("url");
        caps.putObject("extensions").putObject(Wire.TASKS_EXTENSION);
        return caps;
    }

    /** A request with the {@code _meta} envelope; {@code trace} and {@code progress} may be {@code null}. */
    ObjectNode request(String method, ObjectNode params, TraceContext trace, boolean progress) {
        String id = "tb-" + ids.incrementAndGet();
        ObjectNode meta = params.putObject(Wire.META);
        meta.put(Wire.META_VERSION, Wire.MODERN);
        meta.putObject(Wire.META_CLIENT_INFO).put("name", "toolbus").put("version", McpToolSource.VERSION);
        meta.set(Wire.META_CAPABILITIES, capabilities());
        if (progress) {
            meta.put("progressToken", id);
        }
        if (trace != null) {
            meta.put("traceparent", trace.traceparent());
            if (trace.tracestate() != null) {
                meta.put("tracestate", trace.tracestate());
            }
            if (trace.baggage() != null) {
                meta.put("baggage", trace.baggage());
            }
        }
        return Wire.request(mapper.getNodeFactory().textNode(id), method, params);
    }

    /** Sends a request; its response's result, or an {@link McpCallException} for an error response. */
    private Mono<JsonNode> send(ObjectNode request, ToolContext ctx) {
        return channel.exchange(request)
                .doOnNext(m -> {
                    if (ctx != null && "notifications/progress".equals(m.path("method").asText())) {
                        JsonNode p = m.path("params");
                        if (p.path("progress").isNumber()) {
                            ctx.progress(p.path("progress").asDouble(), p.path("total").isNumber()
                                    ? p.path("total").asDouble() : null, p.path("message").asText(null))
                                    .subscribe(null, e -> log.debug("progress not published: {}", e.toString()));
                        }
                    }
                })
                .filter(Wire::isResponse).next()
                .switchIfEmpty(Mono.error(() -> new McpCallException("MCP server '" + config.name() + "' ended "
                        + request.path("method").asText() + " without a response")))
                .map(r -> {
                    if (r.has("error")) {
                        JsonNode e = r.get("error");
                        throw new McpCallException("MCP server '" + config.name() + "': " + e.path("message").asText()
                                + " (" + e.path("code").asInt() + ")");
                    }
                    return r.path("result");
                });
    }

    /** Every tool (following {@code nextCursor}). */
    Mono<List<McpSchema.Tool>> listTools() {
        return page(null, new ArrayList<>());
    }

    private Mono<List<McpSchema.Tool>> page(String cursor, List<McpSchema.Tool> acc) {
        ObjectNode params = Wire.object();
        if (cursor != null) {
            params.put("cursor", cursor);
        }
        return send(request("tools/list", params, null, false), null).flatMap(r -> {
            for (JsonNode t : r.path("tools")) {
                try {
                    acc.add(mapper.convertValue(t, McpSchema.Tool.class));
                } catch (IllegalArgumentException e) {
                    log.warn("MCP server '{}' listed a tool toolbus cannot read: {}", config.name(), e.getMessage());
                }
            }
            String next = r.path("nextCursor").asText("");
            return next.isEmpty() || acc.size() > 100_000 ? Mono.just(acc) : page(next, acc);
        });
    }

    /** A {@code tools/call}, its questions, its task; the tool's result. */
    Mono<ToolResult> call(String tool, Map<String, Object> arguments, ToolContext ctx) {
        return round(tool, arguments, ctx, null, null, 1);
    }

    private Mono<ToolResult> round(String tool, Map<String, Object> arguments, ToolContext ctx, JsonNode answers,
                                   String state, int round) {
        ObjectNode params = Wire.object().put("name", tool);
        params.set("arguments", mapper.valueToTree(arguments == null ? Map.of() : arguments));
        if (answers != null) {
            params.set("inputResponses", answers);
            params.put("requestState", state);
        }
        return send(request("tools/call", params, ctx == null ? null : ctx.trace(), true), ctx).flatMap(r -> {
            String type = r.path(Wire.RESULT_TYPE).asText(Wire.COMPLETE);
            switch (type) {
                case Wire.COMPLETE:
                    return Mono.just(result(tool, r));
                case Wire.INPUT_REQUIRED:
                    if (round >= MAX_INPUT_ROUNDS) {
                        return Mono.error(new McpCallException("MCP server '" + config.name() + "' asked more than "
                                + MAX_INPUT_ROUNDS + " rounds of questions for " + tool));
                    }
                    return answer(r.path("inputRequests"), ctx, Set.of()).flatMap(a -> round(tool, arguments, ctx, a,
                            r.path("requestState").isTextual() ? r.path("requestState").textValue() : null, round + 1));
                case Wire.TASK:
                    return task(tool, r, ctx);
                default:
                    return Mono.error(new McpCallException("MCP server '" + config.name() + "' answered " + tool
                            + " with an unknown resultType '" + type + "'"));
            }
        });
    }

    private ToolResult result(String tool, JsonNode r) {
        McpSchema.CallToolResult result;
        try {
            result = mapper.convertValue(r, McpSchema.CallToolResult.class);
        } catch (IllegalArgumentException e) {
            throw new McpCallException("MCP server '" + config.name() + "' answered " + tool + " with an invalid result: "
                    + e.getMessage(), e);
        }
        return McpResults.toToolResult(config.name(), tool, result, mapper);
    }

    /**
     * Asks the call's user each question of {@code requests} not in {@code done} (at once); the
     * answers by key. Sampling and roots requests are refused: toolbus does not declare them.
     */
    private Mono<ObjectNode> answer(JsonNode requests, ToolContext ctx, Set<String> done) {
        List<Mono<Map.Entry<String, JsonNode>>> asks = new ArrayList<>();
        var fields = requests.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> e = fields.next();
            if (done.contains(e.getKey())) {
                continue;
            }
            String method = e.getValue().path("method").asText();
            if (!"elicitation/create".equals(method)) {
                return Mono.error(new McpCallException("MCP server '" + config.name() + "' asked for " + method
                        + ", which toolbus does not offer (it declares elicitation only)"));
            }
            if (ctx == null) {
                return Mono.error(new McpCallException("MCP server '" + config.name() + "' asked a question outside a call"));
            }
            asks.add(ask(e.getKey(), e.getValue().path("params"), ctx).map(a -> Map.entry(e.getKey(), a)));
        }
        return Flux.merge(asks).collectList().map(list -> {
            ObjectNode out = Wire.object();
            list.forEach(x -> out.set(x.getKey(), x.getValue()));
            return out;
        });
    }

    /** One {@code elicitation/create} as the call's question ({@code ToolContext.ask}); the {@code ElicitResult}. */
    private Mono<JsonNode> ask(String key, JsonNode params, ToolContext ctx) {
        InputQuestion.Builder q = InputQuestion.builder(params.path("message").asText(""))
                .key(KEY.matcher(key).matches() ? key : null);
        if ("url".equals(params.path("mode").asText())) {
            q.url(params.path("url").asText());
        } else if (params.path("requestedSchema").isObject()) {
            q.schema(params.get("requestedSchema"));
        }
        return ctx.ask(q.build()).map(a -> {
            ObjectNode r = Wire.object();
            switch (a.outcome()) {
                case ACCEPT -> {
                    r.put("action", "accept");
                    if (a.content() != null && a.content().isObject()) {
                        r.set("content", a.content());
                    }
                }
                case DECLINE -> r.put("action", "decline");
                default -> r.put("action", "cancel");
            }
            return (JsonNode) r;
        }).onErrorResume(IllegalStateException.class, e -> {
            log.warn("MCP server '{}' asked \"{}\": {}; answered cancel", config.name(), params.path("message").asText(),
                    e.getMessage());
            return Mono.just(Wire.object().put("action", "cancel"));
        });
    }

    /**
     * Follows a task to its end: polls {@code tasks/get}, publishes new status messages as progress,
     * answers its questions, and cancels it when the call's subscription ends first.
     */
    private Mono<ToolResult> task(String tool, JsonNode created, ToolContext ctx) {
        String taskId = created.path("taskId").asText("");
        if (taskId.isEmpty()) {
            return Mono.error(new McpCallException("MCP server '" + config.name() + "' created a task without an id"));
        }
        AtomicReference<Duration> interval = new AtomicReference<>(poll(created));
        AtomicReference<String> lastMessage = new AtomicReference<>();
        Set<String> answered = new HashSet<>();
        AtomicLong steps = new AtomicLong();
        AtomicReference<Boolean> ended = new AtomicReference<>(false);
        Mono<ToolResult> once = Mono.defer(() -> Mono.delay(interval.get()))
                .then(Mono.defer(() -> send(request("tasks/get", Wire.object().put("taskId", taskId), null, false), null)))
                .flatMap(t -> {
                    interval.set(poll(t));
                    String message = t.path("statusMessage").asText(null);
                    if (message != null && !message.equals(lastMessage.getAndSet(message)) && ctx != null) {
                        ctx.progress(steps.incrementAndGet(), null, message).subscribe(null, e -> { });
                    }
                    switch (t.path("status").asText()) {
                        case "completed":
                            ended.set(true);
                            return Mono.just(result(tool, t.path("result")));
                        case "failed":
                            ended.set(true);
                            return Mono.error(new McpCallException("MCP server '" + config.name() + "': task of " + tool
                                    + " failed: " + t.path("error").path("message").asText("no reason given")));
                        case "cancelled":
                            ended.set(true);
                            return Mono.error(new McpCallException("MCP server '" + config.name() + "' cancelled the task"
                                    + " of " + tool));
                        case "input_required":
                            return answer(t.path("inputRequests"), ctx, answered).flatMap(a -> {
                                a.fieldNames().forEachRemaining(answered::add);
                                if (a.isEmpty()) {
                                    return Mono.<ToolResult>empty();
                                }
                                ObjectNode update = Wire.object().put("taskId", taskId);
                                update.set("inputResponses", a);
                                return send(request("tasks/update", update, null, false), null).then(Mono.<ToolResult>empty());
                            });
                        default:
                            return Mono.<ToolResult>empty();
                    }
                });
        return once.repeatWhenEmpty(Integer.MAX_VALUE, f -> f)
                .doOnCancel(() -> {
                    if (!ended.get()) {
                        cancel(taskId);
                    }
                });
    }

    private static Duration poll(JsonNode task) {
        long ms = task.path("pollIntervalMs").asLong(1000);
        return Duration.ofMillis(Math.max(MIN_POLL.toMillis(), Math.min(MAX_POLL.toMillis(), ms)));
    }

    /** {@code tasks/cancel}, not waited for (at most 5 s). */
    private void cancel(String taskId) {
        send(request("tasks/cancel", Wire.object().put("taskId", taskId), null, false), null)
                .timeout(Duration.ofSeconds(5))
                .subscribe(r -> log.debug("MCP server '{}': task {} cancelled", config.name(), taskId),
                        e -> log.debug("MCP server '{}': tasks/cancel of {} failed: {}", config.name(), taskId,
                                e.toString()));
    }
}
