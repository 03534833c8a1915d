package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.McpCallException;
import dev.toolbus.mcp.McpResults;
import dev.toolbus.mcp.McpToolHints.TaskSupport;
import dev.toolbus.mcp.internal.Wire;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.spi.Principal;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.util.concurrent.Queues;

/**
 * One {@code tools/call} of a 2026-07-28 client (or a task of a 2025-11-25 one): the executor call,
 * and where its events go while it runs.
 *
 * <p>The call runs once, in the executor, from the first request to its result; it is never re-run
 * for a retry. Its events go to whatever it is attached to: the open response of a request (progress
 * as {@code notifications/progress}, messages as {@code notifications/message} when the request set a
 * log level, the result as the response), or a task (progress and messages as its
 * {@code statusMessage}, the result as its outcome). A question (the tool's {@code ask}, sampling,
 * roots) completes the open response as an {@code input_required} result (questions asked within
 * {@link ModernCalls#GATHER} of each other share one result) whose {@code requestState} names this
 * call; the call waits, parked, for the retry that carries the answers, which becomes the new open
 * response. In a task, a question makes the task {@code input_required} until {@code tasks/update}
 * answers it. A call that may become a task ({@link TaskSupport#OPTIONAL}, for a client that declared
 * the Tasks extension) becomes one when it is still running {@code taskAfter} after its request
 * arrived; a {@link TaskSupport#REQUIRED} one starts as a task.
 */
final class ModernCall implements CallPeer {

    private static final Logger log = LoggerFactory.getLogger(ModernCall.class);
    /** The most notifications queued for one open response. */
    static final int MAX_QUEUED = 1024;
    static final long MAX_QUEUED_BYTES = 4L * 1024 * 1024;

    private final ModernCalls ctx;
    final String handle;
    final String principal;
    /** The executor's principal of {@link #principal}: the call runs, is answered and cancelled as it. */
    final Principal caller;
    final String tool;
    final byte[] argsDigest;
    final String streamId;
    final String turnId;
    final String callId;
    final TaskSupport support;
    private final boolean legacyTask;

    // guarded by this
    private Attachment attached;
    private McpTask task;
    private ClientCaps caps;
    private final Map<String, Question> pending = new LinkedHashMap<>();
    private final Set<String> keys = new HashSet<>();
    private int round;
    private boolean stateUsed = true;
    private final List<OutboundEvent> events = new ArrayList<>();
    private ObjectNode outcome;
    private ObjectNode outcomeError;
    private boolean done;
    private boolean flushQueued;
    private Disposable flushTimer;
    private long gatherStartNanos;
    private int holds;
    private long parkedUntilMs;
    private Disposable run;
    private Disposable taskTimer;
    private Disposable ttlTimer;
    private Sinks.Many<McpTask> writes;
    private SessionOutbox legacyOutbox;
    private final Sinks.One<McpTask> ended = Sinks.one();

    ModernCall(ModernCalls ctx, String principal, String tool, byte[] argsDigest, long n, TaskSupport support,
               boolean legacyTask) {
        this.ctx = ctx;
        this.handle = ModernCalls.randomId();
        this.principal = principal;
        this.caller = ctx.callers.of(principal);
        this.tool = tool;
        this.argsDigest = argsDigest;
        this.streamId = ctx.streamId + "#m" + n;
        this.turnId = "mcp-turn-" + n;
        this.callId = "mcp_call_" + n;
        this.support = support;
        this.legacyTask = legacyTask;
    }

    /** The open response of one request: its id, its {@code _meta}, and the messages for the client. */
    static final class Attachment {
        final JsonNode requestId;
        final RequestMeta meta;
        final Sinks.Many<ObjectNode> out = Sinks.many().unicast().onBackpressureBuffer(
                Queues.<ObjectNode>get(MAX_QUEUED + 1).get());
        final AtomicInteger queued = new AtomicInteger();
        final java.util.concurrent.atomic.AtomicLong queuedBytes = new java.util.concurrent.atomic.AtomicLong();
        volatile boolean closed;

        Attachment(JsonNode requestId, RequestMeta meta) {
            this.requestId = requestId;
            this.meta = meta;
        }

        /** The messages as the transport sends them; cancelling it is the client going away. */
        Flux<ObjectNode> flux(Runnable onCancel) {
            return out.asFlux()
                    .doOnNext(m -> {
                        if (m.has("method")) {
                            queued.decrementAndGet();
                            queuedBytes.addAndGet(-weight(m));
                        }
                    })
                    .doOnCancel(() -> {
                        closed = true;
                        onCancel.run();
                    });
        }

        void notify(ObjectNode n) {
            if (closed) {
                return;
            }
            long w = weight(n);
            if (queued.incrementAndGet() > MAX_QUEUED || queuedBytes.addAndGet(w) > MAX_QUEUED_BYTES) {
                queued.decrementAndGet();
                queuedBytes.addAndGet(-w);
                log.warn("MCP request {}: too many notifications queued for the client; one dropped", requestId);
                return;
            }
            out.tryEmitNext(n);
        }

        void respond(ObjectNode response) {
            closed = true;
            out.tryEmitNext(response);
            out.tryEmitComplete();
        }

        private static long weight(ObjectNode n) {
            return n.toString().length();
        }
    }

    /** A question waiting for the client's answer. */
    private static final class Question {
        final String key;
        final String kind;
        final ObjectNode request;
        final InputRequestEvent event;
        final Sinks.One<JsonNode> answer;
        final long expiresAtMs;

        Question(String key, String kind, ObjectNode request, InputRequestEvent event, Sinks.One<JsonNode> answer,
                 long expiresAtMs) {
            this.key = key;
            this.kind = kind;
            this.request = request;
            this.event = event;
            this.answer = answer;
            this.expiresAtMs = expiresAtMs;
        }
    }

    // ---------------------------------------------------------------- starting

    /** Runs the call for a fresh request; answers on the returned messages (a sync call, or a task). */
    Flux<ObjectNode> start(ModernRequest req, ObjectNode arguments) {
        Attachment a = new Attachment(req.id(), req.meta());
        boolean asTask = support == TaskSupport.REQUIRED && req.meta().caps().tasks();
        synchronized (this) {
            caps = req.meta().caps();
            if (!asTask) {
                attached = a;
            }
        }
        ToolCallsEvent turn = new ToolCallsEvent(streamId, turnId, List.of(ToolCall.of(callId, tool, arguments)),
                req.context(), null, req.meta().trace());
        Flux<ObjectNode> messages = a.flux(() -> detached(a));
        if (asTask) {
            // the task exists (readable) before the handler runs; the client hears of it once the call runs
            return Mono.defer(() -> promote(a, req.meta().caps(), false, () -> run(turn)))
                    .thenMany(messages)
                    .onErrorResume(IllegalStateException.class, e -> Flux.just(ModernError.internal(
                            "no task can be created now: " + e.getMessage()).response(req.id())));
        }
        return messages.doOnSubscribe(s -> {
            run(turn);
            armTaskTimer(a);
        });
    }

    private void run(ToolCallsEvent turn) {
        ctx.sampling.register(streamId, turnId, callId, this);
        Disposable d = ctx.executor.execute(turn, caller).subscribe(this::onEvent, this::onError, this::onComplete);
        synchronized (this) {
            run = d;
            if (done) {
                d.dispose();
            }
        }
    }

    /** An {@link TaskSupport#OPTIONAL} call becomes a task when it is still running {@code taskAfter} from now. */
    private void armTaskTimer(Attachment a) {
        if (support == TaskSupport.FORBIDDEN || !a.meta.caps().tasks() || legacyTask) {
            return;
        }
        Disposable t = Mono.delay(ctx.taskAfter, Schedulers.parallel())
                .flatMap(x -> promote(a, a.meta.caps(), true, () -> { }))
                .subscribe(null, e -> log.warn("MCP call {} could not become a task: {}", callId, e.toString()));
        synchronized (this) {
            if (taskTimer != null) {
                taskTimer.dispose();
            }
            taskTimer = t;
        }
    }

    /**
     * Makes the call a task: stores it, then answers {@code a} with the {@code CreateTaskResult}.
     *
     * @param onlyIfRunning the optional case: nothing happens when the call ended, is waiting for an
     *     answer, or is no longer attached to {@code a}
     * @param beforeAnswer runs once the task is stored, before the client is answered
     */
    private Mono<Void> promote(Attachment a, ClientCaps taskCaps, boolean onlyIfRunning, Runnable beforeAnswer) {
        McpTask t;
        synchronized (this) {
            if (onlyIfRunning && (done || attached != a || !pending.isEmpty() || task != null)) {
                return Mono.empty();
            }
            Instant now = ctx.clock.instant();
            t = new McpTask(ModernCalls.randomId(), principal, streamId, turnId, callId, tool, legacyTask,
                    McpTask.Status.WORKING, null, now, now, ctx.taskTtl, ctx.pollInterval, null, null, null);
            task = t;
            caps = taskCaps;
            if (attached == a) {
                attached = null;
            }
            writes = Sinks.many().unicast().onBackpressureBuffer();
        }
        ctx.byTask.put(t.taskId(), this);
        return ctx.tasks.create(t)
                .doOnSuccess(x -> {
                    beforeAnswer.run();
                    startWriter(t.taskId());
                    ttlTimer = Mono.delay(ctx.taskTtl, Schedulers.parallel()).subscribe(y -> expire());
                    a.respond(Wire.response(a.requestId, ctx.createTaskResult(t)));
                    ctx.subscriptions.taskChanged(t, ctx.taskJson(t, true));
                    flushLater();
                })
                .doOnError(e -> {
                    ctx.byTask.remove(t.taskId());
                    synchronized (this) {
                        task = null;
                    }
                });
    }

    /** Later task states go to the store one after another, each the whole value. */
    private void startWriter(String taskId) {
        Sinks.Many<McpTask> w;
        synchronized (this) {
            w = writes;
        }
        w.asFlux().onBackpressureLatest()
                .concatMap(next -> ctx.tasks.update(taskId, old -> next).onErrorResume(e -> {
                    log.warn("MCP task {}: storing its state failed: {}", taskId, e.toString());
                    return Mono.empty();
                }), 1)
                .subscribe(t -> ctx.subscriptions.taskChanged(t, ctx.taskJson(t, true)));
    }

    /** Records a new task state (the caller holds the monitor). */
    private void write(McpTask next) {
        task = next;
        if (writes != null) {
            writes.tryEmitNext(next);
        }
    }

    // ---------------------------------------------------------------- retries

    /**
     * A retry of an {@code input_required} result: the answers it carries go to the questions, and
     * its response becomes the call's open response.
     *
     * @throws ModernError when the state was used already or the call is not waiting for a retry
     */
    Flux<ObjectNode> retry(ModernRequest req, RequestStateCodec.State state, JsonNode answers) {
        Attachment a = new Attachment(req.id(), req.meta());
        List<Runnable> after = new ArrayList<>();
        synchronized (this) {
            if (state.round() != round || stateUsed || attached != null || task != null) {
                throw ModernError.invalidParams("requestState rejected: it was used already");
            }
            stateUsed = true;
            caps = req.meta().caps();
            deliver(answers, after);
            attached = a;
            ctx.unpark(this);
            if (done) {
                a.respond(outcomeError != null ? errorResponse(req.id(), outcomeError)
                        : outcome != null ? Wire.response(req.id(), outcome)
                        : Wire.error(req.id(), Wire.REQUEST_CANCELLED, "the call was cancelled", null));
                attached = null;
            } else if (!pending.isEmpty()) {
                flushQueued = true;
                after.add(this::flush);
            }
        }
        after.forEach(Runnable::run);
        return a.flux(() -> detached(a)).doOnSubscribe(s -> armTaskTimer(a));
    }

    /**
     * Hands the answers of {@code answers} (key → result) to the questions they name; the rest stay
     * pending. The work that must run outside the monitor goes into {@code after}.
     */
    private void deliver(JsonNode answers, List<Runnable> after) {
        if (answers == null || !answers.isObject()) {
            return;
        }
        for (var it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Question> e = it.next();
            JsonNode answer = answers.get(e.getKey());
            Question q = e.getValue();
            if (answer == null || !answer.isObject() || !valid(q, answer)) {
                continue;
            }
            it.remove();
            if (q.event != null) {
                InputAction action = InputAction.valueOf(answer.path("action").asText().toUpperCase(java.util.Locale.ROOT));
                JsonNode content = action == InputAction.ACCEPT && answer.path("content").isObject()
                        ? answer.get("content") : null;
                after.add(() -> answerQuestion(q.event, action, content));
            } else {
                after.add(() -> q.answer.tryEmitValue(answer));
            }
        }
    }

    /** Whether an answer has the shape of the result its request asks for. */
    private static boolean valid(Question q, JsonNode answer) {
        return switch (q.kind) {
            case "elicitation/create" -> {
                String action = answer.path("action").asText("");
                yield (action.equals("accept") || action.equals("decline") || action.equals("cancel"))
                        && (answer.get("content") == null || answer.get("content").isObject()
                        || answer.get("content").isNull());
            }
            case "sampling/createMessage" -> answer.path("content").isObject() || answer.path("content").isArray();
            case "roots/list" -> answer.path("roots").isArray();
            default -> false;
        };
    }

    private void answerQuestion(InputRequestEvent r, InputAction action, JsonNode content) {
        ctx.executor.control(new InputResponseEvent(r.streamId(), r.inputId(), action, content), caller)
                .subscribeOn(Schedulers.parallel())
                .subscribe(o -> log.debug("input_response for {}: {}", r.inputId(), o),
                        e -> log.warn("input_response for {} failed: {}", r.inputId(), e.toString()));
    }

    /** {@code tasks/update}: answers to the task's questions (unknown and answered keys are ignored). */
    void update(JsonNode answers) {
        List<Runnable> after = new ArrayList<>();
        synchronized (this) {
            if (task == null || done) {
                return;
            }
            deliver(answers, after);
            write(task.waiting(requests(), ctx.clock.instant()));
        }
        after.forEach(Runnable::run);
    }

    /** {@code tasks/cancel}: cancels the executor call (its handler sees the cancel); the task ends cancelled. */
    void cancelTask(String reason) {
        synchronized (this) {
            if (done) {
                return;
            }
        }
        ctx.executor.control(CancelEvent.builder().streamId(streamId).turnId(turnId).toolCallId(callId).reason(reason)
                        .build(), caller)
                .subscribeOn(Schedulers.parallel())
                .subscribe(o -> {
                    if (o != dev.toolbus.spi.ControlOutcome.APPLIED) {
                        // not (or no longer) in the executor: end the subscription and the task
                        finishCancelled();
                    }
                }, e -> finishCancelled());
    }

    private void finishCancelled() {
        Disposable d;
        synchronized (this) {
            if (done) {
                return;
            }
            d = run;
        }
        if (d != null) {
            d.dispose();
        }
        finish(null, McpTask.Status.CANCELLED, null);
    }

    /** A task that outlived its TTL is cancelled and ends failed. */
    private void expire() {
        synchronized (this) {
            if (done) {
                return;
            }
        }
        log.info("MCP task of call {} outlived its TTL of {}; cancelled", callId, ctx.taskTtl);
        Disposable d;
        synchronized (this) {
            d = run;
        }
        if (d != null) {
            d.dispose();
        }
        finish(null, McpTask.Status.FAILED, Wire.error(null, Wire.INTERNAL_ERROR, "the task outlived its TTL of "
                + ctx.taskTtl.toMillis() + " ms", null).get("error").deepCopy());
    }

    /** The client closed the response stream of {@code a} (HTTP) or cancelled its request (stdio). */
    void detached(Attachment a) {
        Disposable d = null;
        synchronized (this) {
            if (attached != a || done) {
                return;
            }
            attached = null;
            d = run;
            done = true;
        }
        log.debug("MCP call {} cancelled: the client went away", callId);
        if (d != null) {
            d.dispose();
        }
        end();
    }

    // ---------------------------------------------------------------- events

    private void onEvent(OutboundEvent e) {
        if (e instanceof ToolProgressEvent p) {
            synchronized (this) {
                if (attached != null && attached.meta.progressToken() != null) {
                    ObjectNode params = Wire.object();
                    params.set("progressToken", attached.meta.progressToken());
                    params.put("progress", p.progress());
                    if (p.total() != null) {
                        params.put("total", p.total());
                    }
                    if (p.message() != null && !p.message().isEmpty()) {
                        params.put("message", p.message());
                    }
                    attached.notify(Wire.notification("notifications/progress", params));
                } else if (task != null && !done) {
                    String text = fmt(p.progress()) + (p.total() == null ? "" : "/" + fmt(p.total()))
                            + (p.message() == null || p.message().isEmpty() ? "" : ": " + p.message());
                    write(task.message(text, ctx.clock.instant()));
                }
            }
            return;
        }
        if (e instanceof SendMessageEvent m) {
            String text = LiveEvents.text(m);
            synchronized (this) {
                if (attached != null) {
                    if (attached.meta.logs("info")) {
                        ObjectNode params = Wire.object().put("level", "info").put("logger", LiveEvents.LOGGER);
                        params.put("data", text);
                        attached.notify(Wire.notification("notifications/message", params));
                    }
                } else if (task != null && !done) {
                    write(task.message(text, ctx.clock.instant()));
                }
            }
            return;
        }
        if (e instanceof InputRequestEvent r) {
            ask(r);
            return;
        }
        if (e instanceof ApprovalRequestEvent a) {
            approval(a);
            return;
        }
        synchronized (this) {
            events.add(e);
        }
    }

    private static String fmt(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    private void ask(InputRequestEvent r) {
        ObjectNode params = Wire.object();
        if (r.urlMode()) {
            params.put("mode", "url").put("message", r.message()).put("url", r.url());
        } else {
            params.put("mode", "form").put("message", r.message());
            if (r.schema() != null && r.schema().isObject()) {
                params.set("requestedSchema", r.schema());
            } else {
                params.putObject("requestedSchema").put("type", "object").putObject("properties");
            }
        }
        ObjectNode request = Wire.object().put("method", "elicitation/create");
        request.set("params", params);
        String missing = null;
        synchronized (this) {
            if (!canElicit(r.urlMode())) {
                missing = r.urlMode() ? "elicitation.url" : "elicitation";
            } else {
                String key = uniqueKey(r.key() != null ? r.key() : r.inputId());
                pending.put(key, new Question(key, "elicitation/create", request, r, null, r.expiresAtMs()));
            }
        }
        if (missing != null) {
            refuse(missing, () -> answerQuestion(r, InputAction.CANCEL, null));
            return;
        }
        flushLater();
    }

    /**
     * An {@code approval_request} is a question too (as on the 2025 wire): an {@code elicitation/create}
     * with the request's text and an empty schema, whose {@code accept} approves; anything else denies,
     * and so does a client that cannot be asked.
     */
    private void approval(ApprovalRequestEvent r) {
        ObjectNode params = Wire.object().put("mode", "form").put("message", r.text());
        params.putObject("requestedSchema").put("type", "object").putObject("properties");
        ObjectNode request = Wire.object().put("method", "elicitation/create");
        request.set("params", params);
        Sinks.One<JsonNode> answer = Sinks.one();
        boolean asked;
        synchronized (this) {
            asked = canElicit(false) && !done;
            if (asked) {
                String key = uniqueKey("approval");
                pending.put(key, new Question(key, "elicitation/create", request, null, answer, r.expiresAtMs()));
            }
        }
        if (!asked) {
            decide(r, dev.toolbus.protocol.ApprovalDecision.DENY);
            return;
        }
        answer.asMono().subscribe(a -> decide(r, "accept".equals(a.path("action").asText())
                ? dev.toolbus.protocol.ApprovalDecision.APPROVE : dev.toolbus.protocol.ApprovalDecision.DENY),
                e -> log.debug("MCP approval {} ended without an answer: {}", r.approvalId(), e.toString()));
        flushLater();
    }

    private void decide(ApprovalRequestEvent r, dev.toolbus.protocol.ApprovalDecision decision) {
        ctx.executor.control(new dev.toolbus.protocol.ApprovalResponseEvent(r.streamId(), r.approvalId(), decision), caller)
                .subscribeOn(Schedulers.parallel())
                .subscribe(o -> log.debug("approval_response for {}: {}", r.approvalId(), o),
                        e -> log.warn("approval_response for {} failed: {}", r.approvalId(), e.toString()));
    }

    /**
     * The client cannot be asked what the tool asks: an open request fails with -32021 (the call is
     * cancelled); a task's question is answered by {@code otherwise}.
     */
    private void refuse(String capability, Runnable otherwise) {
        Attachment a;
        Disposable d;
        synchronized (this) {
            a = attached;
            if (a == null || done) {
                a = null;
                d = null;
            } else {
                attached = null;
                done = true;
                d = run;
            }
        }
        if (a == null) {
            otherwise.run();
            return;
        }
        a.respond(ModernError.missingCapability(capability, ClientCaps.required(capability)).response(a.requestId));
        if (d != null) {
            d.dispose();
        }
        end();
    }

    private String uniqueKey(String wanted) {
        String key = wanted;
        for (int i = 2; !keys.add(key); i++) {
            key = wanted + "." + i;
        }
        return key;
    }

    /**
     * Sends the pending questions soon, so that questions asked together share one result: the flush
     * waits {@link ModernCalls#GATHER} after the latest question, at most {@link ModernCalls#GATHER_MAX}
     * after the first.
     */
    private void flushLater() {
        Disposable old;
        synchronized (this) {
            if (done || pending.isEmpty()) {
                return;
            }
            long now = System.nanoTime();
            if (!flushQueued) {
                flushQueued = true;
                gatherStartNanos = now;
            } else if (flushTimer == null && holds == 0) {
                return; // a flush runs at once (a retry's)
            }
            old = flushTimer;
            flushTimer = null;
            if (holds == 0) {
                long left = ModernCalls.GATHER_MAX.toNanos() - (now - gatherStartNanos);
                long delay = Math.max(0, Math.min(ModernCalls.GATHER.toNanos(), left));
                flushTimer = Schedulers.parallel().schedule(this::flush, delay, java.util.concurrent.TimeUnit.NANOSECONDS);
            }
        }
        if (old != null) {
            old.dispose();
        }
    }

    @Override
    public Runnable hold() {
        synchronized (this) {
            holds++;
        }
        java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
        return () -> {
            if (released.compareAndSet(false, true)) {
                synchronized (this) {
                    holds--;
                    if (holds == 0 && flushQueued && flushTimer == null) {
                        flushQueued = false; // the held flush is scheduled afresh
                    }
                }
                flushLater();
            }
        };
    }

    /** The pending questions go out: as an {@code input_required} result, as the task's state, or to a legacy task's client. */
    private void flush() {
        SessionOutbox legacy = null;
        List<Question> toLegacy = List.of();
        synchronized (this) {
            if (holds > 0) {
                return; // the release flushes
            }
            flushQueued = false;
            flushTimer = null;
            if (done || pending.isEmpty()) {
                return;
            }
            if (task != null) {
                write(task.waiting(requests(), ctx.clock.instant()));
                if (legacyTask && legacyOutbox != null) {
                    legacy = legacyOutbox;
                    toLegacy = new ArrayList<>(pending.values());
                }
            } else if (attached != null) {
                long expires = Long.MAX_VALUE;
                for (Question q : pending.values()) {
                    expires = Math.min(expires, q.expiresAtMs);
                }
                round++;
                stateUsed = false;
                ObjectNode result = Wire.object().put(Wire.RESULT_TYPE, Wire.INPUT_REQUIRED);
                result.set("inputRequests", requests());
                result.put("requestState", ctx.codec.encode(handle, principal, tool, argsDigest, round, expires));
                result.set("_meta", ctx.resultMeta(null));
                Attachment a = attached;
                attached = null;
                if (taskTimer != null) {
                    taskTimer.dispose();
                    taskTimer = null;
                }
                parkedUntilMs = expires + ModernCalls.PARK_GRACE.toMillis();
                if (!ctx.park(this)) {
                    // no room to wait for a retry: the questions are answered cancel, the call goes on
                    log.warn("MCP call {}: {} calls wait for a retry already; its questions are answered cancel",
                            callId, ctx.maxParked);
                    cancelPending();
                    attached = a;
                    return;
                }
                a.respond(Wire.response(a.requestId, result));
            }
        }
        if (legacy != null) {
            for (Question q : toLegacy) {
                ctx.legacyAsk(this, legacy, q.key, q.kind, q.request, q.event, q.answer, task);
            }
        }
    }

    private void cancelPending() {
        for (Question q : pending.values()) {
            if (q.event != null) {
                answerQuestion(q.event, InputAction.CANCEL, null);
            } else {
                q.answer.tryEmitError(new IllegalStateException("the MCP client cannot be asked now"));
            }
        }
        pending.clear();
    }

    /** The pending questions as an {@code inputRequests} object. */
    private ObjectNode requests() {
        ObjectNode o = Wire.object();
        pending.forEach((k, q) -> o.set(k, q.request));
        return o;
    }

    /** The time until which a parked call waits for its retry. */
    synchronized long parkedUntilMs() {
        return parkedUntilMs;
    }

    /** The task once it has ended (a task only). */
    Mono<McpTask> ended() {
        return ended.asMono();
    }

    /** A legacy task's {@code tasks/result} is open: its questions go to the client through {@code outbox}. */
    void legacyOutbox(SessionOutbox outbox) {
        synchronized (this) {
            legacyOutbox = outbox;
        }
        flushLater();
    }

    /** A legacy task's client answered {@code key}. */
    void legacyAnswered(String key, JsonNode answer) {
        List<Runnable> after = new ArrayList<>();
        synchronized (this) {
            ObjectNode answers = Wire.object();
            answers.set(key, answer);
            deliver(answers, after);
            if (task != null && !done) {
                write(task.waiting(requests(), ctx.clock.instant()));
            }
        }
        after.forEach(Runnable::run);
    }

    private void onError(Throwable e) {
        log.warn("MCP call {} failed: {}", callId, e.toString());
        finish(null, McpTask.Status.FAILED, Wire.error(null, Wire.INTERNAL_ERROR, String.valueOf(e.getMessage()), null)
                .get("error").deepCopy());
    }

    private void onComplete() {
        List<OutboundEvent> all;
        TraceContext trace = null;
        synchronized (this) {
            all = List.copyOf(events);
        }
        ToolResultEvent r = null;
        for (OutboundEvent e : all) {
            if (e instanceof ToolResultEvent t) {
                r = t;
                trace = t.trace();
                break;
            }
        }
        ObjectNode error = r == null ? null : McpResults.jsonRpcError(r.metadata());
        if (error == null && r != null && r.isError() && r.error() != null && r.error().code() == ErrorCode.CANCELLED) {
            synchronized (this) {
                if (task != null) {
                    finish(null, McpTask.Status.CANCELLED, null);
                    return;
                }
            }
        }
        if (error != null) {
            finish(null, McpTask.Status.FAILED, error);
            return;
        }
        ObjectNode result = ctx.mapper.valueToTree(McpResults.toCallToolResult(all, ctx.mapper));
        result.put(Wire.RESULT_TYPE, Wire.COMPLETE);
        ObjectNode meta = result.has("_meta") && result.get("_meta").isObject() ? (ObjectNode) result.get("_meta")
                : result.putObject("_meta");
        meta.setAll(ctx.resultMeta(trace));
        finish(result, McpTask.Status.COMPLETED, null);
    }

    /**
     * The call ended: with {@code result} (a {@code CallToolResult}), or with {@code error} (a
     * JSON-RPC error object), or cancelled. An open response gets it; a task takes it; a parked call
     * keeps it for its retry.
     */
    private void finish(ObjectNode result, McpTask.Status status, ObjectNode error) {
        Attachment a;
        synchronized (this) {
            if (done && task == null) {
                return;
            }
            if (task != null && task.status().terminal()) {
                return;
            }
            done = true;
            a = attached;
            attached = null;
            outcome = error != null ? null : result;
            outcomeError = error;
            if (task != null) {
                Instant now = ctx.clock.instant();
                // the inlined result is a 2026-07-28 CallToolResult, resultType included
                ObjectNode taskResult = result == null ? null : result.deepCopy();
                write(task.ended(status, status == McpTask.Status.COMPLETED ? taskResult : null,
                        status == McpTask.Status.FAILED ? error : null, task.statusMessage(), now));
                if (writes != null) {
                    writes.tryEmitComplete();
                }
                ended.tryEmitValue(task);
            }
        }
        if (a != null) {
            if (error != null) {
                a.respond(errorResponse(a.requestId, error));
            } else if (result != null) {
                a.respond(Wire.response(a.requestId, result));
            } else {
                a.respond(Wire.error(a.requestId, Wire.REQUEST_CANCELLED, "request cancelled", null));
            }
        }
        end();
    }

    private static ObjectNode errorResponse(JsonNode id, ObjectNode error) {
        ObjectNode m = Wire.object().put("jsonrpc", "2.0");
        m.set("id", id);
        m.set("error", error);
        return m;
    }

    /** Forgets the call everywhere but in the task store (and, parked, until its retry comes). */
    private void end() {
        ctx.sampling.unregister(streamId, turnId, callId, this);
        synchronized (this) {
            if (taskTimer != null) {
                taskTimer.dispose();
            }
            if (ttlTimer != null) {
                ttlTimer.dispose();
            }
            for (Question q : pending.values()) {
                if (q.answer != null) {
                    q.answer.tryEmitError(new IllegalStateException("the call ended"));
                }
            }
            pending.clear();
            if (task != null) {
                ctx.byTask.remove(task.taskId());
            }
        }
    }

    // ---------------------------------------------------------------- the peer of sampling and roots

    @Override
    public synchronized boolean canSample() {
        return caps != null && caps.sampling();
    }

    @Override
    public synchronized boolean canListRoots() {
        return caps != null && caps.roots();
    }

    @Override
    public synchronized boolean canElicit(boolean url) {
        return caps != null && (url ? caps.elicitUrl() : caps.elicitForm());
    }

    @Override
    public Mono<McpSchema.CreateMessageResult> sample(String key, McpSchema.CreateMessageRequest request,
            Duration timeout) {
        ObjectNode r = Wire.object().put("method", "sampling/createMessage");
        r.set("params", ctx.mapper.valueToTree(request));
        return clientRequest("sampling", key == null ? "sampling" : key, r, timeout)
                .map(answer -> {
                    try {
                        return ctx.mapper.convertValue(answer, McpSchema.CreateMessageResult.class);
                    } catch (IllegalArgumentException e) {
                        throw new McpCallException("the MCP client answered sampling/createMessage with an invalid"
                                + " result: " + e.getMessage(), e);
                    }
                });
    }

    @Override
    public Mono<McpSchema.ListRootsResult> listRoots(String key, Duration timeout) {
        ObjectNode r = Wire.object().put("method", "roots/list");
        r.putObject("params");
        return clientRequest("roots", key == null ? "roots" : key, r, timeout)
                .map(answer -> {
                    try {
                        return ctx.mapper.convertValue(answer, McpSchema.ListRootsResult.class);
                    } catch (IllegalArgumentException e) {
                        throw new McpCallException("the MCP client answered roots/list with an invalid result: "
                                + e.getMessage(), e);
                    }
                });
    }

    private Mono<JsonNode> clientRequest(String capability, String wantedKey, ObjectNode request, Duration timeout) {
        return Mono.defer(() -> {
            Sinks.One<JsonNode> answer = Sinks.one();
            boolean allowed;
            synchronized (this) {
                allowed = capability.equals("sampling") ? canSample() : canListRoots();
                if (allowed && !done) {
                    String key = uniqueKey(wantedKey);
                    pending.put(key, new Question(key, request.path("method").asText(), request, null, answer,
                            ctx.clock.millis() + timeout.toMillis()));
                }
            }
            if (!allowed) {
                refuse(capability, () -> { });
                return Mono.error(new IllegalStateException("the MCP client did not declare the " + capability
                        + " capability"));
            }
            flushLater();
            return answer.asMono().timeout(timeout, Mono.error(() -> new TimeoutException("the MCP client did not"
                    + " answer " + request.path("method").asText() + " within " + timeout.toMillis() + " ms")));
        });
    }
}
