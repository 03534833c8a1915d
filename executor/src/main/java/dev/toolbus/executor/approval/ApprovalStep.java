package dev.toolbus.executor.approval;

import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.spi.CallGate;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.GatedCall;
import dev.toolbus.spi.GatedTurn;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ToolDefinition;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The approval step, as the executor's {@link CallGate}: each call is decided by the
 * {@link ApprovalSettings} in force (read once per call); the calls of a turn that must ask are
 * collected while the turn starts and sent in one {@code approval_request} when {@link #turnAdmitted}
 * says every call has passed; each waits on a {@link Sinks.One} (no slot, no thread) until the answer,
 * the expiry or its cancel.
 *
 * <p>Not API: the one public entry of this package's machinery, which the executor makes when it is
 * built with {@code ToolExecutor.Builder.approval}; embedders use that builder method. It may change
 * without notice.
 */
public final class ApprovalStep implements CallGate {

    private final ApprovalRules rules;
    private final Texts texts;
    private final ApprovalMetrics metrics;
    /** Turns whose calls are being admitted now (removed by {@link #turnAdmitted}). */
    private final ConcurrentHashMap<GatedTurn, Batch> forming = new ConcurrentHashMap<>();
    /** The bytes the turns waiting for an answer hold, bounded by the settings in force. */
    private final WaitingTurns waiting = new WaitingTurns();
    private volatile PendingApprovals pending;

    private ApprovalStep(Supplier<ApprovalSettings> settings, DescriptionLocale locale, MeterRegistry meters,
                         LongSupplier nanoClock) {
        this.rules = new ApprovalRules(settings, nanoClock);
        this.texts = Texts.of(locale);
        this.metrics = new ApprovalMetrics(meters);
    }

    /**
     * The step.
     *
     * @param settings the settings in force, read once per call (must be cheap and never {@code null})
     * @param locale the language of the request and refusal texts
     * @param meters where the approval meters go
     * @param nanoClock the clock of session grants, in nanoseconds
     */
    public static ApprovalStep create(Supplier<ApprovalSettings> settings, DescriptionLocale locale,
                                      MeterRegistry meters, LongSupplier nanoClock) {
        return new ApprovalStep(Objects.requireNonNull(settings, "settings"),
                Objects.requireNonNull(locale, "locale"), Objects.requireNonNull(meters, "meters"),
                Objects.requireNonNull(nanoClock, "nanoClock"));
    }

    @Override
    public Mono<ErrorInfo> admit(GatedCall call) {
        ToolDefinition def = call.definition();
        ToolCallsEvent t = call.turn().event();
        if (call.ruleAsk() != null) {
            return admitAskedByRule(call, def, t);
        }
        ApprovalRules.Verdict v = rules.check(def, def.risk(), t.streamId(), t.context());
        switch (v.kind()) {
            case RUN -> {
                if (v.byGrant()) {
                    metrics.bySessionGrant.increment();
                    call.note().accept("by_session_grant");
                }
                return null;
            }
            case REFUSE -> {
                metrics.askMode.increment();
                call.note().accept("ask_mode");
                return Mono.just(new ErrorInfo(ErrorCode.NOT_APPROVED, texts.askModeRunsNothing()));
            }
            default -> {
                if (call.caller().isProgrammatic() && !rules.settings().askProgrammatic()) {
                    return programmatic(call, def);
                }
                return ask(call, def, v.risk(), "");
            }
        }
    }

    /**
     * A call a rule over the call asks for: asked at high risk whatever the mode, bypass list and
     * session grants say; under mode {@code off} refused {@code NOT_ALLOWED} (a rule that asks never
     * lets a call run unasked), under mode {@code ask} {@code NOT_APPROVED} like every call there.
     */
    private Mono<ErrorInfo> admitAskedByRule(GatedCall call, ToolDefinition def, ToolCallsEvent t) {
        ApprovalSettings s = rules.settings();
        ApprovalMode mode = s.modeFor(t.context());
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
            return programmatic(call, def);
        }
        return ask(call, def, Risk.HIGH, call.ruleAsk().message());
    }

    /** A programmatic call that needs approval: code cannot wait for a person. */
    private Mono<ErrorInfo> programmatic(GatedCall call, ToolDefinition def) {
        metrics.programmatic.increment();
        call.note().accept("programmatic");
        return Mono.just(new ErrorInfo(ErrorCode.NOT_APPROVED, texts.programmaticCannotWait(def.name())));
    }

    /** Joins the turn's request (sent when every call of the turn has passed). */
    private Mono<ErrorInfo> ask(GatedCall call, ToolDefinition def, Risk risk, String reason) {
        call.note().accept("asked");
        Batch b = forming.computeIfAbsent(call.turn(), k -> new Batch(k, forming));
        Waiting w = new Waiting(b, call.note());
        b.add(new PendingApprovals.Entry(call.call().toolCallId(), def.name(), risk,
                ArgumentSummary.of(call.arguments()), reason, w));
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
        if (b == null) {
            return;
        }
        ToolCallsEvent t = turn.event();
        PendingApprovals pa = pending(turn);
        PendingApprovals.Request r;
        List<PendingApprovals.Entry> refused = null;
        String refusal = null;
        synchronized (b) {
            if (b.entries.isEmpty()) {
                return;
            }
            // a waiting turn holds its event: weigh it, and ask only within the bounds (issue 21 M8)
            ApprovalSettings s = rules.settings();
            String principal = turn.principalId();
            long weight = WaitingTurns.weigh(t, s.maxWaitingBytes());
            if (!waiting.take(principal, weight, s.maxWaitingBytes(), s.maxWaitingBytesPerPrincipal())) {
                refused = List.copyOf(b.entries);
                b.entries.clear();
                long max = principal != null && waiting.of(principal) + weight > s.maxWaitingBytesPerPrincipal()
                        ? s.maxWaitingBytesPerPrincipal() : s.maxWaitingBytes();
                refusal = texts.approvalBusy(principal != null && max == s.maxWaitingBytesPerPrincipal()
                        ? waiting.of(principal) : waiting.total(), max);
                r = null;
            } else {
                r = pa.open(t.streamId(), t.turnId(), t.context().userId(), b.entries,
                        () -> waiting.give(principal, weight));
                b.request = r;
            }
        }
        if (refused != null) {
            for (PendingApprovals.Entry e : refused) {
                metrics.rejected.increment();
                ((Waiting) e.waiter()).rejected(refusal);
            }
            return;
        }
        turn.publish(r.event).subscribe(null, e -> pa.abandon(r, texts.approvalUnsent(
                e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())));
    }

    @Override
    public ControlOutcome answer(ApprovalResponseEvent response) {
        PendingApprovals pa = pending;
        if (pa == null) {
            return ControlOutcome.UNKNOWN_REQUEST;
        }
        return pa.answer(response.streamId(), response.approvalId(), response.decision())
                == PendingApprovals.Answer.APPLIED ? ControlOutcome.APPLIED : ControlOutcome.UNKNOWN_REQUEST;
    }

    /** Requests waiting for an answer now (for diagnostics). */
    public int pendingRequests() {
        PendingApprovals pa = pending;
        return pa == null ? 0 : pa.size();
    }

    private PendingApprovals pending(GatedTurn turn) {
        PendingApprovals pa = pending;
        if (pa == null) {
            synchronized (this) {
                pa = pending;
                if (pa == null) {
                    pa = new PendingApprovals(turn.instanceId(), rules, texts, metrics, turn.timer());
                    pending = pa;
                }
            }
        }
        return pa;
    }

    /** The calls of one turn that ask, until the request is open. */
    private static final class Batch {
        final List<PendingApprovals.Entry> entries = new ArrayList<>(2);
        final GatedTurn turn;
        final ConcurrentHashMap<GatedTurn, Batch> forming;
        PendingApprovals.Request request;

        Batch(GatedTurn turn, ConcurrentHashMap<GatedTurn, Batch> forming) {
            this.turn = turn;
            this.forming = forming;
        }

        synchronized void add(PendingApprovals.Entry e) {
            entries.add(e);
        }
    }

    /** One call waiting for its answer. */
    private static final class Waiting implements PendingApprovals.Waiter {
        final Sinks.One<ErrorInfo> sink = Sinks.one();
        private final Batch batch;
        private final Consumer<String> note;

        Waiting(Batch batch, Consumer<String> note) {
            this.batch = batch;
            this.note = note;
        }

        @Override
        public void approved(boolean session) {
            note.accept(session ? "approved_session" : "approved");
            sink.tryEmitEmpty();
        }

        @Override
        public void notApproved(String outcome, String message) {
            note.accept(outcome);
            sink.tryEmitValue(new ErrorInfo(ErrorCode.NOT_APPROVED, message));
        }

        /** The turn was not asked: too many bytes wait for approval ({@code REJECTED}). */
        void rejected(String message) {
            note.accept("rejected");
            sink.tryEmitValue(new ErrorInfo(ErrorCode.REJECTED, message));
        }

        /** The call was cancelled while it waited. */
        void withdraw() {
            PendingApprovals.Request r;
            synchronized (batch) {
                r = batch.request;
                if (r == null) {
                    // not asked yet; a turn whose every asking call is gone leaves nothing behind
                    batch.entries.removeIf(e -> e.waiter() == this);
                    if (batch.entries.isEmpty()) {
                        batch.forming.remove(batch.turn, batch);
                    }
                    return;
                }
            }
            r.withdraw(this);
        }
    }
}
