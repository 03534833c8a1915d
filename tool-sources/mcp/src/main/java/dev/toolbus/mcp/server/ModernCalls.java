package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.McpToolHints.TaskSupport;
import dev.toolbus.mcp.internal.Wire;
import dev.toolbus.protocol.InputRequestEvent;
import io.modelcontextprotocol.spec.McpSchema;
import dev.toolbus.protocol.TraceContext;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The calls of one {@link McpToolServer} that outlive a request: calls parked until the retry of
 * their {@code input_required} result (by the handle their {@code requestState} names), and tasks
 * (by task id). Serves {@code tools/call} and {@code tasks/get|update|cancel} of 2026-07-28 clients,
 * and the tasks of 2025-11-25 ones ({@link LegacyTasks}).
 */
final class ModernCalls {

    private static final Logger log = LoggerFactory.getLogger(ModernCalls.class);
    /** Questions asked within this of each other share one {@code input_required} result ... */
    static final Duration GATHER = Duration.ofMillis(50);
    /** ... unless the first of them waited this long already. */
    static final Duration GATHER_MAX = Duration.ofMillis(500);
    /** How long a parked call waits for its retry after its questions expired. */
    static final Duration PARK_GRACE = Duration.ofSeconds(5);
    private static final SecureRandom RANDOM = new SecureRandom();

    final ToolExecutor executor;
    final ObjectMapper mapper;
    private final ObjectMapper canonical;
    final RequestStateCodec codec;
    final Clock clock;
    final McpSampling sampling;
    final McpTaskStore tasks;
    final String streamId;
    final Duration taskAfter;
    final Duration taskTtl;
    final Duration pollInterval;
    final int maxParked;
    final Subscriptions subscriptions;
    private final Supplier<ObjectNode> serverInfo;
    /** The tool's task support, or {@code null} for a tool not served. */
    private final Function<String, TaskSupport> served;
    private final AtomicLong seq;
    /** Who each client is to the executor. */
    final CallerPrincipals callers;
    private final Map<String, ModernCall> parked = new ConcurrentHashMap<>();
    final Map<String, ModernCall> byTask = new ConcurrentHashMap<>();

    ModernCalls(ToolExecutor executor, ObjectMapper mapper, RequestStateCodec codec, Clock clock, McpSampling sampling,
                McpTaskStore tasks, String streamId, Duration taskAfter, Duration taskTtl, Duration pollInterval,
                int maxParked, Subscriptions subscriptions, Supplier<ObjectNode> serverInfo,
                Function<String, TaskSupport> served, AtomicLong seq, CallerPrincipals callers) {
        this.executor = executor;
        this.mapper = mapper;
        this.canonical = new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);
        this.codec = codec;
        this.clock = clock;
        this.sampling = sampling;
        this.tasks = tasks;
        this.streamId = streamId;
        this.taskAfter = taskAfter;
        this.taskTtl = taskTtl;
        this.pollInterval = pollInterval;
        this.maxParked = maxParked;
        this.subscriptions = subscriptions;
        this.serverInfo = serverInfo;
        this.served = served;
        this.seq = seq;
        this.callers = callers;
        warm(mapper);
    }

    /**
     * Jackson learns the SDK's sampling and roots types here rather than in a tool's first request to
     * its client, where the delay (up to a second on a cold JVM) would split questions asked together
     * into separate {@code input_required} results.
     */
    private static void warm(ObjectMapper mapper) {
        try {
            mapper.valueToTree(McpSchema.CreateMessageRequest.builder().messages(List.of(new McpSchema.SamplingMessage(
                    McpSchema.Role.USER, new McpSchema.TextContent("warm")))).maxTokens(1).build());
            ObjectNode answer = Wire.object().put("role", "assistant").put("model", "warm");
            answer.putObject("content").put("type", "text").put("text", "warm");
            mapper.convertValue(answer, McpSchema.CreateMessageResult.class);
            ObjectNode roots = Wire.object();
            roots.putArray("roots");
            mapper.convertValue(roots, McpSchema.ListRootsResult.class);
        } catch (IllegalArgumentException e) {
            log.debug("MCP sampling types could not be prepared: {}", e.toString());
        }
    }

    /** 128 random bits, Base64url: task ids and call handles. */
    static String randomId() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** The {@code _meta} of a result: the server's identity, and the call's trace context when there is one. */
    ObjectNode resultMeta(TraceContext trace) {
        ObjectNode meta = Wire.object();
        meta.set(Wire.META_SERVER_INFO, serverInfo.get());
        if (trace != null) {
            meta.put("traceparent", trace.traceparent());
            if (trace.tracestate() != null) {
                meta.put("tracestate", trace.tracestate());
            }
            if (trace.baggage() != null) {
                meta.put("baggage", trace.baggage());
            }
        }
        return meta;
    }

    // ---------------------------------------------------------------- tools/call

    /** {@code tools/call} of a 2026-07-28 client: a fresh call, or the retry of an {@code input_required} result. */
    Flux<ObjectNode> toolsCall(ModernRequest req) {
        ObjectNode p = req.params();
        JsonNode name = p.get("name");
        if (name == null || !name.isTextual()) {
            throw ModernError.invalidParams("tools/call needs the tool's name in params.name");
        }
        TaskSupport support = served.apply(name.textValue());
        if (support == null) {
            throw ModernError.invalidParams("Unknown tool: " + name.textValue());
        }
        JsonNode args = p.get("arguments");
        if (args != null && !args.isNull() && !args.isObject()) {
            throw ModernError.invalidParams("params.arguments must be an object");
        }
        ObjectNode arguments = args instanceof ObjectNode o ? o : mapper.createObjectNode();
        byte[] digest = digest(arguments);
        JsonNode state = p.get("requestState");
        JsonNode answers = p.get("inputResponses");
        if (answers != null && !answers.isNull() && !answers.isObject()) {
            throw ModernError.invalidParams("params.inputResponses must be an object of answers by key");
        }
        if (state != null && !state.isNull()) {
            if (!state.isTextual()) {
                throw ModernError.invalidParams("requestState rejected: malformed");
            }
            RequestStateCodec.State s = codec.decode(state.textValue(), req.principal(), "tools/call", name.textValue(),
                    digest);
            ModernCall call = parked.get(s.call());
            if (call == null) {
                throw ModernError.invalidParams("the call this requestState belongs to is no longer waiting for"
                        + " answers; call the tool again");
            }
            return call.retry(req, s, answers);
        }
        if (support == TaskSupport.REQUIRED && !req.meta().caps().tasks()) {
            throw ModernError.missingCapability("extension " + Wire.TASKS_EXTENSION + " (tool '" + name.textValue()
                    + "' runs only as a task)", ClientCaps.required("tasks"));
        }
        ModernCall call = new ModernCall(this, req.principal(), name.textValue(), digest, seq.incrementAndGet(),
                support, false);
        return call.start(req, arguments);
    }

    /**
     * A task of a 2025-11-25 client ({@code tools/call} with {@code task}): the call, already a task.
     *
     * @return the messages of the request; the first is its response, {@code {"task": …}}
     */
    Flux<ObjectNode> legacyTask(JsonNode id, String principal, String tool, ObjectNode arguments,
                                dev.toolbus.protocol.CallContext context, ClientCaps caps, TraceContext trace) {
        ModernCall call = new ModernCall(this, principal, tool, digest(arguments), seq.incrementAndGet(),
                TaskSupport.REQUIRED, true);
        RequestMeta meta = new RequestMeta(Wire.LEGACY.get(0), caps.withTasks(), null, null, null, trace);
        return call.start(new ModernRequest(id, "tools/call", mapper.createObjectNode(), meta, principal, context),
                arguments);
    }

    private byte[] digest(ObjectNode arguments) {
        try {
            Object plain = canonical.convertValue(arguments, Object.class);
            return RequestStateCodec.digest(canonical.writeValueAsString(plain).getBytes(StandardCharsets.UTF_8), 16);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot encode arguments", e);
        }
    }

    // ---------------------------------------------------------------- parking

    /** Keeps a call that waits for its retry; {@code false} when too many wait already. */
    boolean park(ModernCall call) {
        long now = clock.millis();
        parked.values().removeIf(c -> c.parkedUntilMs() < now);
        if (parked.size() >= maxParked) {
            return false;
        }
        parked.put(call.handle, call);
        return true;
    }

    void unpark(ModernCall call) {
        parked.remove(call.handle, call);
    }

    /** How many calls wait for a retry (tests). */
    int parked() {
        return parked.size();
    }

    // ---------------------------------------------------------------- tasks

    /** The {@code CreateTaskResult} of a 2026-07-28 task, or the {@code {"task": …}} of a 2025-11-25 one. */
    ObjectNode createTaskResult(McpTask t) {
        if (t.legacy()) {
            ObjectNode r = Wire.object();
            r.set("task", taskJson(t, false));
            return r;
        }
        ObjectNode r = taskJson(t, false);
        r.put(Wire.RESULT_TYPE, Wire.TASK);
        r.set("_meta", resultMeta(null));
        return r;
    }

    /**
     * A task on the wire: its {@code Task} fields, and with {@code detailed} what its status carries
     * (the questions of {@code input_required}, the result of {@code completed}, the error of
     * {@code failed}). 2025-11-25 names: {@code ttl}, {@code pollInterval}.
     */
    ObjectNode taskJson(McpTask t, boolean detailed) {
        ObjectNode o = Wire.object().put("taskId", t.taskId()).put("status", t.status().wireName());
        if (t.statusMessage() != null) {
            o.put("statusMessage", t.statusMessage());
        }
        o.put("createdAt", t.createdAt().toString());
        o.put("lastUpdatedAt", t.updatedAt().toString());
        String ttl = t.legacy() ? "ttl" : "ttlMs";
        if (t.ttl() == null) {
            o.putNull(ttl);
        } else {
            o.put(ttl, t.ttl().toMillis());
        }
        o.put(t.legacy() ? "pollInterval" : "pollIntervalMs", t.pollInterval().toMillis());
        if (detailed && !t.legacy()) {
            switch (t.status()) {
                case INPUT_REQUIRED -> o.set("inputRequests", t.inputRequests());
                case COMPLETED -> {
                    if (t.result() != null) {
                        o.set("result", t.result());
                    }
                }
                case FAILED -> {
                    if (t.error() != null) {
                        o.set("error", t.error());
                    }
                }
                default -> {
                }
            }
        }
        return o;
    }

    private String taskId(ModernRequest req) {
        JsonNode id = req.params().get("taskId");
        if (id == null || !id.isTextual() || id.textValue().isEmpty()) {
            throw ModernError.invalidParams(req.method() + " needs params.taskId");
        }
        return id.textValue();
    }

    private static void requireTasks(ModernRequest req) {
        if (!req.meta().caps().tasks()) {
            throw ModernError.missingCapability("extension " + Wire.TASKS_EXTENSION, ClientCaps.required("tasks"));
        }
    }

    private Mono<McpTask> known(String id, String principal) {
        return tasks.get(id, principal).switchIfEmpty(Mono.error(() -> ModernError.invalidParams(
                "unknown or expired task: " + id)));
    }

    /** {@code tasks/get}: the detailed task. */
    Mono<ObjectNode> tasksGet(ModernRequest req) {
        requireTasks(req);
        String id = taskId(req);
        return known(id, req.principal()).map(t -> {
            ObjectNode r = taskJson(t, true);
            r.put(Wire.RESULT_TYPE, Wire.COMPLETE);
            r.set("_meta", resultMeta(null));
            return r;
        });
    }

    /** {@code tasks/update}: answers to a task's questions. */
    Mono<ObjectNode> tasksUpdate(ModernRequest req) {
        requireTasks(req);
        String id = taskId(req);
        JsonNode answers = req.params().get("inputResponses");
        if (answers != null && !answers.isNull() && !answers.isObject()) {
            throw ModernError.invalidParams("params.inputResponses must be an object of answers by key");
        }
        return known(id, req.principal()).map(t -> {
            ModernCall call = byTask.get(id);
            if (call != null) {
                call.update(answers);
            }
            return complete();
        });
    }

    /** {@code tasks/cancel}: cancels the task's call (an ended task is left as it is). */
    Mono<ObjectNode> tasksCancel(ModernRequest req) {
        requireTasks(req);
        String id = taskId(req);
        return known(id, req.principal()).map(t -> {
            cancel(t, "cancelled by the MCP client (tasks/cancel)");
            return complete();
        });
    }

    /** Cancels a task's call if it still runs here. */
    void cancel(McpTask t, String reason) {
        ModernCall call = byTask.get(t.taskId());
        if (call != null && !t.status().terminal()) {
            call.cancelTask(reason);
        }
    }

    ObjectNode complete() {
        ObjectNode r = Wire.object().put(Wire.RESULT_TYPE, Wire.COMPLETE);
        r.set("_meta", resultMeta(null));
        return r;
    }

    /** The tasks of a principal that run here (for 2025-11-25 {@code tasks/list}). */
    List<McpTask> running(String principal) {
        List<McpTask> out = new ArrayList<>();
        for (Map.Entry<String, ModernCall> e : byTask.entrySet()) {
            McpTask t = tasks.get(e.getKey(), principal).block(Duration.ofSeconds(5));
            if (t != null) {
                out.add(t);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- 2025-11-25 tasks' questions

    /**
     * Sends a question of a 2025-11-25 task to its client on the open {@code tasks/result} stream,
     * and hands the answer back to the call.
     */
    void legacyAsk(ModernCall call, SessionOutbox outbox, String key, String method, ObjectNode request,
                   InputRequestEvent event, Sinks.One<JsonNode> answer, McpTask task) {
        ObjectNode params = request.path("params").deepCopy();
        ObjectNode meta = params.putObject("_meta");
        meta.putObject(Wire.META_RELATED_TASK).put("taskId", task.taskId());
        if ("elicitation/create".equals(method)) {
            params.remove("mode");
            if (event != null && event.urlMode()) {
                params.put("mode", "url");
                params.put("elicitationId", event.inputId());
            }
        }
        long left = event != null ? event.expiresAtMs() - clock.millis() : 60_000;
        Duration timeout = Duration.ofMillis(Math.max(1, left) + 1_000);
        Map<String, Object> plain = mapper.convertValue(params, LinkedHashMap.class);
        outbox.request(method, plain, timeout).subscribe(response -> {
            if (response.error() != null) {
                log.debug("MCP client refused {} of task {}: {}", method, task.taskId(), response.error().message());
                ObjectNode cancel = Wire.object().put("action", "cancel");
                if ("elicitation/create".equals(method)) {
                    call.legacyAnswered(key, cancel);
                } else if (answer != null) {
                    answer.tryEmitError(new dev.toolbus.mcp.McpCallException("the MCP client refused " + method
                            + ": " + response.error().message()));
                }
                return;
            }
            call.legacyAnswered(key, mapper.valueToTree(response.result()));
        }, e -> log.debug("MCP {} of task {} ended without an answer: {}", method, task.taskId(), e.toString()));
    }

    /** The instant now, on the server's clock. */
    Instant now() {
        return clock.instant();
    }
}
