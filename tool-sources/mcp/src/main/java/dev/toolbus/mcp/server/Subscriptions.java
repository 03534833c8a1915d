package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.internal.Wire;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * The {@code subscriptions/listen} streams of 2026-07-28 clients. A stream starts with
 * {@code notifications/subscriptions/acknowledged} naming what it will carry (toolbus honours
 * {@code toolsListChanged} and the Tasks extension's {@code taskIds}; prompts and resources never
 * change here, so their flags are not acknowledged), then carries only those notifications, each with
 * the listen request's id as {@code _meta.subscriptionId}. The client ends it (closing the stream,
 * or {@code notifications/cancelled} on stdio); the server ends it on shutdown with the listen
 * request's result. Bounded: at most {@link #MAX_QUEUED} notifications wait for a slow client per
 * stream (a list change repeats the one before it; a task's state is also read with
 * {@code tasks/get}), {@link #MAX_PER_PRINCIPAL} streams per client, {@link #MAX_STREAMS} in all.
 */
final class Subscriptions {

    static final int MAX_QUEUED = 16;
    static final int MAX_PER_PRINCIPAL = 1024;
    static final int MAX_STREAMS = 10_000;

    private final Supplier<ObjectNode> serverInfo;
    private final Set<Sub> subs = ConcurrentHashMap.newKeySet();

    Subscriptions(Supplier<ObjectNode> serverInfo) {
        this.serverInfo = serverInfo;
    }

    private record Sub(JsonNode id, String principal, boolean tools, Set<String> taskIds, Sinks.Many<ObjectNode> sink) {
    }

    /** Opens a stream for a {@code subscriptions/listen} request. */
    Flux<ObjectNode> listen(ModernRequest req) {
        JsonNode n = req.params().get("notifications");
        if (n == null || !n.isObject()) {
            throw ModernError.invalidParams("subscriptions/listen needs params.notifications, the filter of what to send");
        }
        boolean tools = n.path("toolsListChanged").asBoolean(false);
        Set<String> taskIds = new LinkedHashSet<>();
        JsonNode ids = n.get("taskIds");
        if (ids != null && !ids.isNull()) {
            if (!ids.isArray()) {
                throw ModernError.invalidParams("notifications.taskIds must be an array of task ids");
            }
            ids.forEach(i -> {
                if (i.isTextual() && taskIds.size() < 256) {
                    taskIds.add(i.textValue());
                }
            });
            if (!taskIds.isEmpty() && !req.meta().caps().tasks()) {
                throw ModernError.missingCapability("extension " + Wire.TASKS_EXTENSION, ClientCaps.required("tasks"));
            }
        }
        if (subs.size() >= MAX_STREAMS
                || subs.stream().filter(s -> s.principal().equals(req.principal())).count() >= MAX_PER_PRINCIPAL) {
            throw ModernError.internal("too many subscriptions/listen streams are open");
        }
        Sinks.Many<ObjectNode> sink = Sinks.many().unicast().onBackpressureBuffer(
                Queues.<ObjectNode>get(MAX_QUEUED + 2).get());
        Sub sub = new Sub(req.id(), req.principal(), tools, Set.copyOf(taskIds), sink);
        ObjectNode ack = Wire.object();
        ack.set("_meta", subscriptionMeta(req.id()));
        ObjectNode accepted = ack.putObject("notifications");
        if (tools) {
            accepted.put("toolsListChanged", true);
        }
        if (!taskIds.isEmpty()) {
            ArrayNode a = accepted.putArray("taskIds");
            taskIds.forEach(a::add);
        }
        sink.tryEmitNext(Wire.notification("notifications/subscriptions/acknowledged", ack));
        subs.add(sub);
        return sink.asFlux().doFinally(s -> subs.remove(sub));
    }

    private static ObjectNode subscriptionMeta(JsonNode id) {
        ObjectNode meta = Wire.object();
        meta.set(Wire.META_SUBSCRIPTION_ID, id);
        return meta;
    }

    /** The tool list changed: every stream that asked for it is told. */
    void toolsChanged() {
        for (Sub s : subs) {
            if (s.tools()) {
                ObjectNode params = Wire.object();
                params.set("_meta", subscriptionMeta(s.id()));
                s.sink().tryEmitNext(Wire.notification("notifications/tools/list_changed", params));
            }
        }
    }

    /** A task changed: the streams of its principal that named it get its detailed state. */
    void taskChanged(McpTask task, ObjectNode detailed) {
        if (task.legacy()) {
            return;
        }
        for (Sub s : subs) {
            if (s.principal().equals(task.principal()) && s.taskIds().contains(task.taskId())) {
                ObjectNode params = detailed.deepCopy();
                params.set("_meta", subscriptionMeta(s.id()));
                s.sink().tryEmitNext(Wire.notification("notifications/tasks", params));
            }
        }
    }

    /** Ends every stream with its listen request's result (the server stops). */
    void closeAll() {
        for (Sub s : subs) {
            ObjectNode result = Wire.object().put(Wire.RESULT_TYPE, Wire.COMPLETE);
            ObjectNode meta = subscriptionMeta(s.id());
            meta.set(Wire.META_SERVER_INFO, serverInfo.get());
            result.set("_meta", meta);
            s.sink().tryEmitNext(Wire.response(s.id(), result));
            s.sink().tryEmitComplete();
        }
    }

    /** Open streams (tests). */
    int open() {
        return subs.size();
    }
}
