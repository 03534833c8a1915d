package dev.toolbus.executor.approval;

import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorInfo;
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
                call.note().accept("asked");
                Batch b = forming.computeIfAbsent(call.turn(), k -> new Batch(k, forming));
                Waiting w = new Waiting(b, call.note());
                b.add(new PendingApprovals.Entry(call.call().toolCallId(), def.name(), v.risk(),
                        ArgumentSummary.of(call.arguments()), w));
                return w.sink.asMono().doOnCancel(w::withdraw);
            }
        }
    }

    @Override
    public void turnAdmitted(GatedTurn turn) {
        Batch b = forming.remove(turn);
        if (b == null) {
            return;
        }
        ToolCallsEvent t = turn.event();
        PendingApprovals pa = pending(turn);
        PendingApprovals.Request r;
        synchronized (b) {
            if (b.entries.isEmpty()) {
                return;
            }
            r = pa.open(t.streamId(), t.turnId(), t.context().userId(), b.entries);
            b.request = r;
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
