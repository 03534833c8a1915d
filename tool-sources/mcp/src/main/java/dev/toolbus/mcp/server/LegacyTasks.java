package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.McpToolHints.TaskSupport;
import dev.toolbus.mcp.internal.Wire;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.TraceContext;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The tasks of 2025-11-25 clients (the revision's experimental tasks, which the official TypeScript
 * client 1.x drives with {@code callToolStream}), served in front of the SDK's handler on the same
 * calls and store as the Tasks extension: {@code initialize} declares
 * {@code tasks: {list, cancel, requests: {tools: {call}}}}, {@code tools/list} gives each tool its
 * {@code execution.taskSupport}, a {@code tools/call} with {@code task} is answered
 * {@code {"task": …}} at once and runs on, {@code tasks/get} and {@code tasks/cancel} answer the
 * task, {@code tasks/result} waits for its end (sending its questions to the client as
 * {@code elicitation/create} with the {@code related-task} {@code _meta} on its own stream) and
 * answers its result, and {@code tasks/list} the client's tasks running here.
 */
final class LegacyTasks {

    private static final Set<String> METHODS = Set.of("tasks/get", "tasks/result", "tasks/cancel", "tasks/list");

    private final ModernCalls calls;
    private final ObjectMapper mapper;
    private final Function<String, TaskSupport> served;
    private final CallContext context;

    LegacyTasks(ModernCalls calls, ObjectMapper mapper, Function<String, TaskSupport> served, CallContext context) {
        this.calls = calls;
        this.mapper = mapper;
        this.served = served;
        this.context = context;
    }

    /** Whether this serves the request rather than the SDK. */
    boolean handles(McpSchema.JSONRPCRequest r) {
        if (METHODS.contains(r.method())) {
            return true;
        }
        if (!McpSchema.METHOD_TOOLS_CALL.equals(r.method()) || !(r.params() instanceof Map<?, ?> p)) {
            return false;
        }
        TaskSupport s = p.get("name") instanceof String n ? served.apply(n) : null;
        return s == TaskSupport.REQUIRED || s == TaskSupport.OPTIONAL && p.get("task") instanceof Map<?, ?>;
    }

    Mono<McpSchema.JSONRPCResponse> handle(McpSchema.JSONRPCRequest r, String principal, SessionOutbox outbox) {
        ObjectNode params = r.params() == null ? mapper.createObjectNode() : mapper.valueToTree(r.params());
        return Mono.deferContextual(rc -> {
            CallContext who = rc.getOrDefault(NettyHttpServerTransport.CONTEXT_KEY, context);
            return switch (r.method()) {
                case "tools/call" -> call(r, params, principal, outbox, who);
                case "tasks/get" -> task(params, principal).map(t -> ok(r, calls.taskJson(t, false)));
                case "tasks/cancel" -> task(params, principal).flatMap(t -> {
                    // the call first: once cancelled it leaves the running ones at once
                    ModernCall c = calls.byTask.get(t.taskId());
                    calls.cancel(t, "cancelled by the MCP client (tasks/cancel)");
                    Mono<McpTask> end = c == null ? calls.tasks.get(t.taskId(), principal).defaultIfEmpty(t)
                            : c.ended().timeout(Duration.ofSeconds(5), Mono.just(t));
                    return end.map(x -> ok(r, calls.taskJson(x, false)));
                });
                case "tasks/result" -> task(params, principal).flatMap(t -> result(r, t, outbox));
                case "tasks/list" -> Mono.fromSupplier(() -> {
                    ObjectNode o = mapper.createObjectNode();
                    ArrayNode a = o.putArray("tasks");
                    calls.running(principal).forEach(t -> a.add(calls.taskJson(t, false)));
                    return ok(r, o);
                });
                default -> Mono.just(error(r, Wire.METHOD_NOT_FOUND, "Method not found: " + r.method()));
            };
        }).onErrorResume(ModernError.class, e -> Mono.just(error(r, e.code, e.getMessage())));
    }

    private Mono<McpSchema.JSONRPCResponse> call(McpSchema.JSONRPCRequest r, ObjectNode params, String principal,
                                                 SessionOutbox outbox, CallContext who) {
        String tool = params.path("name").asText();
        if (!params.path("task").isObject()) {
            return Mono.just(error(r, Wire.METHOD_NOT_FOUND, "tool '" + tool + "' runs only as a task: call it with"
                    + " params.task"));
        }
        JsonNode args = params.get("arguments");
        ObjectNode arguments = args instanceof ObjectNode o ? o : mapper.createObjectNode();
        JsonNode meta = params.path(Wire.META);
        TraceContext trace = meta.path("traceparent").isTextual() ? TraceContext.parse(meta.path("traceparent").asText(),
                meta.path("tracestate").isTextual() ? meta.path("tracestate").asText() : null) : null;
        ClientCaps caps = outbox.session().caps();
        return calls.legacyTask(mapper.valueToTree(r.id()), principal, tool, arguments, who, caps, trace).next()
                .map(first -> first.has("error") ? error(r, Wire.errorCode(first), first.path("error").path("message").asText())
                        : ok(r, (ObjectNode) first.get("result")));
    }

    private Mono<McpTask> task(ObjectNode params, String principal) {
        JsonNode id = params.get("taskId");
        if (id == null || !id.isTextual()) {
            return Mono.error(ModernError.invalidParams("params.taskId is missing"));
        }
        return calls.tasks.get(id.textValue(), principal)
                .switchIfEmpty(Mono.error(() -> ModernError.invalidParams("Failed to retrieve task: Task not found")));
    }

    /** Waits for the task's end (its questions go to the client meanwhile), then answers its result. */
    private Mono<McpSchema.JSONRPCResponse> result(McpSchema.JSONRPCRequest r, McpTask t, SessionOutbox outbox) {
        ModernCall c = calls.byTask.get(t.taskId());
        Mono<McpTask> end;
        if (t.status().terminal() || c == null) {
            end = Mono.just(t);
        } else {
            c.legacyOutbox(outbox);
            end = c.ended();
        }
        return end.map(x -> switch (x.status()) {
            case COMPLETED -> {
                ObjectNode result = x.result() == null ? mapper.createObjectNode() : x.result().deepCopy();
                ObjectNode m = result.has("_meta") && result.get("_meta").isObject() ? (ObjectNode) result.get("_meta")
                        : result.putObject("_meta");
                m.putObject(Wire.META_RELATED_TASK).put("taskId", x.taskId());
                yield ok(r, result);
            }
            case FAILED -> error(r, x.error() == null ? Wire.INTERNAL_ERROR : x.error().path("code").asInt(),
                    x.error() == null ? "the task failed" : x.error().path("message").asText());
            case CANCELLED -> error(r, Wire.INTERNAL_ERROR, "Task " + x.taskId() + " was cancelled");
            default -> error(r, Wire.INTERNAL_ERROR, "Task " + x.taskId() + " is no longer running here");
        });
    }

    /** The SDK's answers with the tasks additions: the capability in {@code initialize}, {@code execution} in {@code tools/list}. */
    McpSchema.JSONRPCResponse decorate(McpSchema.JSONRPCRequest r, McpSchema.JSONRPCResponse response) {
        if (response.result() == null) {
            return response;
        }
        if (McpSchema.METHOD_INITIALIZE.equals(r.method())) {
            ObjectNode result = mapper.valueToTree(response.result());
            ObjectNode tasks = ((ObjectNode) result.with("capabilities")).putObject("tasks");
            tasks.putObject("list");
            tasks.putObject("cancel");
            tasks.putObject("requests").putObject("tools").putObject("call");
            return new McpSchema.JSONRPCResponse(response.jsonrpc(), response.id(), mapper.convertValue(result, Map.class),
                    null);
        }
        if (McpSchema.METHOD_TOOLS_LIST.equals(r.method())) {
            ObjectNode result = mapper.valueToTree(response.result());
            boolean changed = false;
            for (JsonNode t : result.path("tools")) {
                TaskSupport s = served.apply(t.path("name").asText());
                if (s != null && s != TaskSupport.FORBIDDEN && t instanceof ObjectNode o) {
                    o.putObject("execution").put("taskSupport", s.wireName());
                    changed = true;
                }
            }
            return changed ? new McpSchema.JSONRPCResponse(response.jsonrpc(), response.id(),
                    mapper.convertValue(result, Map.class), null) : response;
        }
        return response;
    }

    private McpSchema.JSONRPCResponse ok(McpSchema.JSONRPCRequest r, ObjectNode result) {
        return new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, r.id(), mapper.convertValue(result, Map.class), null);
    }

    private static McpSchema.JSONRPCResponse error(McpSchema.JSONRPCRequest r, int code, String message) {
        return McpSchema.JSONRPCResponse.error(r.id(), new McpSchema.JSONRPCResponse.JSONRPCError(code, message, null));
    }
}
