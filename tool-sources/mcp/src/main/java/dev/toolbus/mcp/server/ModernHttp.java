package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.internal.Wire;
import dev.toolbus.protocol.CallContext;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The 2026-07-28 side of the streamable HTTP endpoint: one POST per request, no session. The headers
 * are checked against the body ({@link HeaderRules}), the request is served by the
 * {@link ModernDispatcher}, and the answer is plain JSON when the response is the only message, else
 * an SSE stream of the request's notifications ending with its response ({@code X-Accel-Buffering:
 * no}; a {@code subscriptions/listen} stream gets an SSE comment every {@link #KEEP_ALIVE}). Closing
 * the stream cancels the request. The status follows the error: 400 for header, {@code _meta},
 * version and capability errors, 404 for an unknown method.
 */
final class ModernHttp {

    static final Duration KEEP_ALIVE = Duration.ofSeconds(15);

    private ModernHttp() {
    }

    /** One message of the answer, encoded; {@code last} for the response. */
    private record Out(String text, boolean last, boolean comment) {
    }

    /** Whether a request is on the 2026-07-28 wire: by its version header, else by its {@code _meta}. */
    static boolean modern(String versionHeader, JsonNode body) {
        if (versionHeader != null) {
            String v = versionHeader.strip();
            return !Wire.LEGACY.contains(v) && !Wire.LEGACY_OLDEST.equals(v);
        }
        return body != null && body.path("params").path(Wire.META).has(Wire.META_VERSION);
    }

    static Publisher<Void> serve(ModernDispatcher dispatcher, JsonNode body, HttpHeaders headers, boolean sse,
                                 HttpServerResponse res, String principal, CallContext context,
                                 Function<String, Map<String, String>> paramHeaders) {
        if (!body.isObject()) {
            return json(res, 400, Wire.error(null, Wire.INVALID_REQUEST, "a request is one JSON-RPC object", null));
        }
        JsonNode id = body.get("id");
        JsonNode method = body.get("method");
        if (method == null || !method.isTextual()) {
            // a response or garbage: a 2026-07-28 server sends no requests, so nothing waits for a response
            return res.status(HttpResponseStatus.ACCEPTED).send();
        }
        if (id == null || id.isNull()) {
            // a notification: nothing to answer (cancellation on HTTP is closing the stream)
            return res.status(HttpResponseStatus.ACCEPTED).send();
        }
        if (!Wire.validId(id)) {
            return json(res, 400, Wire.error(null, Wire.INVALID_REQUEST, "the request id must be a string or an integer",
                    null));
        }
        String m = method.textValue();
        JsonNode params = body.get("params");
        String version = headers.get(Wire.HEADER_VERSION);
        if (version != null && !RequestMeta.MODERN.contains(version.strip())) {
            // a version this endpoint does not serve at all: nothing else about the request matters
            JsonNode metaVersion = params == null ? null : params.path(Wire.META).get(Wire.META_VERSION);
            ModernError e = metaVersion != null && metaVersion.isTextual() && !metaVersion.textValue().equals(version.strip())
                    ? new ModernError(Wire.HEADER_MISMATCH, "Header mismatch: the " + Wire.HEADER_VERSION + " header ("
                            + version + ") differs from _meta's " + Wire.META_VERSION + " (" + metaVersion.textValue() + ")")
                    : RequestMeta.unsupported(version.strip(), ModernDispatcher.SUPPORTED);
            return json(res, ModernError.httpStatus(e.code), e.response(id));
        }
        if (!ModernDispatcher.knows(m)) {
            return json(res, 404, Wire.error(id, Wire.METHOD_NOT_FOUND, "Method not found: " + m, null));
        }
        try {
            String tool = "tools/call".equals(m) && params != null ? params.path("name").asText(null) : null;
            HeaderRules.check(headers::get, m, params, tool == null ? null : paramHeaders.apply(tool));
        } catch (ModernError e) {
            return json(res, ModernError.httpStatus(e.code), e.response(id));
        }
        Flux<ObjectNode> messages = dispatcher.request(id, m, params, principal, context);
        boolean listen = "subscriptions/listen".equals(m);
        if (!sse) {
            return messages.filter(Wire::isResponse).next()
                    .switchIfEmpty(Mono.fromSupplier(() -> Wire.error(id, Wire.REQUEST_CANCELLED, "request cancelled",
                            null)))
                    .flatMap(r -> Mono.from(json(res, status(r), r)));
        }
        Flux<Out> outs = messages.map(msg -> new Out(msg.toString(), Wire.isResponse(msg), false));
        if (listen) {
            outs = Flux.merge(outs, Flux.interval(KEEP_ALIVE, KEEP_ALIVE).map(t -> new Out("keep-alive", false, true)));
        }
        Flux<Out> bounded = outs.takeUntil(Out::last);
        return bounded.switchOnFirst((first, all) -> {
            if (!first.hasValue()) {
                return Mono.<Void>empty();
            }
            Out f = first.get();
            if (f.last() && !listen) {
                return Mono.from(jsonText(res, status(f.text()), f.text())).then();
            }
            res.status(HttpResponseStatus.OK).header("Content-Type", "text/event-stream")
                    .header("Cache-Control", "no-cache").header("X-Accel-Buffering", "no");
            return res.send(all.map(ModernHttp::event), b -> true).then();
        }).then();
    }

    private static int status(JsonNode response) {
        int code = Wire.errorCode(response);
        return code == 0 ? 200 : ModernError.httpStatus(code);
    }

    private static int status(String responseText) {
        int at = responseText.indexOf("\"error\":{\"code\":");
        if (at < 0) {
            return 200;
        }
        int from = at + "\"error\":{\"code\":".length();
        int to = from;
        while (to < responseText.length() && (responseText.charAt(to) == '-' || Character.isDigit(responseText.charAt(to)))) {
            to++;
        }
        try {
            return ModernError.httpStatus(Integer.parseInt(responseText.substring(from, to)));
        } catch (NumberFormatException e) {
            return 200;
        }
    }

    private static ByteBuf event(Out o) {
        String s = o.comment() ? ": " + o.text() + "\n\n" : "event: message\ndata: " + o.text() + "\n\n";
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    static Publisher<Void> json(HttpServerResponse res, int status, JsonNode body) {
        return jsonText(res, status, body.toString());
    }

    private static Publisher<Void> jsonText(HttpServerResponse res, int status, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return res.status(status).header("Content-Type", "application/json")
                .header("Content-Length", String.valueOf(bytes.length))
                .sendByteArray(Mono.just(bytes)).then();
    }
}
