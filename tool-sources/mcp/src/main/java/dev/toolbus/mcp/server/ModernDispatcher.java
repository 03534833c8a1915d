package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.internal.Wire;
import dev.toolbus.protocol.CallContext;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The 2026-07-28 methods, whatever the transport: {@code server/discover}, {@code tools/list},
 * {@code tools/call} (with {@code input_required} rounds and tasks), {@code subscriptions/listen},
 * the Tasks extension's {@code tasks/get|update|cancel}, and empty {@code prompts/list},
 * {@code resources/list} and {@code resources/templates/list} (toolbus serves tools only; the empty
 * lists keep the declared capabilities true). Every other method, the removed ones included
 * ({@code initialize}, {@code ping}, {@code logging/setLevel}, {@code tasks/result}, …), is -32601.
 * A request's {@code _meta} is checked after its method is known; every result carries
 * {@code resultType} and the server's identity in {@code _meta}; every error the request's id.
 */
final class ModernDispatcher {

    /** The methods served. */
    static final Set<String> METHODS = Set.of("server/discover", "tools/list", "tools/call", "subscriptions/listen",
            "tasks/get", "tasks/update", "tasks/cancel", "prompts/list", "prompts/get", "resources/list",
            "resources/read", "resources/templates/list");

    /** Every version served, modern first: the {@code supportedVersions} of discover and of -32022. */
    static final List<String> SUPPORTED = List.of(Wire.MODERN, Wire.LEGACY.get(0), Wire.LEGACY.get(1),
            Wire.LEGACY.get(2));

    private final ModernCalls calls;
    private final Subscriptions subscriptions;
    private final Supplier<ArrayNode> tools;
    private final Supplier<ObjectNode> serverInfo;
    private final String instructions;
    private final long toolsTtlMs;

    ModernDispatcher(ModernCalls calls, Subscriptions subscriptions, Supplier<ArrayNode> tools,
                     Supplier<ObjectNode> serverInfo, String instructions, long toolsTtlMs) {
        this.calls = calls;
        this.subscriptions = subscriptions;
        this.tools = tools;
        this.serverInfo = serverInfo;
        this.instructions = instructions;
        this.toolsTtlMs = toolsTtlMs;
    }

    /** Whether the method is served (an unknown one is -32601, HTTP 404, before anything else is checked). */
    static boolean knows(String method) {
        return METHODS.contains(method);
    }

    /**
     * Serves one request: the messages for the client, the response last (a listen stream has no
     * last message until it ends).
     */
    Flux<ObjectNode> request(JsonNode id, String method, JsonNode rawParams, String principal, CallContext context) {
        return Flux.defer(() -> {
            if (!knows(method)) {
                throw new ModernError(Wire.METHOD_NOT_FOUND, "Method not found: " + method);
            }
            if (rawParams != null && !rawParams.isNull() && !rawParams.isObject()) {
                throw ModernError.invalidParams("params must be an object");
            }
            ObjectNode params = rawParams instanceof ObjectNode o ? o : Wire.object();
            RequestMeta meta = RequestMeta.parse(params, SUPPORTED);
            ModernRequest req = new ModernRequest(id, method, params, meta, principal, context);
            return switch (method) {
                case "server/discover" -> one(id, discover());
                case "tools/list" -> one(id, list("tools", tools.get(), toolsTtlMs));
                case "prompts/list" -> one(id, list("prompts", Wire.object().arrayNode(), 3_600_000));
                case "resources/list" -> one(id, list("resources", Wire.object().arrayNode(), 3_600_000));
                case "resources/templates/list" -> one(id, list("resourceTemplates", Wire.object().arrayNode(), 3_600_000));
                case "prompts/get" -> throw ModernError.invalidParams("no such prompt: toolbus serves tools only");
                case "resources/read" -> {
                    var data = Wire.object();
                    data.set("uri", params.get("uri"));
                    throw new ModernError(Wire.INVALID_PARAMS, "Resource not found: toolbus serves tools only", data);
                }
                case "tools/call" -> calls.toolsCall(req);
                case "subscriptions/listen" -> subscriptions.listen(req);
                case "tasks/get" -> calls.tasksGet(req).map(r -> Wire.response(id, r)).flux();
                case "tasks/update" -> calls.tasksUpdate(req).map(r -> Wire.response(id, r)).flux();
                case "tasks/cancel" -> calls.tasksCancel(req).map(r -> Wire.response(id, r)).flux();
                default -> throw new ModernError(Wire.METHOD_NOT_FOUND, "Method not found: " + method);
            };
        }).onErrorResume(ModernError.class, e -> Flux.just(e.response(id)));
    }

    private static Flux<ObjectNode> one(JsonNode id, ObjectNode result) {
        return Mono.just(Wire.response(id, result)).flux();
    }

    private ObjectNode meta() {
        ObjectNode m = Wire.object();
        m.set(Wire.META_SERVER_INFO, serverInfo.get());
        return m;
    }

    /** {@code server/discover}: the versions, the capabilities, the instructions. */
    ObjectNode discover() {
        ObjectNode r = Wire.object();
        ArrayNode v = r.putArray("supportedVersions");
        SUPPORTED.forEach(v::add);
        ObjectNode caps = r.putObject("capabilities");
        caps.putObject("tools").put("listChanged", true);
        caps.putObject("prompts");
        caps.putObject("resources");
        caps.putObject("logging");
        caps.putObject("extensions").putObject(Wire.TASKS_EXTENSION);
        if (!instructions.isEmpty()) {
            r.put("instructions", instructions);
        }
        r.put("ttlMs", 0).put("cacheScope", "public");
        r.put(Wire.RESULT_TYPE, Wire.COMPLETE);
        r.set("_meta", meta());
        return r;
    }

    /** A list result with its caching hints ({@code private}: what a client may see depends on who it is). */
    private ObjectNode list(String field, ArrayNode items, long ttlMs) {
        ObjectNode r = Wire.object();
        r.set(field, items);
        r.put("ttlMs", ttlMs).put("cacheScope", "private");
        r.put(Wire.RESULT_TYPE, Wire.COMPLETE);
        r.set("_meta", meta());
        return r;
    }
}
