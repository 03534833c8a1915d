package dev.toolbus.gateway;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.metrics.CallRecord;
import dev.toolbus.metrics.ExecutorHealth;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventDecodeException;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.OutboundEvent;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.http.server.WebsocketServerSpec;

/** Routes and answers the gateway's HTTP requests (and upgrades {@code /v1/ws}). */
final class HttpEndpoints {

    static final String JSON = "application/json";
    static final String SSE = "text/event-stream";
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    static final String DEFAULT_STREAM = "gateway";
    static final int DEFAULT_CALLS_LIMIT = 100;

    private static final Set<String> CONTEXT_FIELDS = Set.of("user_id", "group_id", "platform", "permission",
            "channel", "provider", "model", "agent_id");
    private static final Set<String> TOOLS_PARAMS = Set.of("stream_id", "request_id", "format", "text");

    private static final Logger log = LoggerFactory.getLogger(HttpEndpoints.class);

    private final NettyGatewayServer server;
    private final Gateway config;
    private final ObjectMapper mapper = Json.mapper();
    private final WebsocketServerSpec wsSpec;

    HttpEndpoints(NettyGatewayServer server) {
        this.server = server;
        this.config = server.config;
        this.wsSpec = WebsocketServerSpec.builder()
                .maxFramePayloadLength(config.maxRequestBytes)
                .handlePing(true) // pongs go through the session's counted output, like every frame
                .build();
    }

    Publisher<Void> handle(HttpServerRequest req, HttpServerResponse res) {
        QueryStringDecoder uri = new QueryStringDecoder(req.uri());
        String path;
        Map<String, List<String>> params;
        try {
            path = uri.path();
            params = uri.parameters();
        } catch (IllegalArgumentException e) {
            // a bad %-escape: QueryStringDecoder decodes lazily and throws
            res.keepAlive(false);
            return error(res, HttpResponseStatus.BAD_REQUEST, badRequest("bad percent-encoding in the request target: "
                    + "escape '%' as %25 and use two hex digits after every '%'"))
                    .doFinally(s -> server.meters.request("other", HttpResponseStatus.BAD_REQUEST.code()));
        }
        String endpoint = switch (path) {
            case "/healthz" -> "healthz";
            case "/metrics" -> "metrics";
            case "/v1/ws" -> "ws";
            case "/v1/turns" -> "turns";
            case "/v1/control" -> "control";
            case "/v1/tools" -> "tools";
            case "/v1/skills" -> "skills";
            case "/v1/calls" -> "calls";
            default -> "other";
        };
        Mono<Void> answer;
        try {
            answer = route(endpoint, req, res, path, params);
        } catch (RuntimeException e) {
            answer = Mono.error(e);
        }
        return answer
                .onErrorResume(e -> {
                    if (res.hasSentHeaders()) {
                        return Mono.error(e);
                    }
                    log.warn("gateway: {} {} failed", req.method(), endpoint, e);
                    res.keepAlive(false);
                    return error(res, HttpResponseStatus.INTERNAL_SERVER_ERROR,
                            new ErrorEvent(null, null, ErrorCode.TOOL_FAILED, "internal gateway error (logged by the server)"));
                })
                .doFinally(s -> server.meters.request(endpoint, res.status().code()));
    }

    private Mono<Void> route(String endpoint, HttpServerRequest req, HttpServerResponse res, String path,
                             Map<String, List<String>> params) {
        switch (endpoint) {
            case "healthz":
                if (!isGet(req)) {
                    return notAllowed(res, "GET");
                }
                if (server.closing()) {
                    return json(res, HttpResponseStatus.SERVICE_UNAVAILABLE, "{\"status\":\"DOWN\"}");
                }
                // what the executor can really do: a call holding its slot past its timeout is DOWN
                ExecutorHealth h = config.executor.health();
                return json(res, h.healthy() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "{\"status\":\"" + (h.healthy() ? "UP" : "DOWN") + "\",\"executor\":\"" + h.status()
                                + "\",\"slotsInUse\":" + h.slotsInUse() + ",\"slots\":" + h.slots()
                                + ",\"queued\":" + h.queuedCalls() + ",\"stuck\":" + h.stuckCalls() + "}");
            case "other":
                return error(res, HttpResponseStatus.NOT_FOUND, badRequest("no endpoint " + clip(path)
                        + ": use /v1/ws, /v1/turns, /v1/control, /v1/tools, /v1/skills, /v1/calls, /metrics or /healthz"));
            default:
                break;
        }
        boolean open = endpoint.equals("metrics") && config.publicMetrics;
        Optional<AccessTokens.Grant> grant = config.tokens.authenticateHeader(
                req.requestHeaders().get(HttpHeaderNames.AUTHORIZATION));
        if (grant.isEmpty() && !open) {
            // the body (if any) is not worth reading: answer and close, so a slow sender cannot hold the socket
            res.keepAlive(false);
            res.header(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"toolbus\"");
            return error(res, HttpResponseStatus.UNAUTHORIZED, new ErrorEvent(null, null, ErrorCode.PERMISSION_DENIED,
                    "missing or wrong bearer token: send the header 'Authorization: Bearer <token>'"));
        }
        switch (endpoint) {
            case "metrics":
                if (!isGet(req)) {
                    return notAllowed(res, "GET");
                }
                if (!open && !grant.get().scope().unrestricted()) {
                    // meters are tagged by tool, not by tenant: a scoped token would read every tenant's
                    return error(res, HttpResponseStatus.FORBIDDEN, new ErrorEvent(null, null,
                            ErrorCode.PERMISSION_DENIED, "token '" + clip(grant.get().scope().name())
                            + "' is scoped: /metrics shows the meters of every tenant, so only a token with full"
                            + " scope may read it"));
                }
                return metrics(res);
            case "ws":
                return isGet(req) ? websocket(req, res, grant.get()) : notAllowed(res, "GET");
            case "turns":
                return req.method().equals(HttpMethod.POST) ? turns(req, res, grant.get()) : notAllowed(res, "POST");
            case "control":
                return req.method().equals(HttpMethod.POST) ? control(req, res, grant.get()) : notAllowed(res, "POST");
            case "tools":
                return isGet(req) ? tools(res, params, grant.get()) : notAllowed(res, "GET");
            case "skills":
                return req.method().equals(HttpMethod.POST) ? skills(req, res, grant.get()) : notAllowed(res, "POST");
            case "calls":
                return isGet(req) ? calls(res, params, grant.get()) : notAllowed(res, "GET");
            default:
                throw new IllegalStateException(endpoint);
        }
    }

    static String clip(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }

    private static boolean isGet(HttpServerRequest req) {
        return req.method().equals(HttpMethod.GET) || req.method().equals(HttpMethod.HEAD);
    }

    // --- endpoints ---------------------------------------------------------------------------------

    private Mono<Void> metrics(HttpServerResponse res) {
        String body = config.meterRegistry.scrape();
        return send(res, HttpResponseStatus.OK, PROMETHEUS_TEXT, body);
    }

    private Mono<Void> websocket(HttpServerRequest req, HttpServerResponse res, AccessTokens.Grant grant) {
        if (!"websocket".equalsIgnoreCase(req.requestHeaders().get(HttpHeaderNames.UPGRADE))) {
            return error(res, HttpResponseStatus.BAD_REQUEST,
                    badRequest("/v1/ws is a WebSocket endpoint: open it with a WebSocket client (Upgrade: websocket)"));
        }
        if (server.closing()) {
            return error(res, HttpResponseStatus.SERVICE_UNAVAILABLE, NettyGatewayServer.shuttingDown(null));
        }
        return res.sendWebsocket((in, out) -> new WsSession(server, in, out, grant).run(), wsSpec);
    }

    /**
     * Reads the request body (bounded in bytes and time) and decodes it as one event for {@code handler}.
     * Undecodable → {@code 400} with the codec's error; too large → {@code 413} ({@code tooLargeHint}
     * appended) and too slow → {@code 408}, both closing the connection, since the rest of the body is
     * not read.
     */
    private Mono<Void> oneEvent(HttpServerRequest req, HttpServerResponse res,
                                java.util.function.Function<InboundEvent, Mono<Void>> handler, String tooLargeHint) {
        return BoundedBody.read(req, config.maxRequestBytes, config.bodyTimeout)
                .flatMap(body -> {
                    InboundEvent event;
                    try {
                        event = server.codec.decode(body);
                    } catch (EventDecodeException e) {
                        return error(res, HttpResponseStatus.BAD_REQUEST, e.toErrorEvent());
                    }
                    return handler.apply(event);
                })
                .onErrorResume(e -> e instanceof BoundedBody.TooLarge || e instanceof BoundedBody.TooSlow, e -> {
                    res.keepAlive(false);
                    return e instanceof BoundedBody.TooLarge
                            ? error(res, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, badRequest(e.getMessage() + tooLargeHint))
                            : error(res, HttpResponseStatus.REQUEST_TIMEOUT, badRequest(e.getMessage()));
                });
    }

    private Mono<Void> turns(HttpServerRequest req, HttpServerResponse res, AccessTokens.Grant grant) {
        boolean sse = accepts(req, SSE);
        return oneEvent(req, res, event -> {
            if (server.closing() && !(event instanceof ControlEvent)) {
                return error(res, HttpResponseStatus.SERVICE_UNAVAILABLE,
                        NettyGatewayServer.shuttingDown(event.streamId()));
            }
            event = TraceHeaders.onto(event, req.requestHeaders());
            EventAdmission.Result admitted = EventAdmission.admit(grant, event);
            if (admitted.refusal() != null) {
                return error(res, HttpResponseStatus.FORBIDDEN, admitted.refusal());
            }
            Flux<OutboundEvent> events = server.track(config.executor.handle(admitted.event(), grant.scope().principal()));
            return sse ? sendSse(res, events) : sendArray(res, events, grant.scope().name(), admitted.event());
        }, ": send smaller arguments, or raise the limit on both sides");
    }

    /**
     * {@code POST /v1/control}: one control event ({@code cancel}, {@code approval_response},
     * {@code input_response}), applied at once, also while the gateway drains. {@code 202} with the
     * outcome, {@code 404} with an {@code UNKNOWN_REQUEST} error for an id nobody waits for, {@code 400}
     * for anything that is not a control event, {@code 403} for a stream outside the token's scope.
     */
    private Mono<Void> control(HttpServerRequest req, HttpServerResponse res, AccessTokens.Grant grant) {
        return oneEvent(req, res, decoded -> {
            InboundEvent event = TraceHeaders.onto(decoded, req.requestHeaders());
            if (!(event instanceof ControlEvent control)) {
                return error(res, HttpResponseStatus.BAD_REQUEST, new ErrorEvent(event.streamId(), null,
                        ErrorCode.BAD_EVENT, "/v1/control takes cancel, approval_response or input_response; "
                        + "send turns and list_tools to /v1/turns"));
            }
            EventAdmission.Result admitted = EventAdmission.admit(grant, event);
            if (admitted.refusal() != null) {
                return error(res, HttpResponseStatus.FORBIDDEN, admitted.refusal());
            }
            return config.executor.control(control, grant.scope().principal()).flatMap(outcome -> switch (outcome) {
                case UNKNOWN_REQUEST -> error(res, HttpResponseStatus.NOT_FOUND, unknownRequest(control));
                case INVALID_ANSWER -> error(res, HttpResponseStatus.BAD_REQUEST, new ErrorEvent(control.streamId(), null,
                        ErrorCode.BAD_EVENT, "the content of input_response '" + (control instanceof InputResponseEvent i
                        ? clip(i.inputId()) : "") + "' does not match the question's schema; it was not passed to the"
                        + " tool, and the question still waits for an answer"));
                case APPLIED, NOTHING_TO_DO, HELD -> json(res, HttpResponseStatus.ACCEPTED,
                        "{\"outcome\":\"" + outcome.name().toLowerCase(Locale.ROOT) + "\"}");
            });
        }, "");
    }

    /** The error for an approval or input id this executor does not wait for. */
    static ErrorEvent unknownRequest(ControlEvent control) {
        String what = control instanceof ApprovalResponseEvent a ? "approval request '" + clip(a.approvalId()) + "'"
                : control instanceof InputResponseEvent i ? "input request '" + clip(i.inputId()) + "'" : "request";
        ErrorEvent e = new ErrorEvent(control.streamId(), null, ErrorCode.UNKNOWN_REQUEST, "no " + what
                + " is waiting on this stream here: unknown, expired, already answered, or of another stream");
        return control.trace() == null ? e : e.withTrace(control.trace());
    }

    /**
     * The turn's events as one JSON array, sent once the turn is complete. Each event is encoded as it
     * arrives and its bytes counted against the token's and the gateway's bound of gathered answers;
     * over it the turn is cancelled and the answer is {@code 503} with a {@code REJECTED} error event.
     */
    private Mono<Void> sendArray(HttpServerResponse res, Flux<OutboundEvent> events, String principal,
                                 InboundEvent request) {
        GatheredAnswer answer = new GatheredAnswer(server.answers, principal);
        return events.<Void>handle((e, sink) -> {
                    String over = answer.add(server.codec.encodeToBytes(e));
                    if (over != null) {
                        sink.error(new AnswerTooLarge(over));
                    }
                })
                .then(Mono.defer(() -> res.status(HttpResponseStatus.OK)
                        .header(HttpHeaderNames.CONTENT_TYPE, JSON)
                        .header(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                        .send(Mono.just(answer.body())).then()))
                .onErrorResume(AnswerTooLarge.class, e -> {
                    answer.release();
                    server.meters.answerRefused();
                    String turnId = request instanceof dev.toolbus.protocol.ToolCallsEvent t ? t.turnId() : null;
                    log.warn("gateway: turn {} of stream {} cancelled: {}", clip(String.valueOf(turnId)),
                            clip(request.streamId()), e.getMessage());
                    return error(res, HttpResponseStatus.SERVICE_UNAVAILABLE, new ErrorEvent(request.streamId(), turnId,
                            ErrorCode.REJECTED, "the turn was cancelled: its events are more than a non-streaming "
                            + "answer may hold (" + e.getMessage() + "); send 'Accept: text/event-stream' to receive "
                            + "a turn's events as they come"));
                })
                .doFinally(s -> answer.release());
    }

    /** An answer past its byte bound. */
    private static final class AnswerTooLarge extends RuntimeException {
        AnswerTooLarge(String message) {
            super(message, null, false, false);
        }
    }

    private Mono<Void> sendSse(HttpServerResponse res, Flux<OutboundEvent> events) {
        res.status(HttpResponseStatus.OK)
                .header(HttpHeaderNames.CONTENT_TYPE, SSE + "; charset=utf-8")
                .header(HttpHeaderNames.CACHE_CONTROL, "no-cache")
                .header("X-Accel-Buffering", "no");
        return res.send(events.map(this::sseEvent)).then();
    }

    private Mono<Void> tools(HttpServerResponse res, Map<String, List<String>> params, AccessTokens.Grant grant) {
        ListToolsEvent.Format format;
        try {
            format = ListToolsEvent.Format.parse(first(params, "format"));
        } catch (IllegalArgumentException e) {
            return error(res, HttpResponseStatus.BAD_REQUEST,
                    badRequest("unknown format '" + first(params, "format") + "': use openai, anthropic or mcp"));
        }
        Map<String, Object> extra = new LinkedHashMap<>();
        params.forEach((k, v) -> {
            if (!CONTEXT_FIELDS.contains(k) && !TOOLS_PARAMS.contains(k) && !v.isEmpty()) {
                extra.put(k, v.get(0));
            }
        });
        CallContext context = CallContext.builder().userId(first(params, "user_id")).groupId(first(params, "group_id"))
                .platform(first(params, "platform")).permission(first(params, "permission"))
                .channel(first(params, "channel")).provider(first(params, "provider")).model(first(params, "model"))
                .agentId(first(params, "agent_id")).putAll(extra).build();
        String stream = first(params, "stream_id");
        ListToolsEvent request = new ListToolsEvent(stream == null || stream.isBlank() ? DEFAULT_STREAM : stream,
                first(params, "request_id"), context, format, first(params, "text"));
        EventAdmission.Result admitted = EventAdmission.admit(grant, request);
        if (admitted.refusal() != null) {
            return error(res, HttpResponseStatus.FORBIDDEN, admitted.refusal());
        }
        // with dispatch configured and a text given, a small model narrows the list (asynchronously)
        return config.executor.answerListTools((ListToolsEvent) admitted.event())
                .flatMap(tools -> sendEvent(res, HttpResponseStatus.OK, tools));
    }

    /**
     * {@code POST /v1/skills}: a {@code list_skills} event, answered
     * {@code 200} with the {@code skills} event; {@code 400} for anything else, {@code 403} outside the
     * token's scope.
     */
    private Mono<Void> skills(HttpServerRequest req, HttpServerResponse res, AccessTokens.Grant grant) {
        return oneEvent(req, res, event -> {
            if (!(event instanceof ListSkillsEvent)) {
                return error(res, HttpResponseStatus.BAD_REQUEST, new ErrorEvent(event.streamId(), null,
                        ErrorCode.BAD_EVENT, "/v1/skills takes a list_skills event; send turns to /v1/turns"));
            }
            EventAdmission.Result admitted = EventAdmission.admit(grant, event);
            if (admitted.refusal() != null) {
                return error(res, HttpResponseStatus.FORBIDDEN, admitted.refusal());
            }
            return server.track(config.executor.handle(admitted.event(), grant.scope().principal())).next()
                    .flatMap(answer -> sendEvent(res, answer instanceof ErrorEvent
                            ? HttpResponseStatus.INTERNAL_SERVER_ERROR : HttpResponseStatus.OK, answer));
        }, "");
    }

    private Mono<Void> calls(HttpServerResponse res, Map<String, List<String>> params, AccessTokens.Grant grant) {
        int capacity = config.executor.callLog().capacity();
        int limit = DEFAULT_CALLS_LIMIT;
        String limitText = first(params, "limit");
        if (limitText != null) {
            try {
                limit = Integer.parseInt(limitText.strip());
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1) {
                return error(res, HttpResponseStatus.BAD_REQUEST,
                        badRequest("limit must be a positive integer, got '" + limitText + "'"));
            }
        }
        Predicate<CallRecord> filter = matches(first(params, "tool"), CallRecord::tool)
                .and(matches(first(params, "user"), CallRecord::userId))
                .and(matches(first(params, "stream"), CallRecord::streamId))
                .and(matchesIgnoringCase(first(params, "outcome"), CallRecord::outcome))
                .and(visibleTo(grant.scope()));
        List<CallRecord> records = config.executor.callLog().recent(filter, Math.min(limit, capacity));
        ObjectNode root = mapper.createObjectNode();
        ArrayNode calls = root.putArray("calls");
        for (CallRecord r : records) {
            ObjectNode n = calls.addObject();
            n.put("at", r.at().toString());
            n.put("tool", r.tool());
            n.put("stream_id", r.streamId());
            n.put("turn_id", r.turnId());
            n.put("tool_call_id", r.toolCallId());
            n.put("user_id", r.userId());
            n.put("outcome", r.outcome());
            n.put("duration_ms", r.durationMs());
            n.put("attempts", r.attempts());
            n.put("cached", r.cached());
            if (!r.approval().isEmpty()) {
                n.put("approval", r.approval());
            }
            if (!r.principal().isEmpty()) {
                n.put("principal", r.principal());
            }
        }
        root.put("count", records.size());
        root.put("capacity", capacity);
        return send(res, HttpResponseStatus.OK, JSON, root.toString());
    }

    /**
     * What a token may see of the call log: an unrestricted token every call; a scoped one the calls run for
     * its own principal on streams it may use (another principal's turn on a stream of the same name is
     * another conversation, and not the token's to read).
     */
    private static Predicate<CallRecord> visibleTo(dev.toolbus.auth.TokenScope scope) {
        if (scope.unrestricted()) {
            return r -> true;
        }
        String principal = scope.principal().key();
        return r -> principal.equals(r.principal()) && scope.allowsStream(r.streamId());
    }

    private static Predicate<CallRecord> matches(String wanted, java.util.function.Function<CallRecord, String> field) {
        return wanted == null || wanted.isEmpty() ? r -> true : r -> wanted.equals(field.apply(r));
    }

    private static Predicate<CallRecord> matchesIgnoringCase(String wanted,
                                                             java.util.function.Function<CallRecord, String> field) {
        return wanted == null || wanted.isEmpty() ? r -> true : r -> wanted.equalsIgnoreCase(field.apply(r));
    }

    // --- helpers -----------------------------------------------------------------------------------

    private static String first(Map<String, List<String>> params, String name) {
        List<String> v = params.get(name);
        return v == null || v.isEmpty() ? null : v.get(0);
    }

    private static boolean accepts(HttpServerRequest req, String type) {
        String accept = req.requestHeaders().get(HttpHeaderNames.ACCEPT);
        return accept != null && accept.toLowerCase(Locale.ROOT).contains(type);
    }

    static ErrorEvent badRequest(String message) {
        return new ErrorEvent(null, null, ErrorCode.BAD_EVENT, message);
    }

    private Mono<Void> notAllowed(HttpServerResponse res, String allowed) {
        res.header(HttpHeaderNames.ALLOW, allowed);
        return error(res, HttpResponseStatus.METHOD_NOT_ALLOWED, badRequest("method not allowed: use " + allowed));
    }

    private Mono<Void> error(HttpServerResponse res, HttpResponseStatus status, ErrorEvent event) {
        return sendEvent(res, status, bounded(event));
    }

    /** Ids longer than this are not echoed in an error answer. */
    static final int MAX_ECHOED_ID = 512;

    /** The error without ids too long to echo (an oversized id is what it may be answering). */
    static ErrorEvent bounded(ErrorEvent e) {
        boolean longStream = e.streamId() != null && e.streamId().length() > MAX_ECHOED_ID;
        boolean longTurn = e.turnId() != null && e.turnId().length() > MAX_ECHOED_ID;
        String message = e.message() != null && e.message().length() > 4 * MAX_ECHOED_ID
                ? e.message().substring(0, 4 * MAX_ECHOED_ID) + "…" : e.message();
        if (!longStream && !longTurn && message == e.message()) {
            return e;
        }
        return new ErrorEvent(longStream ? null : e.streamId(), longTurn ? null : e.turnId(), e.code(), message);
    }

    private static Mono<Void> json(HttpServerResponse res, HttpResponseStatus status, String body) {
        return send(res, status, JSON, body);
    }

    /**
     * One event as the JSON body: its UTF-8 without a String, encoded before the status is set (a value
     * that cannot be encoded fails the exchange as before), sent as a buffer over those bytes.
     */
    private Mono<Void> sendEvent(HttpServerResponse res, HttpResponseStatus status, OutboundEvent event) {
        byte[] body = server.codec.encodeToBytes(event);
        return res.status(status)
                .header(HttpHeaderNames.CONTENT_TYPE, JSON)
                .header(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .send(Mono.just(Unpooled.wrappedBuffer(body)))
                .then();
    }

    /** One server-sent event: its type line and its data line, the event's UTF-8 without a String. */
    private ByteBuf sseEvent(OutboundEvent e) {
        return Unpooled.wrappedBuffer(("event: " + e.type() + "\ndata: ").getBytes(StandardCharsets.UTF_8),
                server.codec.encodeToBytes(e), SSE_END);
    }

    private static final byte[] SSE_END = {'\n', '\n'};

    private static Mono<Void> send(HttpServerResponse res, HttpResponseStatus status, String contentType, String body) {
        return res.status(status)
                .header(HttpHeaderNames.CONTENT_TYPE, contentType)
                .header(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE)
                .sendString(Mono.just(body), StandardCharsets.UTF_8)
                .then();
    }
}
