package dev.toolbus.executor.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.limits.LimitStep;
import dev.toolbus.metrics.CallRecord;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.MediaRef;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.result.SplitResult;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.CutKey;
import dev.toolbus.spi.GatedCall;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.tool.InputAnswer;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolConversation;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.Visibility;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * One call of a turn, from name resolution to its {@code tool_result}: tool lookup, policy, argument
 * parsing, context fields, validation, the {@link CallGate} (if any), cache (single flight), a slot,
 * the handler under its timeout, and retries where allowed. Every path ends in exactly one
 * {@link TurnRun#complete}. The call is its handler's {@link ToolConversation}, backed by a
 * {@link CallEvents} made on first use.
 */
final class CallRun implements ToolConversation, Runnable, AttemptOutcome.Listener {

    private static final AtomicIntegerFieldUpdater<CallRun> DONE =
            AtomicIntegerFieldUpdater.newUpdater(CallRun.class, "done");

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CallRun.class);
    private static final String UNKNOWN_TAG = "unknown";
    static final long MAX_BACKOFF_MS = 3_000;
    static final long BASE_BACKOFF_MS = 200;

    private final Pipeline p;
    private final TurnRun turn;
    private final int index;
    private final ToolCall call;
    private ToolDefinition def;
    /** The registry's entry of the tool (its handler and source), once resolved. */
    private ToolRegistry.Entry entry;
    /** The definition's compiled checks and meters, once resolved. */
    private ToolPlan plan;
    private ToolArguments args;
    private CacheKey cacheKey;
    private CompletableFuture<ResultCache.Flight> flight;
    private int attempts;
    /** The call's {@code tool_result} once it ended, and its media follow-ups; guarded by the turn's monitor. */
    ToolResultEvent emitted;
    List<UserMessageEvent> followUps;
    private volatile HandlerRun running;
    private volatile Disposable gateWait;
    /** The call's pass through the limits (permits it holds are released when it completes). */
    private volatile LimitStep.Admission limit;
    /** What the approval step did, for the call log. */
    private volatile String approval = "";
    private volatile boolean cancelled;
    private volatile int done;
    private volatile CallEvents events;
    /** Set when a control cancel ended the call: the call log's detail is made of {@link #cancelReason}. */
    private volatile boolean cancelEvent;
    /** The arguments a human's approval edited (the call runs with them), or null. */
    private volatile ObjectNode edited;
    /**
     * Why the call was cancelled, as given (the handler's {@code ToolContext.cancelReason()}, where null
     * or blank reads {@code cancelled}).
     */
    private volatile String cancelReason = ToolContext.CANCELLED;
    /** The call's pass through the call journal, once it asked it (calls that are not retry-safe), else null. */
    private volatile JournaledCall journal;

    CallRun(Pipeline p, TurnRun turn, int index, ToolCall call) {
        this.p = p;
        this.turn = turn;
        this.index = index;
        this.call = call;
    }

    void start() {
        if (cancelled) {
            fail(UNKNOWN_TAG, ErrorCode.CANCELLED, p.texts.cancelled(call.name()));
            return;
        }
        String name = call.name();
        ToolRegistry.Entry entry = name.isEmpty() ? null : p.registry.find(name);
        if (entry == null) {
            fail(UNKNOWN_TAG, ErrorCode.UNKNOWN_TOOL, name.isEmpty() ? p.texts.noToolName() : p.texts.unknownTool(name));
            return;
        }
        def = entry.tool().definition();
        this.entry = entry;
        ToolCallsEvent t = turn.turn;
        CallContext ctx = t.context();
        if (def.visibility() == Visibility.HIDDEN) {
            fail(name, ErrorCode.NOT_AVAILABLE, p.texts.notAvailable(name));
            return;
        }
        ToolPolicy.Decision decision = p.policy.decide(def, t.streamId(), ctx);
        if (!decision.allowed()) {
            fail(name, decision.code(), decision.reason().isEmpty() ? p.texts.notAvailable(name) : decision.reason());
            return;
        }
        plan = p.plan(def);
        if (p.cache != null && plan.cacheable && answeredFromCache()) {
            return;
        }
        ArgumentRules rules = plan.rules;
        ObjectNode raw = parseArguments(name, rules);
        if (raw == null) {
            return;
        }
        ObjectNode filled = def.isLegacyAction()
                ? ContextFields.legacyActionPayload(raw, t.streamId(), ctx)
                : ContextFields.fill(raw, rules, t.streamId(), ctx);
        ArgumentRules.Violation v = rules.check(def.isLegacyAction() ? raw : filled);
        if (v != null) {
            fail(name, ErrorCode.INVALID_ARGUMENTS, v.message(p.texts, name));
            return;
        }
        args = ToolArguments.of(filled);
        RuleStep.Decision ruled = RuleStep.decide(p, turn, call, def, entry.source(), filled);
        if (ruled.refusal() != null) {
            fail(name, ruled.refusal());
            return;
        }
        if (p.gate != null) {
            Mono<ErrorInfo> verdict = p.gate.admit(new GatedCall(turn, index, call, def, filled, this::noteApproval,
                    ruled.ask(), this::edit));
            if (verdict != null) {
                awaitGate(verdict, filled);
                return;
            }
        }
        proceed(filled);
    }

    /**
     * A cache hit found by the raw argument text, before the arguments are parsed, filled and checked
     * (they were, under this same definition, when the entry was made). Taken only where nothing
     * between the checks and the cache reads the arguments: no rules, no gate, no limits, no context
     * fields. The caller check and the cancel check run as on the usual way; a miss, a pending flight
     * or text that is not canonical go the usual way (with the key made here, if any).
     *
     * @return whether the call was answered
     */
    private boolean answeredFromCache() {
        String json = call.argumentsJson();
        if (json == null || call.arguments() != null || p.gate != null || p.rules != null || p.limits != null
                || def.isLegacyAction() || plan.rules.declaresContextFields()) {
            return false;
        }
        ToolCallsEvent t = turn.turn;
        CacheKey key = p.cache.rawKey(def, json, def.cacheScope(), t.streamId(), t.context().userId());
        ResultCache.Flight hit = key == null ? null : p.cache.hit(key);
        if (hit == null) {
            // the key of the parsed arguments would equal it (nothing fills or edits them on this way)
            cacheKey = key;
            return false;
        }
        RuleStep.Decision ruled = RuleStep.decide(p, turn, call, def, entry.source(), null);
        if (ruled.refusal() != null) {
            fail(def.name(), ruled.refusal());
        } else if (cancelled) {
            failure(new CallFailure(ErrorCode.CANCELLED, p.texts.cancelled(def.name())));
        } else {
            p.metrics.cache(true);
            fromFlight(hit);
        }
        return true;
    }

    /** Past the gate: the limits (if any), the cache (single flight), else a slot. */
    private void proceed(ObjectNode filled) {
        if (cancelled) {
            failure(new CallFailure(ErrorCode.CANCELLED, p.texts.cancelled(def.name())));
            return;
        }
        if (p.limits != null && limit == null) {
            LimitStep.Admission a = p.limits.admit(turn.turn, index, def, entry.source());
            limit = a;
            if (done != 0) {
                a.release();
                return;
            }
            Mono<ErrorInfo> verdict = a.verdict();
            if (verdict != null) {
                awaitGate(verdict, filled);
                return;
            }
        }
        ToolCallsEvent t = turn.turn;
        String name = def.name();
        if (p.cache != null && plan.cacheable && (cacheKey != null
                || (cacheKey = p.cache.key(def, filled, def.cacheScope(), t.streamId(), t.context()
                        .userId())) != null)) {
            CompletableFuture<ResultCache.Flight> mine = null;
            CompletableFuture<ResultCache.Flight> prior = p.cache.find(cacheKey);
            if (prior == null) {
                mine = new CompletableFuture<>();
                prior = p.cache.join(cacheKey, mine);
            }
            if (prior != null) {
                p.metrics.cache(true);
                if (prior.isDone()) {
                    fromFlight(prior.join());
                } else {
                    prior.whenComplete((f, err) -> {
                        try {
                            fromFlight(f);
                        } catch (Throwable e) {
                            crash(e);
                        }
                    });
                }
                return;
            }
            p.metrics.cache(false);
            flight = mine;
        }
        if (!def.retrySafe()) {
            beginJournal();
            return;
        }
        attempt(1);
    }

    /**
     * A call that is not retry-safe asks the journal first (with its turn's other calls of the wave):
     * never started → it runs; started before → {@code OUTCOME_UNKNOWN}; finished before → its recorded
     * events, marked replayed; the journal failing → {@code STATE_UNAVAILABLE}, the call does not start.
     */
    private void beginJournal() {
        JournaledCall j = new JournaledCall(turn.key().call(call.toolCallId()));
        journal = j;
        if (done != 0) {
            // ended meanwhile (a cancel): it never ran, and the journal was not asked
            return;
        }
        turn.journalBegin(j, (entry, err) -> {
            try {
                journalAnswered(entry, err);
            } catch (Throwable t) {
                crash(t);
            }
        });
    }

    private void journalAnswered(CallJournal.Entry e, Throwable err) {
        if (err != null) {
            LOG.warn("call {} of {} not started: the call journal failed: {}", call.toolCallId(), def.name(),
                    err.toString());
            fail(def.name(), ErrorCode.STATE_UNAVAILABLE, p.texts.stateUnavailable(def.name(), CallFailure.message(err)));
            return;
        }
        JournaledCall j = journal;
        if (e.isNew()) {
            j.started = true;
            ToolResultEvent ended = j.endedWith;
            if (done != 0) {
                if (ended != null) {
                    // cancelled while the journal answered: record how it ended, so a repeat does not call it unknown
                    p.journals.finish(turn.state.journal(), j.key, List.of(ended), x -> { });
                }
                return;
            }
            attempt(1);
        } else if (e.isStarted()) {
            p.metrics.journal(false);
            j.detail = "outcome unknown: started before its turn was run again";
            fail(def.name(), ErrorCode.OUTCOME_UNKNOWN, p.texts.outcomeUnknown(def.name()));
        } else {
            p.metrics.journal(true);
            j.detail = "replayed from the call journal";
            replay(j, e.events());
        }
    }

    /** Completes the call with the events it finished with before (emitted marked replayed). */
    private void replay(JournaledCall j, List<dev.toolbus.protocol.OutboundEvent> events) {
        ToolCallsEvent t = turn.turn;
        ToolResultEvent result = null;
        List<UserMessageEvent> messages = new ArrayList<>(0);
        for (dev.toolbus.protocol.OutboundEvent ev : events) {
            if (result == null && ev instanceof ToolResultEvent r) {
                result = r;
            } else if (ev instanceof UserMessageEvent u) {
                messages.add(u);
            }
        }
        if (result == null) {
            result = ToolResultEvent.builder().streamId(t.streamId()).turnId(t.turnId()).toolCallId(call.toolCallId())
                    .name(call.name()).content(p.texts.finishedResultNotKept(def.name())).build();
        }
        j.replayed = true;
        complete(def.name(), result.isError() && result.error() != null ? outcomeTag(result.error().code()) : OK,
                result, messages, p.nanoClock.getAsLong());
    }

    /** Waits for the gate's verdict: run on empty, fail with the error it gives. */
    private void awaitGate(Mono<ErrorInfo> verdict, ObjectNode filled) {
        boolean[] refused = new boolean[1];
        gateWait = verdict.subscribe(
                e -> {
                    refused[0] = true;
                    fail(def.name(), e);
                },
                e -> failure(new CallFailure(ErrorCode.TOOL_FAILED, CallFailure.message(e))),
                () -> {
                    gateWait = null;
                    if (!refused[0]) {
                        ObjectNode e = edited;
                        proceed(e != null ? e : filled);
                    }
                });
        if (cancelled) {
            gateWait.dispose();
        }
    }

    String id() {
        return call.toolCallId();
    }

    /** Marks a call of a turn that has not started yet as cancelled: it ends {@code CANCELLED} at start. */
    void stopBeforeStart(String reason) {
        cancelReason = reason;
        cancelEvent = true;
        cancelled = true;
    }

    /**
     * A control cancel: stops the handler (disposed, interrupted, context cancelled) or the wait for a
     * gate, slot or retry, and ends the call {@code CANCELLED} now.
     *
     * @return whether the call was unfinished
     */
    boolean stop(String reason) {
        if (done != 0) {
            return false;
        }
        cancelReason = reason;
        cancelEvent = true;
        cancelled = true;
        HandlerRun r = running;
        if (r != null) {
            r.abort(cancelReason);
        }
        Disposable g = gateWait;
        if (g != null) {
            g.dispose();
        }
        if (done == 0) {
            failure(new CallFailure(ErrorCode.CANCELLED, p.texts.cancelled(def == null ? call.name() : def.name())));
        }
        return true;
    }

    private void noteApproval(String outcome) {
        approval = outcome;
    }

    /**
     * A human's edit of the arguments, at the gate: the policy decides again and the edit is validated
     * like the model's arguments; taken, the call runs with it. Answers the error that refuses it, or null.
     */
    private ErrorInfo edit(ObjectNode raw) {
        ToolCallsEvent t = turn.turn;
        CallContext ctx = t.context();
        ToolPolicy.Decision decision = p.policy.decide(def, t.streamId(), ctx);
        if (!decision.allowed()) {
            return new ErrorInfo(decision.code(), decision.reason().isEmpty() ? p.texts.notAvailable(def.name())
                    : decision.reason());
        }
        ArgumentRules rules = plan.rules;
        ObjectNode copy = raw.deepCopy();
        ObjectNode filled = def.isLegacyAction()
                ? ContextFields.legacyActionPayload(copy, t.streamId(), ctx)
                : ContextFields.fill(copy, rules, t.streamId(), ctx);
        ArgumentRules.Violation v = rules.check(def.isLegacyAction() ? copy : filled);
        if (v != null) {
            return new ErrorInfo(ErrorCode.INVALID_ARGUMENTS, v.message(p.texts, def.name()));
        }
        args = ToolArguments.of(filled);
        edited = filled;
        return null;
    }

    /** The call's record in the call log; the builder in a small method of its own, as in {@link #resultEvent}. */
    private CallRecord callRecord(String outcome, ToolResultEvent event, long nanos, long now) {
        ToolCallsEvent t = turn.turn;
        String detail = logDetail(event);
        return CallRecord.builder(p.recordClock.at(now)).tool(call.name()).streamId(t.streamId()).turnId(t.turnId())
                .toolCallId(call.toolCallId()).userId(t.context().userId()).outcome(outcome)
                .durationMs(nanos / 1_000_000).attempts(event.attempts()).cached(event.cached()).detail(detail)
                .approval(approval).principal(turn.principal.key()).build();
    }

    /** The call log's detail: what the journal answered, else what cancel event ended the call, else null. */
    private String logDetail(ToolResultEvent event) {
        JournaledCall j = journal;
        if (j != null && j.detail != null) {
            return j.detail;
        }
        return cancelEvent && event.isError() && event.error().code() == ErrorCode.CANCELLED
                ? cancelDetail(cancelReason) : null;
    }

    /** The call's pass through the call journal, or null. */
    JournaledCall journal() {
        return journal;
    }

    /** Whether the call's result came from the journal (emitted marked replayed). */
    boolean replayed() {
        JournaledCall j = journal;
        return j != null && j.replayed;
    }

    /** The call log's detail of a control cancel; the reason bounded to 200 characters. */
    private static String cancelDetail(String reason) {
        if (reason == null || reason.isEmpty()) {
            return "cancel event";
        }
        return "cancel event: " + (reason.length() > 200 ? reason.substring(0, 200) + "…" : reason);
    }

    /** Abandons the call (its turn was cancelled) with the reason {@code cancelled}. */
    void cancel() {
        cancel(ToolContext.CANCELLED);
    }

    /** Abandons the call (its turn was cancelled); {@code reason} reaches the handler's context. */
    void cancel(String reason) {
        cancelReason = reason;
        cancelled = true;
        HandlerRun r = running;
        if (r != null) {
            r.abort(reason);
        }
        Disposable g = gateWait;
        if (g != null) {
            g.dispose();
            failure(new CallFailure(ErrorCode.CANCELLED, p.texts.cancelled(def.name())));
        }
    }


    private ObjectNode parseArguments(String name, ArgumentRules rules) {
        JsonNode node = call.arguments();
        if (node == null) {
            String json = call.argumentsJson();
            if (json == null || json.isBlank()) {
                return Json.mapper().createObjectNode();
            }
            try {
                node = ArgumentParser.parse(json, rules.declaredCount());
            } catch (JsonProcessingException e) {
                fail(name, ErrorCode.INVALID_ARGUMENTS, p.texts.invalidJson(name, e.getOriginalMessage()));
                return null;
            }
        }
        if (node instanceof ObjectNode o) {
            return o;
        }
        fail(name, ErrorCode.INVALID_ARGUMENTS, p.texts.notAnObject(name,
                node == null || node.isMissingNode() ? "nothing" : ArgumentRules.jsonType(node)));
        return null;
    }

    private void attempt(int n) {
        if (done != 0) {
            return;
        }
        if (!p.slots.submit(this, p.settings.maxQueuedCalls())) {
            failure(new CallFailure(ErrorCode.REJECTED, p.texts.overloaded(p.slots.queued())));
        }
    }

    /** The slot task: runs the next attempt (see {@link #runAttempt}); attempts run one after another. */
    @Override
    public void run() {
        runAttempt(attempts + 1);
    }

    /**
     * Runs with a slot held; the slot is released when the attempt ends. Never throws: anything thrown
     * on the way (an {@code Error} included) ends the attempt {@code TOOL_FAILED} and frees the slot.
     */
    private void runAttempt(int n) {
        if (cancelled || turn.cancelled() || done != 0) {
            p.slots.release();
            try {
                failure(new CallFailure(ErrorCode.CANCELLED, p.texts.cancelled(def.name())));
            } catch (Throwable t) {
                crash(t);
            }
            return;
        }
        HandlerRun run = null;
        try {
            attempts = n;
            long timeoutMs = def.timeout() != null ? def.timeout().toMillis() : p.settings.timeout().toMillis();
            run = newRun(n);
            ToolContext ctx = run.context();
            running = run;
            p.running.add(run);
            run.start(invoke(ctx), timeoutMs, p.timer);
            if (cancelled) {
                run.abort(cancelReason);
            }
        } catch (Throwable t) {
            if (run != null) {
                run.fail(t);
            } else {
                p.slots.release();
                crash(t);
            }
        }
    }

    private Mono<ToolResult> invoke(ToolContext ctx) {
        if (entry.tool().handler().isBlocking()) {
            return turn.inScope(index, new ThrowSafeMono(Mono.defer(() -> call(ctx))).subscribeOn(p.blocking));
        }
        return turn.inScope(index, call(ctx));
    }

    /** The handler's Mono; whatever it throws (an {@code Error} included) becomes the Mono's error. */
    private Mono<ToolResult> call(ToolContext ctx) {
        Mono<ToolResult> m;
        try {
            m = entry.tool().handler().call(args, ctx);
        } catch (Throwable e) {
            return Mono.error(e);
        }
        return m != null ? m : Mono.error(new IllegalStateException("the handler of " + def.name() + " returned null"));
    }

    /** The end of the running attempt (its handler run's one outcome). */
    @Override
    public void ended(AttemptOutcome o, ToolResult result, Throwable failure) {
        int n = attempts;
        p.running.remove(running);
        running = null;
        try {
            switch (o) {
                case RESULT -> success(result);
                case FAILED, TIMEOUT -> {
                    if (retryable(n)) {
                        p.metrics.retry(def.name());
                        p.timer.schedule(() -> attempt(n + 1), backoffMs(n), TimeUnit.MILLISECONDS);
                    } else if (o == AttemptOutcome.TIMEOUT) {
                        long ms = def.timeout() != null ? def.timeout().toMillis() : p.settings.timeout().toMillis();
                        failure(new CallFailure(ErrorCode.TIMEOUT, p.texts.timedOut(def.name(), ms)));
                    } else {
                        failure(new CallFailure(ErrorCode.TOOL_FAILED, CallFailure.message(failure)));
                    }
                }
                case CANCELLED -> failure(new CallFailure(ErrorCode.CANCELLED, p.texts.cancelled(def.name())));
            }
        } catch (Throwable t) {
            crash(t);
        } finally {
            p.slots.release();
        }
    }

    private boolean retryable(int n) {
        return p.settings.retryOnError() && !def.sideEffecting() && n <= p.settings.maxRetries() && !cancelled
                && !turn.cancelled();
    }

    /** Exponential backoff with jitter, capped at 3 s: about 200, 400, 800, 1600, 3000 ms. */
    static long backoffMs(int attempt) {
        long base = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS << Math.min(attempt - 1, 10));
        long jittered = base / 2 + ThreadLocalRandom.current().nextLong(base / 2 + 1);
        return Math.min(MAX_BACKOFF_MS, jittered);
    }

    /**
     * The run of attempt {@code attempt}, which is its context's handle. The context's builder lives in
     * this small method only, so the JIT inlines all of it here and never allocates the builder
     * (docs/benchmarks.md).
     */
    private HandlerRun newRun(int attempt) {
        long startNanos = attempt == 1 ? turn.handlerStartIfNow(index) : Long.MIN_VALUE;
        if (startNanos == Long.MIN_VALUE) {
            startNanos = p.nanoClock.getAsLong();
        }
        dev.toolbus.protocol.TraceContext trace = turn.callTrace(index);
        return new HandlerRun(ToolContext.builder().turn(turn.turn).toolCallId(call.toolCallId()).toolName(def.name())
                .attempt(attempt).conversation(this).trace(trace).services(turn), this, startNanos);
    }

    private void success(ToolResult result) {
        String invalid = plan.output == null || result.isError() ? null : invalidOutput(result);
        if (invalid != null) {
            failure(new CallFailure(ErrorCode.INVALID_OUTPUT, invalid));
            return;
        }
        if (flight != null) {
            CallEvents ch = eventsIfAny();
            if (ch != null && ch.asked()) {
                // the result depends on the user's answer: never served to later calls
                p.cache.landUncached(cacheKey, flight, new ResultCache.Flight(result, null));
            } else {
                p.cache.land(cacheKey, flight, new ResultCache.Flight(result, null));
            }
        }
        emit(result, false);
    }

    /** What is wrong with a successful result's data by the tool's output schema, or {@code null}. */
    private String invalidOutput(ToolResult result) {
        Object data = result.data();
        if (data == null) {
            return p.texts.noOutputData(def.name());
        }
        JsonNode node;
        try {
            node = data instanceof JsonNode n ? n : Json.mapper().valueToTree(data);
        } catch (IllegalArgumentException e) {
            return null; // emit() answers TOOL_FAILED: the data cannot be written as JSON
        }
        String problems = plan.output.problems(node);
        return problems == null ? null : p.texts.invalidOutput(def.name(), problems);
    }

    private void failure(CallFailure f) {
        if (flight != null) {
            p.cache.land(cacheKey, flight, new ResultCache.Flight(null, f));
        }
        fail(def == null ? UNKNOWN_TAG : def.name(), f.code(), f.message());
    }

    /**
     * Ends the call {@code TOOL_FAILED} after something threw where nothing should (an {@code Error}
     * included), landing its flight so identical calls do not wait forever. The caller frees any slot.
     */
    void crash(Throwable t) {
        LOG.error("call {} of {} failed unexpectedly", call.toolCallId(), call.name(), t);
        if (done != 0) {
            return;
        }
        try {
            failure(new CallFailure(ErrorCode.TOOL_FAILED, CallFailure.message(t)));
        } catch (Throwable again) {
            LOG.error("call {} could not be answered", call.toolCallId(), again);
        }
    }

    private void fromFlight(ResultCache.Flight f) {
        if (done != 0) {
            return;
        }
        if (f == null) {
            fail(def.name(), ErrorCode.TOOL_FAILED, "the shared run of an identical call ended without a result");
        } else if (f.outcome() != null && f.outcome().code() == ErrorCode.CANCELLED && !cancelled) {
            // the leader's turn was abandoned; that is no reason to fail this call: run it alone
            attempt(1);
        } else if (f.outcome() != null) {
            fail(def.name(), f.outcome().code(), f.outcome().message());
        } else {
            emit(f.result(), f.success());
        }
    }

    /** Splits a result the tool returned and completes the call with it. */
    private void emit(ToolResult result, boolean cached) {
        Object data = result.data();
        if (data != null && !(data instanceof JsonNode)) {
            try {
                data = Json.mapper().valueToTree(data);
            } catch (IllegalArgumentException e) {
                fail(def.name(), ErrorCode.TOOL_FAILED, "The result data of " + def.name()
                        + " cannot be encoded as JSON: " + e.getMessage());
                return;
            }
        }
        String text = p.splitter.text(call.name(), result);
        if (text != null && !p.cutter.cuts(def, text)) {
            // nothing to split off and nothing to cut: the text goes out as it is
            emit(result, data, text, null, List.of(), List.of(), cached, null);
            return;
        }
        SplitResult whole = p.splitter.split(call.toolCallId(), call.name(), result);
        @SuppressWarnings("unchecked")
        Mono<Boolean>[] kept = new Mono[1];
        SplitResult split = p.cutter.cut(def, call.toolCallId(), whole, (id, t, limit) -> {
            if (!p.cutter.fits(turn.turn.streamId(), id, t)) {
                return false;
            }
            kept[0] = Mono.defer(() -> turn.state.cutResults().put(CutKey.of(turn.principal, turn.turn.streamId(), id),
                    t, limit));
            return true;
        });
        emit(result, ResultCutter.data(whole, split, data), split.content(), split.error(), split.media(),
                split.messages(), cached, kept[0]);
    }

    /**
     * Completes the call with its result's text, as split and cut; {@code kept} (or null) writes the full
     * text of a cut result, which happens before the result goes out.
     */
    private void emit(ToolResult result, Object data, String content, ErrorInfo splitError, List<MediaRef> media,
                      List<SplitResult.MediaMessage> mediaMessages, boolean cached, Mono<Boolean> kept) {
        long now = p.nanoClock.getAsLong();
        ToolCallsEvent t = turn.turn;
        ErrorInfo error = null;
        if (splitError != null) {
            error = splitError;
            content = splitError.message();
        } else if (result.isError()) {
            String m = result.errorMessage().isEmpty() ? content : p.cutter.errorText(def, result.errorMessage());
            error = new ErrorInfo(ErrorCode.TOOL_ERROR, m);
        }
        List<UserMessageEvent> messages = List.of();
        if (error == null || error.code() == ErrorCode.TOOL_ERROR) {
            if (!mediaMessages.isEmpty()) {
                messages = new ArrayList<>(mediaMessages.size());
                for (SplitResult.MediaMessage mm : mediaMessages) {
                    List<ContentPart> parts = mm.content();
                    messages.add(UserMessageEvent.builder().streamId(t.streamId()).turnId(t.turnId())
                            .messageId(mm.messageId()).toolCallId(call.toolCallId())
                            .source(UserMessageEvent.TOOL_RESULT_MEDIA).content(parts).visibleText(mm.visibleText())
                            .item(mm.item()).build());
                }
            }
        }
        java.util.Map<String, Object> metadata = edited == null ? result.metadata() : editedMetadata(result.metadata());
        List<MediaRef> refs = error == null || error.code() == ErrorCode.TOOL_ERROR ? media : List.of();
        ToolResultEvent event = resultEvent(content, error, data, metadata, refs, cached, now);
        String outcome = error == null ? OK : outcomeTag(error.code());
        if (kept == null) {
            complete(def.name(), outcome, event, messages, now);
            return;
        }
        // the full text is written before the result goes out: a read-back on another instance finds it
        List<UserMessageEvent> m = messages;
        kept.onErrorResume(e -> {
            LOG.warn("call {}: the full text of its cut result was not kept: {}", call.toolCallId(), e.toString());
            return Mono.just(false);
        }).subscribe(null, null, () -> {
            try {
                complete(def.name(), outcome, event, m, now);
            } catch (Throwable x) {
                crash(x);
            }
        });
    }

    /**
     * The call's {@code tool_result}. The builder lives in this small method, apart from the large
     * {@link #emit}, so the JIT inlines all of it here and never allocates the builder (docs/benchmarks.md).
     */
    private ToolResultEvent resultEvent(String content, ErrorInfo error, Object data,
                                        java.util.Map<String, Object> metadata, List<MediaRef> media, boolean cached,
                                        long now) {
        ToolCallsEvent t = turn.turn;
        return ToolResultEvent.builder().streamId(t.streamId()).turnId(t.turnId()).toolCallId(call.toolCallId())
                .name(call.name()).content(content).isError(error != null).error(error).data(data).metadata(metadata)
                .media(media).attempts(cached ? 0 : attempts).cached(cached)
                .elapsedMs((now - turn.startNanos) / 1_000_000).build();
    }

    /** The result's metadata with {@code arguments_edited: true}: a human changed the arguments it ran with. */
    private static java.util.Map<String, Object> editedMetadata(java.util.Map<String, Object> m) {
        java.util.Map<String, Object> out = new java.util.LinkedHashMap<>(m == null ? java.util.Map.of() : m);
        out.put("arguments_edited", true);
        return out;
    }

    private void fail(String toolTag, ErrorCode code, String message) {
        fail(toolTag, new ErrorInfo(code, message));
    }

    private void fail(String toolTag, ErrorInfo error) {
        long now = p.nanoClock.getAsLong();
        ToolCallsEvent t = turn.turn;
        ToolResultEvent event = ToolResultEvent.builder().streamId(t.streamId()).turnId(t.turnId())
                .toolCallId(call.toolCallId()).name(call.name()).content(error.message()).isError(true).error(error)
                .attempts(attempts).elapsedMs((now - turn.startNanos) / 1_000_000).build();
        complete(toolTag, outcomeTag(error.code()), event, List.of(), now);
    }

    private void complete(String toolTag, String outcome, ToolResultEvent event, List<UserMessageEvent> messages,
                          long now) {
        if (!DONE.compareAndSet(this, 0, 1)) {
            return;
        }
        long nanos = now - turn.startNanos;
        // first: where this method is inlined into a large one, the JIT then still inlines the record's
        // builder whole and does not allocate it (docs/benchmarks.md)
        p.callLog.add(callRecord(outcome, event, nanos, now));
        LimitStep.Admission a = limit;
        if (a != null) {
            a.release();
        }
        CallEvents ch = eventsIfAny();
        if (ch != null) {
            ch.close();
        }
        ToolPlan tp = plan;
        if (tp != null && toolTag.equals(def.name())) {
            tp.meters.call(outcome, nanos);
        } else {
            p.metrics.call(toolTag, outcome, nanos);
        }
        JournaledCall j = journal;
        if (j != null) {
            j.endedWith = event;
        }
        if (j != null && j.started && !j.replayed) {
            List<dev.toolbus.protocol.OutboundEvent> record = new ArrayList<>(1 + messages.size());
            record.add(event);
            record.addAll(messages);
            // recorded before it is emitted: a repeat of the turn then replays it instead of calling it unknown
            p.journals.finish(turn.state.journal(), j.key, record, err -> {
                if (err != null) {
                    LOG.warn("call {} of {}: its end was not recorded in the call journal (a repeat of the turn "
                            + "will answer it OUTCOME_UNKNOWN): {}", call.toolCallId(), def.name(), err.toString());
                }
                turn.complete(index, event, messages, now);
            });
            return;
        }
        turn.complete(index, event, messages, now);
    }

    @Override
    public Mono<Void> progress(double progress, Double total, String message) {
        return events().progress(progress, total, message);
    }

    @Override
    public Mono<Void> send(List<ContentPart> content) {
        return events().send(content);
    }

    @Override
    public Mono<InputAnswer> ask(String message, JsonNode schema, Duration timeout) {
        dev.toolbus.tool.InputQuestion question;
        try {
            // as before InputQuestion: no message is an empty one, a timeout below 1 ms is 1 ms
            question = dev.toolbus.tool.InputQuestion.builder(message == null ? "" : message).schema(schema)
                    .timeout(timeout == null || timeout.compareTo(Duration.ofMillis(1)) >= 0 ? timeout : Duration.ofMillis(1))
                    .build();
        } catch (IllegalArgumentException | NullPointerException bad) {
            return Mono.error(bad);
        }
        return events().ask(question);
    }

    @Override
    public Mono<InputAnswer> ask(dev.toolbus.tool.InputQuestion question) {
        return events().ask(question);
    }

    private CallEvents events() {
        CallEvents c = events;
        if (c == null) {
            synchronized (this) {
                c = events;
                if (c == null) {
                    c = new CallEvents(p, turn, call.toolCallId(), def.name(), callTimeoutMs(), this::extendDeadline);
                    events = c;
                }
            }
            if (done != 0) {
                // the call ended before it first spoke: complete() may not have seen these events
                c.close();
            }
        }
        return c;
    }

    /** A question waits until {@code untilMs}: the running attempt's timeout fires no earlier than its full timeout after that. */
    private void extendDeadline(long untilMs) {
        HandlerRun r = running;
        if (r != null) {
            r.extendDeadline(untilMs + callTimeoutMs(), p.timer);
        }
    }

    @Override
    public long timeoutNanos() {
        return callTimeoutMs() * 1_000_000;
    }

    /** The call's timeout: the tool's own, else the executor's. */
    private long callTimeoutMs() {
        return def.timeout() != null ? def.timeout().toMillis() : p.settings.timeout().toMillis();
    }

    private CallEvents eventsIfAny() {
        return events;
    }

    static final String OK = "ok";
    private static final String[] TAGS = tags();

    private static String[] tags() {
        ErrorCode[] codes = ErrorCode.values();
        String[] out = new String[codes.length];
        for (ErrorCode c : codes) {
            out[c.ordinal()] = c.name().toLowerCase(java.util.Locale.ROOT);
        }
        return out;
    }

    private static String outcomeTag(ErrorCode code) {
        return TAGS[code.ordinal()];
    }
}
