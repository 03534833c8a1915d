package dev.toolbus.plugins.stdio;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Risk;
import dev.toolbus.result.ForeignValues;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The NDJSON messages of the stdio plugin protocol: requests we write and answers we read. */
final class Wire {

    private static final Logger log = LoggerFactory.getLogger(Wire.class);
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private Wire() {
    }

    static ObjectNode request(long id, String method, ObjectNode params) {
        ObjectNode n = F.objectNode();
        n.put("id", id);
        n.put("method", method);
        if (params != null && !params.isEmpty()) {
            n.set("params", params);
        }
        return n;
    }

    static ObjectNode activateParams(String pluginId) {
        return F.objectNode().put("pluginId", pluginId);
    }

    /** {@code activate}'s params with the plugin's configuration, when the application gives one. */
    static ObjectNode activateParams(String pluginId, ObjectNode config, String version) {
        ObjectNode params = activateParams(pluginId);
        if (config != null) {
            params.set("config", config);
            params.put("configVersion", version);
        }
        return params;
    }

    /**
     * host → plugin: the configuration changed ({@code config} {@code null}: the application no longer
     * gives one; the plugin's own applies).
     */
    static ObjectNode configure(ObjectNode config, String version) {
        ObjectNode params = F.objectNode();
        if (config == null) {
            params.putNull("config");
        } else {
            params.set("config", config);
        }
        params.put("version", version);
        ObjectNode n = F.objectNode().put("method", "configure");
        n.set("params", params);
        return n;
    }

    /** {@code execute_tool} params: the tool, its arguments as one JSON string, and who is asking. */
    static ObjectNode executeParams(String toolName, String inputJson, ToolContext ctx) {
        ObjectNode p = F.objectNode().put("toolName", toolName).put("input", inputJson);
        if (ctx != null) {
            p.set("context", context(ctx));
        }
        return p;
    }

    /** The caller's context, camelCase, empty fields left out. */
    static ObjectNode context(ToolContext ctx) {
        ObjectNode c = F.objectNode();
        put(c, "streamId", ctx.streamId());
        put(c, "turnId", ctx.turnId());
        put(c, "toolCallId", ctx.toolCallId());
        put(c, "idempotencyKey", ctx.idempotencyKey());
        put(c, "userId", ctx.who().userId());
        put(c, "groupId", ctx.who().groupId());
        put(c, "platform", ctx.who().platform());
        put(c, "permission", ctx.who().permission());
        put(c, "channel", ctx.who().channel());
        put(c, "provider", ctx.who().provider());
        put(c, "model", ctx.who().model());
        put(c, "agentId", ctx.who().agentId());
        c.put("attempt", ctx.attempt());
        if (ctx.trace() != null) {
            c.put("traceparent", ctx.trace().traceparent());
            put(c, "tracestate", ctx.trace().tracestate());
        }
        JsonNode message = ctx.message();
        if (message != null && !message.isNull() && !message.isMissingNode()) {
            c.set("message", message);
        }
        return c;
    }

    /** host → plugin: stop the call of request {@code id}. */
    static ObjectNode cancel(long id, String toolCallId, String reason) {
        ObjectNode params = F.objectNode().put("id", id);
        put(params, "toolCallId", toolCallId);
        put(params, "reason", reason);
        ObjectNode n = F.objectNode().put("method", "cancel");
        n.set("params", params);
        return n;
    }

    private static void put(ObjectNode n, String key, String value) {
        if (value != null && !value.isEmpty()) {
            n.put(key, value);
        }
    }

    /** The id a plugin echoed, as a number, or {@code null} when absent or not an id we could have sent. */
    static Long id(JsonNode message) {
        JsonNode id = message.get("id");
        if (id == null || id.isNull()) {
            return null;
        }
        if (id.canConvertToLong() && id.isIntegralNumber()) {
            return id.longValue();
        }
        if (id.isTextual()) {
            try {
                return Long.parseLong(id.textValue().strip());
            } catch (NumberFormatException e) {
                return -1L;
            }
        }
        return -1L;
    }

    /** Whether a line is a message from the plugin rather than an answer (it names a method and answers nothing). */
    static boolean isInbound(JsonNode message) {
        JsonNode m = message.get("method");
        return m != null && m.isTextual() && !m.textValue().isEmpty()
                && !hasValue(message, "result") && !hasValue(message, "error") && !message.has("tools");
    }

    /** The hook decision of an answer, under either spelling ({@code hook_result} or {@code hookResult}), or {@code null}. */
    static JsonNode hookResult(JsonNode answer) {
        JsonNode h = answer.get("hook_result");
        if (h == null || h.isNull()) {
            h = answer.get("hookResult");
        }
        return h == null || h.isNull() ? null : h;
    }

    /** The error text of an answer, or {@code null} when it reports none. */
    static String error(JsonNode answer) {
        JsonNode e = answer.get("error");
        if (e == null || e.isNull() || e.isTextual() && e.textValue().isEmpty()) {
            return null;
        }
        if (e.isTextual()) {
            return e.textValue();
        }
        if (e.isObject() && e.path("message").isTextual()) {
            return e.path("message").textValue();
        }
        return e.toString();
    }

    /**
     * Maps an {@code execute_tool} answer: {@code error} gives an error result; a string {@code result}
     * is the text; any other JSON {@code result} is read as a foreign value (so a map may carry
     * {@code success}, {@code content} and {@code content_items}); {@code content_items} next to a
     * string result become media items of it.
     */
    static ToolResult toResult(JsonNode answer) {
        String error = error(answer);
        if (error != null) {
            return ToolResult.error(error);
        }
        JsonNode result = answer.get("result");
        JsonNode items = answer.get("content_items");
        boolean hasItems = items != null && items.isArray() && !items.isEmpty();
        if (result == null || result.isNull()) {
            return hasItems ? withItems("", items) : ToolResult.empty();
        }
        if (result.isTextual()) {
            return hasItems ? withItems(result.textValue(), items) : ToolResult.text(result.textValue());
        }
        return ForeignValues.toResult(result);
    }

    private static ToolResult withItems(String text, JsonNode items) {
        ObjectNode carrier = F.objectNode().put("content", text);
        carrier.set("content_items", items);
        return ForeignValues.toResult(carrier).toBuilder().data(null).build();
    }

    /**
     * The tools of an {@code activate} answer as definitions. A tool without a valid name is skipped
     * with a warning, as is a second tool of the same name.
     *
     * @throws StdioPluginException when {@code tools} is present but not a list
     */
    static List<ToolDefinition> tools(PluginManifest m, JsonNode answer) {
        JsonNode tools = answer.get("tools");
        if (tools == null || tools.isNull()) {
            log.warn("plugin {} declared no tools", m.id());
            return List.of();
        }
        if (!tools.isArray()) {
            throw new StdioPluginException("plugin '" + m.id() + "' answered activate with 'tools' that is not a list");
        }
        List<ToolDefinition> out = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (JsonNode t : tools) {
            try {
                ToolDefinition def = tool(m, t);
                if (seen.add(def.name())) {
                    out.add(def);
                } else {
                    log.warn("plugin {} declared tool '{}' twice; the first declaration is kept", m.id(), def.name());
                }
            } catch (IllegalArgumentException | IllegalStateException e) {
                log.warn("plugin {}: skipping a tool: {}", m.id(), e.getMessage());
            }
        }
        return out;
    }

    static ToolDefinition tool(PluginManifest m, JsonNode t) {
        if (!t.isObject() || !t.path("name").isTextual()) {
            throw new IllegalArgumentException("a tool needs a string 'name': " + abbreviate(t.toString(), 200));
        }
        String name = t.path("name").textValue();
        ToolDefinition.Builder b = ToolDefinition.builder(name)
                .description(t.path("description").asText(""))
                .inputSchema(schema(t))
                .pluginId(m.id())
                .channels(m.channels())
                .metadata("source", "stdio")
                .metadata("plugin", m.id());
        JsonNode channels = t.get("channels");
        if (channels != null && channels.isArray()) {
            List<String> cs = new ArrayList<>();
            channels.forEach(c -> cs.add(c.asText()));
            b.channels(cs);
        }
        long timeoutMs = firstLong(t, "timeoutMs", "timeout_ms");
        if (timeoutMs > 0) {
            b.timeout(Duration.ofMillis(timeoutMs));
        } else if (m.callTimeout() != null) {
            b.timeout(m.callTimeout());
        }
        b.sideEffecting(firstBool(t, "sideEffecting", "side_effecting"));
        b.idempotent(t.path("idempotent").asBoolean(false));
        b.dangerous(t.path("dangerous").asBoolean(false));
        JsonNode risk = t.get("risk");
        if (risk != null && !risk.isNull()) {
            b.risk(risk(risk));
        }
        callersAndOutput(t, b);
        ToolDeclarations.apply(t, b);
        return b.build();
    }

    /**
     * {@code allowed_callers} ({@code ["direct", "programmatic"]}; Anthropic's {@code code_execution_*}
     * reads as programmatic; absent: direct only) and {@code output_schema} (a JSON Schema object). A
     * value that cannot be read skips the tool (its caller list would otherwise be guessed).
     */
    static void callersAndOutput(JsonNode t, ToolDefinition.Builder b) {
        for (String key : new String[] {"allowed_callers", "allowedCallers"}) {
            JsonNode c = t.get(key);
            if (c == null || c.isNull()) {
                continue;
            }
            if (!c.isArray() || c.isEmpty()) {
                throw new IllegalArgumentException(key + " must be a non-empty list of direct and programmatic");
            }
            List<dev.toolbus.protocol.CallerType> types = new ArrayList<>();
            for (JsonNode v : c) {
                String s = v.asText("");
                types.add(s.startsWith("code_execution") ? dev.toolbus.protocol.CallerType.PROGRAMMATIC
                        : dev.toolbus.protocol.CallerType.parse(s));
            }
            b.allowedCallers(types);
            break;
        }
        for (String key : new String[] {"output_schema", "outputSchema"}) {
            JsonNode o = t.get(key);
            if (o == null || o.isNull()) {
                continue;
            }
            if (!o.isObject()) {
                throw new IllegalArgumentException(key + " must be a JSON Schema object");
            }
            b.outputSchema(((ObjectNode) o).deepCopy());
            break;
        }
    }

    /**
     * The argument schema of a declared tool: {@code input_schema} or {@code inputSchema} when it is an
     * object, else {@code parameters} as an object schema or as a list of
     * {@code {name, type, description, required, items, enum}}, else no arguments.
     */
    static ObjectNode schema(JsonNode t) {
        for (String key : new String[] {"input_schema", "inputSchema"}) {
            JsonNode s = t.get(key);
            if (s != null && s.isObject()) {
                return ((ObjectNode) s).deepCopy();
            }
        }
        JsonNode params = t.get("parameters");
        if (params != null && params.isObject()) {
            return ((ObjectNode) params).deepCopy();
        }
        ObjectNode schema = F.objectNode().put("type", "object");
        ObjectNode props = schema.putObject("properties");
        ArrayNode required = F.arrayNode();
        if (params != null && params.isArray()) {
            for (JsonNode p : params) {
                if (!p.isObject() || !p.path("name").isTextual()) {
                    continue;
                }
                ObjectNode prop = props.putObject(p.path("name").textValue());
                prop.put("type", p.path("type").isTextual() ? p.path("type").textValue() : "string");
                if (p.path("description").isTextual()) {
                    prop.put("description", p.path("description").textValue());
                }
                for (String extra : new String[] {"items", "enum", "default"}) {
                    if (p.has(extra)) {
                        prop.set(extra, p.get(extra).deepCopy());
                    }
                }
                if (p.path("required").asBoolean(false)) {
                    required.add(p.path("name").textValue());
                }
            }
        }
        schema.set("required", required);
        return schema;
    }

    private static Risk risk(JsonNode v) {
        String r = v.isTextual() ? v.textValue().strip().toLowerCase(Locale.ROOT) : "";
        return switch (r) {
            case "low" -> Risk.LOW;
            case "medium" -> Risk.MEDIUM;
            case "high" -> Risk.HIGH;
            default -> throw new IllegalArgumentException("tool 'risk' must be \"low\", \"medium\" or \"high\" but was " + v);
        };
    }

    private static long firstLong(JsonNode t, String a, String b) {
        JsonNode v = t.has(a) ? t.get(a) : t.get(b);
        return v != null && v.canConvertToLong() ? v.asLong() : 0;
    }

    private static boolean firstBool(JsonNode t, String a, String b) {
        JsonNode v = t.has(a) ? t.get(a) : t.get(b);
        return v != null && v.asBoolean(false);
    }

    private static boolean hasValue(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v != null && !v.isNull() && !(v.isTextual() && v.textValue().isEmpty());
    }

    static String abbreviate(String s, int max) {
        return s.length() <= max ? s : s.substring(0, max) + "…";
    }
}
