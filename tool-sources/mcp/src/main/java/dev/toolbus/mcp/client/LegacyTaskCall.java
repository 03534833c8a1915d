package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.McpCallException;
import dev.toolbus.mcp.McpResults;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One {@code tools/call} of a 2025-11-25 server made as a task of that revision (the server declares
 * {@code tasks.requests.tools.call} and the tool an {@code execution.taskSupport} of {@code optional}
 * or {@code required}), sent past the SDK through {@link CancellingTransport#request}.
 *
 * <p>The call carries {@code task: {ttl}} (the source's request timeout). A result without a
 * {@code task} is the tool's result (the server ran it as a plain call). Otherwise the task is
 * polled with {@code tasks/get} at its {@code pollInterval} (between {@link ModernSession#MIN_POLL}
 * and {@link ModernSession#MAX_POLL}), and its {@code notifications/tasks/status} are read as they come;
 * a new {@code statusMessage} is the call's progress. At
 * {@code input_required} or an end ({@code completed}, {@code failed}) {@code tasks/result} is asked,
 * once: the server delivers the task's questions on it ({@code elicitation/create} with the
 * related-task {@code _meta}, which the connection routes to this call's {@code ToolContext.ask}) and
 * answers it with the tool's result when the task ends. {@code cancelled} fails the call. The whole is
 * bounded by the request timeout (and by the call's own subscription: the executor's timeout, a
 * cancel, the turn's end); when it ends before the task, {@code tasks/cancel} is sent (not waited
 * for, at most 5 s), or {@code notifications/cancelled} when the task was not created yet.
 */
final class LegacyTaskCall {

    private static final Logger log = LoggerFactory.getLogger(LegacyTaskCall.class);

    private final String server;
    private final String tool;
    private final CancellingTransport transport;
    private final ObjectMapper mapper;
    private final Duration limit;
    private final ToolContext ctx;
    private final Consumer<String> created;

    /**
     * @param limit   the request timeout: the task's {@code ttl}, and the most the call waits for it
     * @param created told the task's id once the server created it (questions are routed by it)
     */
    LegacyTaskCall(String server, String tool, CancellingTransport transport, ObjectMapper mapper, Duration limit,
                   ToolContext ctx, Consumer<String> created) {
        this.server = server;
        this.tool = tool;
        this.transport = transport;
        this.mapper = mapper;
        this.limit = limit;
        this.ctx = ctx;
        this.created = created;
    }

    /** Calls the tool with {@code task}; the tool's result when the task ends. */
    Mono<ToolResult> run(Map<String, Object> arguments, Map<String, Object> meta) {
        ObjectNode params = mapper.createObjectNode().put("name", tool);
        params.set("arguments", mapper.valueToTree(arguments == null ? Map.of() : arguments));
        params.putObject("task").put("ttl", limit.toMillis());
        params.set("_meta", mapper.valueToTree(meta));
        CancellingTransport.CallTag tag = new CancellingTransport.CallTag();
        return send("tools/call", params, tag)
                .timeout(limit)
                .doOnCancel(() -> transport.cancel(tag, "cancelled by toolbus (cancel, timeout or abandoned call)"))
                .onErrorMap(TimeoutException.class, e -> new McpCallException("MCP server '" + server + "' did not answer "
                        + tool + " within " + limit.toMillis() + " ms"))
                .flatMap(r -> r.path("task").isObject() ? Mono.defer(() -> follow(r.get("task"))) : Mono.just(result(r)));
    }

    /** Follows the created task to its result (assembled when subscribed: it registers the task). */
    private Mono<ToolResult> follow(JsonNode task) {
        String taskId = task.path("taskId").asText("");
        if (taskId.isEmpty()) {
            return Mono.error(new McpCallException("MCP server '" + server + "' created a task of " + tool
                    + " without a taskId"));
        }
        created.accept(taskId);
        log.debug("MCP server '{}': {} runs as task {}", server, tool, taskId);
        AtomicReference<Duration> interval = new AtomicReference<>(interval(task));
        AtomicReference<String> lastMessage = new AtomicReference<>();
        AtomicLong steps = new AtomicLong();
        AtomicBoolean ended = new AtomicBoolean();
        AtomicReference<Disposable> resultRequest = new AtomicReference<>();
        Sinks.One<JsonNode> outcome = Sinks.one();
        ObjectNode id = mapper.createObjectNode().put("taskId", taskId);

        Runnable askResult = () -> {
            if (resultRequest.get() == null) {
                Disposable d = send("tasks/result", id, null).subscribe(outcome::tryEmitValue, outcome::tryEmitError);
                if (!resultRequest.compareAndSet(null, d)) {
                    d.dispose();
                }
            }
        };
        // one status (polled, or notified by notifications/tasks/status); true when it is an end
        java.util.function.Predicate<JsonNode> status = t -> {
            if (t.path("pollInterval").isNumber()) {
                interval.set(interval(t));
            }
            String message = t.path("statusMessage").asText(null);
            if (message != null && !message.equals(lastMessage.getAndSet(message)) && ctx != null) {
                ctx.progress(steps.incrementAndGet(), null, message)
                        .subscribe(null, e -> log.debug("progress not published: {}", e.toString()));
            }
            switch (t.path("status").asText("working")) {
                case "input_required":
                    askResult.run();
                    return false;
                case "completed", "failed":
                    ended.set(true);
                    askResult.run();
                    return true;
                case "cancelled":
                    ended.set(true);
                    outcome.tryEmitError(new McpCallException("MCP server '" + server + "' cancelled the task of " + tool
                            + (message == null ? "" : ": " + message)));
                    return true;
                default:
                    return false;
            }
        };
        Disposable notified = transport.followStatus(taskId, t -> status.test(t));
        // after an end the polling stops and the outcome (tasks/result, or the cancel) is waited for
        Mono<Void> poll = Mono.defer(() -> Mono.delay(interval.get()))
                .then(Mono.defer(() -> send("tasks/get", id, null).timeout(limit)))
                .flatMap(t -> status.test(t) ? Mono.<Void>never() : Mono.<Void>empty());
        Mono<Void> polling = Mono.defer(() -> status.test(task) ? Mono.<Void>never() : Mono.<Void>empty())
                .then(poll.repeat().then());
        return Mono.firstWithSignal(outcome.asMono(), polling.then(Mono.<JsonNode>never()))
                .doOnNext(x -> ended.set(true))
                .map(this::result)
                .doOnError(e -> {
                    if (!ended.get()) {
                        cancel(taskId);
                    }
                })
                .doOnCancel(() -> {
                    if (!ended.get()) {
                        cancel(taskId);
                    }
                })
                .doFinally(x -> {
                    notified.dispose();
                    Disposable d = resultRequest.getAndSet(Disposables.disposed());
                    if (d != null) {
                        d.dispose();
                    }
                })
                .timeout(limit)
                .onErrorMap(TimeoutException.class, e -> new McpCallException("MCP server '" + server + "': the task of "
                        + tool + " did not end within " + limit.toMillis() + " ms"));
    }

    /** A request past the SDK; its errors name the server. */
    private Mono<JsonNode> send(String method, JsonNode params, CancellingTransport.CallTag tag) {
        return transport.request(method, params, tag).onErrorMap(McpCallException.class, e ->
                new McpCallException("MCP server '" + server + "': " + method + " of " + tool + ": " + e.getMessage(), e));
    }

    private ToolResult result(JsonNode r) {
        McpSchema.CallToolResult result;
        try {
            result = mapper.convertValue(r, McpSchema.CallToolResult.class);
        } catch (IllegalArgumentException e) {
            throw new McpCallException("MCP server '" + server + "' answered " + tool + " with an invalid result: "
                    + e.getMessage(), e);
        }
        return McpResults.toToolResult(server, tool, result, mapper);
    }

    private static Duration interval(JsonNode task) {
        long ms = task.path("pollInterval").asLong(1000);
        return Duration.ofMillis(Math.max(ModernSession.MIN_POLL.toMillis(), Math.min(ModernSession.MAX_POLL.toMillis(), ms)));
    }

    /** {@code tasks/cancel}, not waited for (at most 5 s). */
    private void cancel(String taskId) {
        send("tasks/cancel", mapper.createObjectNode().put("taskId", taskId), null)
                .timeout(Duration.ofSeconds(5))
                .subscribe(r -> log.debug("MCP server '{}': task {} cancelled", server, taskId),
                        e -> log.debug("MCP server '{}': tasks/cancel of {} failed: {}", server, taskId, e.toString()));
    }
}
