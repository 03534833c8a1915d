package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.toolbus.mcp.internal.Wire;
import dev.toolbus.protocol.TraceContext;
import java.util.List;

/**
 * The {@code _meta} of a 2026-07-28 request, validated: the protocol version (one this server
 * serves), the client's capabilities, its optional {@code clientInfo}, the log level it wants (none:
 * no log messages), its progress token, and the W3C trace context ({@code traceparent},
 * {@code tracestate}, {@code baggage}; an invalid one is ignored, as on the bus).
 */
record RequestMeta(String version, ClientCaps caps, JsonNode clientInfo, String logLevel, JsonNode progressToken,
                   TraceContext trace) {

    /** The revisions a modern request may name (the only modern one). */
    static final List<String> MODERN = List.of(Wire.MODERN);

    /**
     * Reads and checks {@code params._meta}.
     *
     * @param supported every version this server serves, for the -32022 error's {@code supported}
     * @throws ModernError -32602 for a missing {@code _meta}, version or capabilities, or an unknown
     *     log level; -32022 for a version not served
     */
    static RequestMeta parse(JsonNode params, List<String> supported) {
        JsonNode meta = params == null ? null : params.get(Wire.META);
        if (meta == null || !meta.isObject()) {
            throw ModernError.invalidParams("the request has no _meta: a 2026-07-28 request carries "
                    + Wire.META_VERSION + " and " + Wire.META_CAPABILITIES + " in params._meta");
        }
        JsonNode v = meta.get(Wire.META_VERSION);
        if (v == null || !v.isTextual() || v.textValue().isEmpty()) {
            throw ModernError.invalidParams("params._meta has no " + Wire.META_VERSION);
        }
        JsonNode caps = meta.get(Wire.META_CAPABILITIES);
        if (caps == null || !caps.isObject()) {
            throw ModernError.invalidParams("params._meta has no " + Wire.META_CAPABILITIES + " object");
        }
        String version = v.textValue();
        if (!MODERN.contains(version)) {
            throw unsupported(version, supported);
        }
        String level = null;
        JsonNode l = meta.get(Wire.META_LOG_LEVEL);
        if (l != null && !l.isNull()) {
            if (!l.isTextual() || !SessionState.LEVELS.contains(l.textValue())) {
                throw ModernError.invalidParams("unknown log level in " + Wire.META_LOG_LEVEL + ": " + l);
            }
            level = l.textValue();
        }
        JsonNode token = meta.get("progressToken");
        if (token != null && !(token.isTextual() || token.isIntegralNumber())) {
            token = null;
        }
        TraceContext trace = null;
        JsonNode tp = meta.get("traceparent");
        if (tp != null && tp.isTextual()) {
            JsonNode ts = meta.get("tracestate");
            trace = TraceContext.parse(tp.textValue(), ts != null && ts.isTextual() ? ts.textValue() : null);
            JsonNode bg = meta.get("baggage");
            if (trace != null && bg != null && bg.isTextual()) {
                trace = trace.withBaggage(bg.textValue());
            }
        }
        return new RequestMeta(version, ClientCaps.of(caps), meta.get(Wire.META_CLIENT_INFO), level, token, trace);
    }

    /** -32022 for a version not served, listing those that are. */
    static ModernError unsupported(String requested, List<String> supported) {
        var data = Wire.object();
        ArrayNode s = data.putArray("supported");
        supported.forEach(s::add);
        data.put("requested", requested);
        return new ModernError(Wire.UNSUPPORTED_VERSION, "Unsupported protocol version: " + requested, data);
    }

    /** Whether a log message at {@code level} goes out for this request. */
    boolean logs(String level) {
        return logLevel != null && SessionState.LEVELS.indexOf(level) >= SessionState.LEVELS.indexOf(logLevel);
    }
}
