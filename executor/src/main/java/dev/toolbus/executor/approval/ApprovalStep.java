package dev.toolbus.executor.approval;

import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.ReplayedEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.spi.CallGate;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.ControlRequests;
import dev.toolbus.spi.GatedCall;
import dev.toolbus.spi.GatedTurn;
import dev.toolbus.spi.GrantKey;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.RequestState;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnState;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ToolDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The approval step, as the executor's {@link CallGate}: each call is decided by the
 * {@link ApprovalSettings} in force (read once per call) and its turn's principal (a turn may loosen the
 * mode only with the approval override); a call a session grant of its principal covers runs; the
 * calls of a turn that must ask are collected while the turn starts and sent in one
 * {@code approval_request} when {@link #turnAdmitted} says every call has passed (and every grant
 * lookup answered).
 *
 * <p>Requests live in the turn's {@link TurnState}: the id is derived from the principal, stream, turn
 * and call ids, so a turn run again raises the same id; a request found answered is applied without
 * asking, one found pending is published again marked replayed with its first expiry, and a call whose
 * answer was recorded under another request (its turn's request now covers fewer calls) gets that
 * answer. Answers are recorded by whichever instance receives them ({@link #answer}) and applied by the
 * one waiting ({@link #signal}). Each waiting call waits on a {@link Sinks.One} (no slot, no thread).
 *
 * <p>Not API: the one public entry of this package's machinery, which the executor makes when it is
 * built with {@code ToolExecutor.Builder.approval}; embedders use that builder method. It may change
 * without notice.
 */
public final class ApprovalStep implements CallGate {

    private static final Logger log = LoggerFactory.getLogger(ApprovalStep.class);

    private final ApprovalRules rules;
    private final Texts texts;
    private final ApprovalMetrics metrics;
    /** Turns whose calls are being admitted now (removed by {@link #turnAdmitted}). */
    private final ConcurrentHashMap<GatedTurn, Batch> forming = new ConcurrentHashMap<>();
    /** The bytes the turns waiting for an answer hold, bounded by the settings in force. */
    private final WaitingTurns waiting = new WaitingTurns();
    private volatile PendingApprovals pending;

    private ApprovalStep(Supplier<ApprovalSettings> settings, DescriptionLocale locale, MeterRegistry meters) {
        this.rules = new ApprovalRules(settings);
        this.texts = Texts.of(locale);
        this.metrics = new ApprovalMetrics(meters);
    }

    /**
     * The step.
     *
     * @param settings the settings in force, read once per call (must be cheap and never {@code null})
     * @param locale the language of the request and refusal texts
     * @param meters where the approval meters go
     */
    public static ApprovalStep create(Supplier<ApprovalSettings> settings, DescriptionLocale locale,
                                      MeterRegistry meters) {
        return new ApprovalStep(Objects.requireNonNull(settings, "settings"),
                Objects.requireNonNull(locale, "locale"), Objects.requireNonNull(meters, "meters"));
    }

    @Override
    public Mono<ErrorInfo> admit(GatedCall call) {
        ToolDefinition def = call.definition();
        GatedTurn turn = call.turn();
        if (call.ruleAsk() != null) {
            return admitAskedByRule(call, def, turn);
        }
        ToolCallsEvent t = turn.event();
        ApprovalRules.Verdict v = rules.check(def, def.risk(), t.context(), turn.principal());
        switch (v.kind()) {
            case RUN -> {
                return null;
            }
            case REFUSE -> {
                metrics.askMode.increment();
                call.note().accept("ask_mode");
                return Mono.just(new ErrorInfo(ErrorCode.NOT_APPROVED, texts.askModeRunsNothing()));
            }
            default -> {
                if (call.caller().isProgrammatic() && !rules.settings().askProgrammatic()) {
                    return programmatic(call, def, v.grantable());
                }
                return ask(call, def, v.risk(), "", v.grantable());
            }
        }
    }

    /**
     * A call a rule over the call asks for: asked at high risk whatever the mode, bypass list and
     * session grants say; under mode {@code off} refused {@code NOT_ALLOWED} (a rule that asks never
     * lets a call run unasked), under mode {@code ask} {@code NOT_APPROVED} like every call there.
     */
    private Mono<ErrorInfo> admitAskedByRule(GatedCall call, ToolDefinition def, GatedTurn turn) {
        ApprovalSettings s = rules.settings();
        ApprovalMode mode = s.modeFor(turn.event().context(), turn.principal().approvalOverride());
        if (mode == ApprovalMode.OFF) {
            call.note().accept("rule_ask_off");
            return Mono.just(new ErrorInfo(ErrorCode.NOT_ALLOWED,
                    texts.ruleAskWithoutApproval(def.name(), call.ruleAsk().rule())));
        }
        if (mode == ApprovalMode.ASK) {
            metrics.askMode.increment();
            call.note().accept("ask_mode");
            return Mono.just(new ErrorInfo(ErrorCode.NOT_APPROVED, texts.askModeRunsNothing()));
        }
        if (call.caller().isProgrammatic() && !s.askProgrammatic()) {
            return programmatic(call, def, false);
        }
        return ask(call, def, Risk.HIGH, call.ruleAsk().message(), false);
    }

    /**
     * A programmatic call that needs approval: code cannot wait for a person. A session grant of its
     * principal still lets it run ({@code grantable}: the settings honour a grant of its risk).
     */
    private Mono<ErrorInfo> programmatic(GatedCall call, ToolDefinition def, boolean grantable) {
        GatedTurn turn = call.turn();
        TurnState state = turn.turnState();
        if (grantable && state != null) {
            ToolCallsEvent t = turn.event();
            GrantKey k = GrantKey.of(turn.principal(), t.streamId(), t.context().userId(), def.name());
            return Mono.defer(() -> state.grants().has(k)).defaultIfEmpty(false)
                    .onErrorResume(err -> {
                        log.warn("session grant of {} not read (refusing the programmatic call): {}", def.name(),
                                err.toString());
                        return Mono.just(false);
                    })
                    .flatMap(has -> {
                        if (has) {
                            metrics.bySessionGrant.increment();
                            call.note().accept("by_session_grant");
                            return Mono.empty();
                        }
                        return refuseProgrammatic(call, def);
                    });
        }
        return refuseProgrammatic(call, def);
    }

    private Mono<ErrorInfo> refuseProgrammatic(GatedCall call, ToolDefinition def) {
        metrics.programmatic.increment();
        call.note().accept("programmatic");
        return Mono.just(new ErrorInfo(ErrorCode.NOT_APPROVED, texts.programmaticCannotWait(def.name())));
    }

    /**
     * Joins the turn's request (raised when every call of the turn has passed): first a session grant
     * of the principal is looked up when the settings honour one for this risk ({@code grantable}).
     *
     * @param reason why a rule over the call asks, else {@code ""}
     */
    private Mono<ErrorInfo> ask(GatedCall call, ToolDefinition def, Risk risk, String reason, boolean grantable) {
        GatedTurn turn = call.turn();
        ToolCallsEvent t = turn.event();
        Batch b = forming.computeIfAbsent(turn, k -> new Batch(k, forming));
        Waiting w = new Waiting(b, call, texts);
        PendingApprovals.Entry e = new PendingApprovals.Entry(call.call().toolCallId(), def.name(), risk,
                ArgumentSummary.of(call.arguments()), t.context().userId(), reason, w);
        TurnState state = turn.turnState();
        if (grantable && state != null) {
            b.lookup();
            GrantKey k = GrantKey.of(turn.principal(), t.streamId(), t.context().userId(), def.name());
            Mono.defer(() -> state.grants().has(k)).defaultIfEmpty(false).subscribe(has -> {
                if (has) {
                    metrics.bySessionGrant.increment();
                    call.note().accept("by_session_grant");
                    w.sink.tryEmitEmpty();
                } else {
                    call.note().accept("asked");
                    b.add(e);
                }
            }, err -> {
                log.warn("session grant of {} not read (asking): {}", def.name(), err.toString());
                call.note().accept("asked");
                b.add(e);
                b.looked();
            }, b::looked);
        } else {
            call.note().accept("asked");
            b.add(e);
        }
        return w.sink.asMono().doOnCancel(w::withdraw);
    }

    @Override
    public boolean asksForRules() {
        return true;
    }

    /** The tool's risk under the settings in force. */
    @Override
    public Risk risk(ToolDefinition tool) {
        return rules.classify(tool);
    }

    /** A tool's risk under the default approval settings (declared, dangerous, MCP hints, name). */
    public static Risk defaultRisk(ToolDefinition tool) {
        return DEFAULT_RISKS.classify(tool, tool.risk());
    }

    private static final RiskRules DEFAULT_RISKS = new RiskRules(ApprovalSettings.defaults());

    @Override
    public void turnAdmitted(GatedTurn turn) {
        Batch b = forming.remove(turn);
        if (b != null) {
            b.admitted();
        }
    }

    /** Not used by the executor, which calls {@link #answer(ApprovalResponseEvent, Principal, TurnState)}. */
    @Override
    public ControlOutcome answer(ApprovalResponseEvent response) {
        return ControlOutcome.UNKNOWN_REQUEST;
    }

    /**
     * An {@code approval_response} sent by {@code principal}: recorded in {@code state} as the answer of its
     * id (if that principal may answer it), and applied if this instance waits on the request.
     *
     * @param state the state the answer is recorded in ({@code null}: nothing waits, unknown)
     * @return {@code APPLIED} (recorded), {@code HELD} (no request yet: held until one is raised) or
     *     {@code UNKNOWN_REQUEST}
     */
    public Mono<ControlOutcome> answer(ApprovalResponseEvent response, Principal principal, TurnState state) {
        String id = response.approvalId();
        if (state == null || !ControlRequest.isDerivedId(id) || !id.startsWith(ControlRequest.APPROVAL_PREFIX)) {
            return Mono.just(ControlOutcome.UNKNOWN_REQUEST);
        }
        ControlAnswer a = ControlAnswer.approval(principal, response, response.toolCallId());
        return state.requests().answer(a, rules.settings().timeout()).map(o -> {
            if (o == ControlRequests.AnswerOutcome.RECORDED) {
                signal(id);
                return ControlOutcome.APPLIED;
            }
            return o == ControlRequests.AnswerOutcome.HELD ? ControlOutcome.HELD : ControlOutcome.UNKNOWN_REQUEST;
        });
    }

    /** An answer of this approval id was recorded (by any instance): applied if this instance waits on it. */
    public void signal(String approvalId) {
        PendingApprovals pa = pending;
        if (pa != null) {
            pa.signal(approvalId);
        }
    }

    /** Requests waiting for an answer now (for diagnostics). */
    public int pendingRequests() {
        PendingApprovals pa = pending;
        return pa == null ? 0 : pa.size();
    }

    /** Raises the turn's request (after every call passed and every grant lookup answered). */
    private void raise(GatedTurn turn, List<PendingApprovals.Entry> entries) {
        TurnState state = turn.turnState();
        if (state == null) {
            for (PendingApprovals.Entry e : entries) {
                e.waiter().notApproved("unsent", texts.approvalUnsent("no turn state"));
            }
            return;
        }
        ToolCallsEvent t = turn.event();
        TurnKey key = TurnKey.of(turn.principal(), t.streamId(), t.turnId());
        PendingApprovals pa = pending(turn);
        Map<String, PendingApprovals.Entry> byCall = new LinkedHashMap<>();
        List<CallKey> keys = new ArrayList<>(entries.size());
        for (PendingApprovals.Entry e : entries) {
            byCall.put(e.toolCallId(), e);
            keys.add(key.call(e.toolCallId()));
        }
        Mono.defer(() -> state.requests().findForCalls(keys)).subscribe(found -> {
            pa.resolveFound(state, found, byCall);
            List<PendingApprovals.Entry> rest = new ArrayList<>(entries.size());
            for (PendingApprovals.Entry e : entries) {
                if (!found.containsKey(key.call(e.toolCallId()))) {
                    rest.add(e);
                }
            }
            if (!rest.isEmpty()) {
                raise(turn, state, key, pa, rest);
            }
        }, err -> failAll(entries, err));
    }

    private void raise(GatedTurn turn, TurnState state, TurnKey key, PendingApprovals pa,
                       List<PendingApprovals.Entry> entries) {
        long timeoutMs = rules.settings().timeout().toMillis();
        List<String> ids = new ArrayList<>(entries.size());
        List<ApprovalRequestEvent.Call> calls = new ArrayList<>(entries.size());
        List<Texts.ApprovalLine> lines = new ArrayList<>(entries.size());
        for (PendingApprovals.Entry e : entries) {
            ids.add(e.toolCallId());
            calls.add(new ApprovalRequestEvent.Call(e.toolCallId(), e.name(), e.risk(), e.argumentsSummary()));
            lines.add(new Texts.ApprovalLine(e.name(), e.risk(), e.argumentsSummary(), e.reason()));
        }
        String id = ControlRequest.approvalId(key, ids);
        long expiresAt = turn.timer().now(TimeUnit.MILLISECONDS) + timeoutMs;
        ApprovalRequestEvent event = ApprovalRequestEvent.builder().streamId(key.streamId()).turnId(key.turnId())
                .approvalId(id).expiresAtMs(expiresAt).calls(calls).text(texts.approvalPrompt(lines)).build();
        ControlRequest request = ControlRequest.approval(key, event);
        // a waiting turn holds its event: weigh it, and ask only within the bounds (issue 21 M8)
        ApprovalSettings as = rules.settings();
        String principal = turn.principalId();
        long weight = WaitingTurns.weigh(turn.event(), as.maxWaitingBytes());
        if (!waiting.take(principal, weight, as.maxWaitingBytes(), as.maxWaitingBytesPerPrincipal())) {
            boolean mine = principal != null && waiting.of(principal) + weight > as.maxWaitingBytesPerPrincipal();
            String refusal = mine ? texts.approvalBusy(waiting.of(principal), as.maxWaitingBytesPerPrincipal())
                    : texts.approvalBusy(waiting.total(), as.maxWaitingBytes());
            for (PendingApprovals.Entry e : entries) {
                metrics.rejected.increment();
                ((Waiting) e.waiter()).rejected(refusal);
            }
            return;
        }
        PendingApprovals.Request r = pa.open(request, state, entries, () -> waiting.give(principal, weight));
        for (PendingApprovals.Entry e : entries) {
            ((Waiting) e.waiter()).request(r);
        }
        Mono.defer(() -> state.requests().raise(request)).subscribe(s -> raised(turn, pa, r, s, entries.size()), err -> {
            log.warn("approval {} not raised in the turn state; its calls do not run: {}", id, err.toString());
            pa.fail(r, e -> e.waiter().notApproved("state_unavailable", texts.stateUnavailable(e.name(),
                    err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage())));
        });
    }

    private void raised(GatedTurn turn, PendingApprovals pa, PendingApprovals.Request r, RequestState s, int asked) {
        switch (s.status()) {
            case NEW, PENDING -> {
                metrics.asked.increment(asked);
                pa.arm(r, s.request().expiresAtMs());
                boolean everyCallAnswered = s.answers().size() == s.request().calls().size();
                if (!everyCallAnswered) {
                    var event = s.status() == RequestState.Status.NEW ? s.request().event()
                            : ReplayedEvent.of(s.request().event());
                    turn.publish(event).subscribe(null, e -> pa.abandon(r, texts.approvalUnsent(
                            e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())));
                }
                pa.apply(r, s);
            }
            default -> pa.apply(r, s);
        }
    }

    private void failAll(List<PendingApprovals.Entry> entries, Throwable err) {
        log.warn("approvals not read from the turn state; the calls do not run: {}", err.toString());
        for (PendingApprovals.Entry e : entries) {
            e.waiter().notApproved("state_unavailable", texts.stateUnavailable(e.name(),
                    err.getMessage() == null ? err.getClass().getSimpleName() : err.getMessage()));
        }
    }

    private PendingApprovals pending(GatedTurn turn) {
        PendingApprovals pa = pending;
        if (pa == null) {
            synchronized (this) {
                pa = pending;
                if (pa == null) {
                    pa = new PendingApprovals(rules, texts, metrics, turn.timer());
                    pending = pa;
                }
            }
        }
        return pa;
    }

    /** The calls of one turn that ask, until the request is raised. */
    private final class Batch {
        private final List<PendingApprovals.Entry> entries = new ArrayList<>(2);
        private final GatedTurn turn;
        private final ConcurrentHashMap<GatedTurn, Batch> forming;
        private int lookups;
        private boolean admitted;
        private boolean raised;

        Batch(GatedTurn turn, ConcurrentHashMap<GatedTurn, Batch> forming) {
            this.turn = turn;
            this.forming = forming;
        }

        synchronized void add(PendingApprovals.Entry e) {
            entries.add(e);
        }

        synchronized void lookup() {
            lookups++;
        }

        void looked() {
            synchronized (this) {
                lookups--;
            }
            maybeRaise();
        }

        void admitted() {
            synchronized (this) {
                admitted = true;
            }
            maybeRaise();
        }

        /** Withdraws a call that is not asked yet; whether it was here. */
        synchronized boolean remove(Waiting w) {
            boolean removed = entries.removeIf(e -> e.waiter() == w);
            if (entries.isEmpty() && !admitted) {
                forming.remove(turn, this);
            }
            return removed;
        }

        private void maybeRaise() {
            List<PendingApprovals.Entry> out;
            synchronized (this) {
                if (!admitted || lookups > 0 || raised) {
                    return;
                }
                raised = true;
                if (entries.isEmpty()) {
                    return;
                }
                out = List.copyOf(entries);
            }
            raise(turn, out);
        }
    }

    /** One call waiting for its answer. */
    private static final class Waiting implements PendingApprovals.Waiter {
        final Sinks.One<ErrorInfo> sink = Sinks.one();
        private final Batch batch;
        private final GatedCall call;
        private final Consumer<String> note;
        private final Texts texts;
        private volatile PendingApprovals.Request request;

        Waiting(Batch batch, GatedCall call, Texts texts) {
            this.batch = batch;
            this.call = call;
            this.note = call.note();
            this.texts = texts;
        }

        void request(PendingApprovals.Request r) {
            this.request = r;
        }

        /**
         * Runs the call, with the user's edit of its arguments when the answer carries one for it (named
         * by {@code tool_call_id}, or the request's only call); an edit that names no call of a request
         * of several is refused, as is one the tool's schema or the policy refuses.
         */
        @Override
        public void approved(boolean session, ControlAnswer answer) {
            ApprovalResponseEvent r = (ApprovalResponseEvent) answer.response();
            if (r.arguments() != null) {
                String mine = call.call().toolCallId();
                PendingApprovals.Request req = request;
                boolean forMe = mine.equals(r.toolCallId());
                if (!forMe && r.toolCallId() == null) {
                    if (req == null || req.request.calls().size() != 1) {
                        note.accept("edit_names_no_call");
                        sink.tryEmitValue(new ErrorInfo(ErrorCode.NOT_APPROVED, texts.approvalEditNamesNoCall()));
                        return;
                    }
                    forMe = true;
                }
                if (forMe) {
                    ErrorInfo refused = call.edit().apply((com.fasterxml.jackson.databind.node.ObjectNode) r.arguments());
                    if (refused != null) {
                        note.accept("edit_refused");
                        sink.tryEmitValue(refused);
                        return;
                    }
                    note.accept(session ? "approved_session_edited" : "approved_edited");
                    sink.tryEmitEmpty();
                    return;
                }
            }
            note.accept(session ? "approved_session" : "approved");
            sink.tryEmitEmpty();
        }

        @Override
        public void notApproved(String outcome, String message) {
            note.accept(outcome);
            ErrorCode code = "state_unavailable".equals(outcome) ? ErrorCode.STATE_UNAVAILABLE : ErrorCode.NOT_APPROVED;
            sink.tryEmitValue(new ErrorInfo(code, message));
        }

        /** The turn was not asked: too many bytes wait for approval ({@code REJECTED}). */
        void rejected(String message) {
            note.accept("rejected");
            sink.tryEmitValue(new ErrorInfo(ErrorCode.REJECTED, message));
        }

        /** The call was cancelled while it waited. */
        void withdraw() {
            PendingApprovals.Request r = request;
            if (r != null) {
                r.withdraw(this);
                return;
            }
            batch.remove(this);
        }
    }
}
