package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.McpCallException;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.Principal;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The live events of one MCP {@code tools/call} on the server side, as MCP messages to the client:
 * {@code tool_progress} → {@code notifications/progress} (only when the request carried a progress
 * token), {@code send_message} → {@code notifications/message} at level info, {@code input_request} →
 * {@code elicitation/create}, whose answer becomes the executor's {@code input_response} (accept,
 * decline, cancel; a client that cannot be asked, an error, or no answer before the question
 * expires: cancel, and the client's request is cancelled), {@code approval_request} →
 * {@code elicitation/create} whose {@code accept} approves (anything else, or a client that cannot be
 * asked, denies). Closing it withdraws questions still open.
 * A tool reaches {@link #sample} through {@link McpSampling}: {@code sampling/createMessage}.
 */
final class LiveEvents implements CallPeer {

    private static final Logger log = LoggerFactory.getLogger(LiveEvents.class);
    /** The logger name of {@code send_message} log notifications. */
    static final String LOGGER = "toolbus";

    private final ToolExecutor executor;
    private final Principal caller;
    private final SessionOutbox outbox;
    private final Object progressToken;
    private final ObjectMapper mapper;
    private final Disposable.Composite asks = Disposables.composite();

    LiveEvents(ToolExecutor executor, Principal caller, SessionOutbox outbox, Object progressToken, ObjectMapper mapper) {
        this.executor = executor;
        this.caller = caller;
        this.outbox = outbox;
        this.progressToken = progressToken;
        this.mapper = mapper;
    }

    /** Sends a live event to the client and answers {@code false}; {@code true} for the events the result is made of. */
    boolean resultEvent(OutboundEvent e) {
        if (e instanceof ToolProgressEvent p) {
            if (outbox != null && progressToken != null) {
                Map<String, Object> params = new LinkedHashMap<>();
                params.put("progressToken", progressToken);
                params.put("progress", p.progress());
                if (p.total() != null) {
                    params.put("total", p.total());
                }
                if (p.message() != null && !p.message().isEmpty()) {
                    params.put("message", p.message());
                }
                outbox.notify("notifications/progress", params);
            }
            return false;
        }
        if (e instanceof SendMessageEvent m) {
            if (outbox != null) {
                outbox.log("info", LOGGER, text(m));
            }
            return false;
        }
        if (e instanceof InputRequestEvent r) {
            ask(r);
            return false;
        }
        if (e instanceof ApprovalRequestEvent a) {
            approve(a);
            return false;
        }
        if (e instanceof ToolResultEvent) {
            // the call is over: withdraw its open questions while the client's stream is still open
            close();
        }
        return true;
    }

    /**
     * An {@code approval_request} as an {@code elicitation/create} with its text and an empty schema:
     * {@code accept} approves, {@code decline}, {@code cancel} or an error denies. A client that cannot
     * be asked is denied at once (the calls end {@code NOT_APPROVED}); no answer before the request
     * expires is the executor's own {@code NOT_APPROVED}.
     */
    private void approve(ApprovalRequestEvent r) {
        if (outbox == null || !outbox.canElicit()) {
            decide(r, ApprovalDecision.DENY);
            return;
        }
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("message", r.text());
        params.put("requestedSchema", Map.of("type", "object", "properties", Map.of()));
        long left = r.expiresAtMs() - System.currentTimeMillis();
        Duration timeout = Duration.ofMillis(Math.max(1, left) + 1_000);
        asks.add(outbox.request(McpSchema.METHOD_ELICITATION_CREATE, params, timeout).subscribe(response -> {
            Object result = response.error() != null ? null : response.result();
            Object action = result instanceof Map<?, ?> m ? m.get("action") : null;
            decide(r, "accept".equals(action) ? ApprovalDecision.APPROVE : ApprovalDecision.DENY);
        }, e -> log.debug("MCP approval {} ended without an answer: {}", r.approvalId(), e.toString())));
    }

    private void decide(ApprovalRequestEvent r, ApprovalDecision decision) {
        executor.control(new ApprovalResponseEvent(r.streamId(), r.approvalId(), decision), caller)
                .subscribeOn(Schedulers.parallel())
                .subscribe(outcome -> log.debug("approval_response for {}: {}", r.approvalId(), outcome),
                        e -> log.warn("approval_response for {} failed: {}", r.approvalId(), e.toString()));
    }

    private void ask(InputRequestEvent r) {
        if (outbox == null || !outbox.canElicit() || r.urlMode() && !outbox.canElicitUrl()) {
            answer(r, InputAction.CANCEL, null);
            return;
        }
        Map<String, Object> params = new LinkedHashMap<>();
        if (r.urlMode()) {
            params.put("mode", "url");
            params.put("message", r.message());
            params.put("url", r.url());
            params.put("elicitationId", r.inputId());
        } else {
            params.put("message", r.message());
            params.put("requestedSchema", r.schema() == null ? Map.of("type", "object", "properties", Map.of())
                    : mapper.convertValue(r.schema(), Map.class));
        }
        // the executor expires the question; this bound only keeps a lost question from waiting forever
        long left = r.expiresAtMs() - System.currentTimeMillis();
        Duration timeout = Duration.ofMillis(Math.max(1, left) + 1_000);
        asks.add(outbox.request(McpSchema.METHOD_ELICITATION_CREATE, params, timeout).subscribe(response -> {
            if (response.error() != null) {
                log.debug("MCP client refused elicitation/create: {}", response.error().message());
                answer(r, InputAction.CANCEL, null);
                return;
            }
            Object result = response.result();
            Object action = result instanceof Map<?, ?> m ? m.get("action") : null;
            Object content = result instanceof Map<?, ?> m ? m.get("content") : null;
            InputAction a = "accept".equals(action) ? InputAction.ACCEPT
                    : "decline".equals(action) ? InputAction.DECLINE : InputAction.CANCEL;
            answer(r, a, a == InputAction.ACCEPT && content != null ? mapper.valueToTree(content) : null);
        }, e -> {
            // a timeout: the executor expires the question itself; a closed session: the call ends anyway
            log.debug("MCP elicitation for {} ended without an answer: {}", r.inputId(), e.toString());
        }));
    }

    private void answer(InputRequestEvent r, InputAction action, JsonNode content) {
        // never from inside the turn's event delivery: the executor must not be re-entered there
        executor.control(new InputResponseEvent(r.streamId(), r.inputId(), action, content), caller)
                .subscribeOn(Schedulers.parallel())
                .subscribe(outcome -> {
                    log.debug("input_response for {}: {}", r.inputId(), outcome);
                    if (outcome == ControlOutcome.INVALID_ANSWER) {
                        // the client's content breaks the schema it was sent: MCP has no second ask
                        log.warn("MCP client answered elicitation {} with content that breaks its schema;"
                                + " the question is cancelled", r.inputId());
                        answer(r, InputAction.CANCEL, null);
                    }
                }, e -> log.warn("input_response for {} failed: {}", r.inputId(), e.toString()));
    }

    /** The message's text parts joined; other parts as {@code [type mime]}. */
    static String text(SendMessageEvent m) {
        StringBuilder sb = new StringBuilder();
        for (ContentPart p : m.content()) {
            if (sb.length() > 0) {
                sb.append('\n');
            }
            if ("text".equals(p.type()) && p.text() != null) {
                sb.append(p.text());
            } else {
                sb.append('[').append(p.type()).append(p.mimeType() == null ? "" : " " + p.mimeType()).append(']');
            }
        }
        return sb.toString();
    }

    @Override
    public boolean canSample() {
        return outbox != null && outbox.canSample();
    }

    @Override
    public boolean canListRoots() {
        return outbox != null && outbox.canListRoots();
    }

    @Override
    public boolean canElicit(boolean url) {
        return outbox != null && outbox.canElicit() && (!url || outbox.canElicitUrl());
    }

    /** Asks the client for its roots; fails when it cannot be asked, refuses, or does not answer in time. */
    @Override
    public Mono<McpSchema.ListRootsResult> listRoots(String key, Duration timeout) {
        if (outbox == null || !outbox.open()) {
            return Mono.error(new IllegalStateException("this MCP request cannot carry messages to the client"
                    + " (over HTTP it must accept text/event-stream), so its roots cannot be asked for"));
        }
        if (!outbox.canListRoots()) {
            return Mono.error(new IllegalStateException("the MCP client did not declare the roots capability"));
        }
        return outbox.request(McpSchema.METHOD_ROOTS_LIST, Map.of(), timeout)
                .switchIfEmpty(Mono.error(() -> new TimeoutException("the MCP client did not list its roots within "
                        + timeout.toMillis() + " ms")))
                .map(response -> {
                    if (response.error() != null) {
                        throw new McpCallException("the MCP client refused roots/list: " + response.error().message());
                    }
                    try {
                        return mapper.convertValue(response.result(), McpSchema.ListRootsResult.class);
                    } catch (IllegalArgumentException e) {
                        throw new McpCallException("the MCP client answered roots/list with an invalid result: "
                                + e.getMessage(), e);
                    }
                });
    }

    /** Asks the client's model; fails when it cannot be asked, refuses, or does not answer in time. */
    @Override
    public Mono<McpSchema.CreateMessageResult> sample(String key, McpSchema.CreateMessageRequest request,
            Duration timeout) {
        if (outbox == null || !outbox.open()) {
            return Mono.error(new IllegalStateException("this MCP request cannot carry messages to the client"
                    + " (over HTTP it must accept text/event-stream), so its model cannot be asked"));
        }
        if (!outbox.canSample()) {
            return Mono.error(new IllegalStateException("the MCP client did not declare the sampling capability"));
        }
        return outbox.request(McpSchema.METHOD_SAMPLING_CREATE_MESSAGE, request, timeout)
                .switchIfEmpty(Mono.error(() -> new TimeoutException("the MCP client's model did not answer within "
                        + timeout.toMillis() + " ms")))
                .map(response -> {
                    if (response.error() != null) {
                        throw new McpCallException("the MCP client refused sampling/createMessage: "
                                + response.error().message());
                    }
                    try {
                        return mapper.convertValue(response.result(), McpSchema.CreateMessageResult.class);
                    } catch (IllegalArgumentException e) {
                        throw new McpCallException("the MCP client answered sampling/createMessage with an invalid"
                                + " result: " + e.getMessage(), e);
                    }
                });
    }

    /** Withdraws the questions still waiting for the client. */
    void close() {
        asks.dispose();
    }
}
