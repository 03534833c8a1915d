package dev.toolbus.executor.limits;

import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.text.Texts;
import java.util.concurrent.Callable;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One call passing the limits of the rules it matches: first every token bucket (a refusal ends the
 * call {@code RATE_LIMITED}), then every concurrency permit in rule order (a call over a cap waits here,
 * holding no executor slot). Runs synchronously as far as it can; a wait or a remote store suspends it
 * and {@link #verdict()} is the Mono to wait on. {@link #release()} (the call ended, on any path) gives
 * back every permit held and withdraws a waiter, whatever state the admission is in.
 */
final class LimitAdmission implements LimitStep.Admission, ConcurrencyCaps.Waiter {

    /** Nothing applies: no verdict, nothing to release. */
    static final LimitAdmission NONE = new LimitAdmission(null, null);

    /** The retry hint when the shared store could not answer. */
    static final long STORE_RETRY_MS = 1_000;
    private static final Object OK = new Object();
    private static final Object SUSPENDED = new Object();

    private final LimitStep gate;
    private final String tool;
    private final LimitStep.Rule[] rules;
    private final String[] keys;
    private final boolean[] held;
    /** Next step: 0..n-1 the buckets, n..2n-1 the caps. */
    private int step;
    private int waitingOn = -1;
    private boolean closed;
    private Disposable take;
    private Sinks.One<ErrorInfo> sink;
    private Mono<ErrorInfo> verdict;
    /** An outcome reached while {@link #start} was still running (a store that answered on this thread). */
    private Object early;

    private LimitAdmission(ErrorInfo refused, Object unused) {
        this.gate = null;
        this.tool = null;
        this.rules = null;
        this.keys = null;
        this.held = null;
        this.verdict = refused == null ? null : Mono.just(refused);
    }

    LimitAdmission(LimitStep gate, String tool, LimitStep.Rule[] rules, String[] keys) {
        this.gate = gate;
        this.tool = tool;
        this.rules = rules;
        this.keys = keys;
        this.held = new boolean[rules.length];
    }

    /** An admission refused at once (nothing held). */
    static LimitAdmission refused(ErrorInfo error) {
        return new LimitAdmission(error, null);
    }

    static ErrorInfo perTool(Texts texts, String tool, LimitRule r) {
        return new ErrorInfo(ErrorCode.LIMIT_EXCEEDED, texts.perToolCapReached(tool, r.name(), r.maxCallsPerTool()));
    }

    static ErrorInfo perTurn(Texts texts, String tool, LimitRule r) {
        return new ErrorInfo(ErrorCode.LIMIT_EXCEEDED, texts.perTurnCapReached(tool, r.name(), r.maxCallsPerTurn()));
    }

    /**
     * {@code null}: the call may go on now; else a Mono completing empty (go on) or with the error to end
     * the call with. Disposing its subscription (a cancel) withdraws the call from any wait.
     */
    @Override
    public Mono<ErrorInfo> verdict() {
        return verdict;
    }

    /** Runs the steps that can run now (called once, by the gate). */
    void start() {
        Object r;
        synchronized (this) {
            r = advance();
            if (r == SUSPENDED && early != null) {
                r = early;
            }
            if (r == SUSPENDED) {
                sink = Sinks.one();
                verdict = sink.asMono().doOnCancel(this::abandon);
                return;
            }
        }
        verdict = r == OK ? null : Mono.just((ErrorInfo) r);
    }

    /** The steps from {@link #step} on, under the lock: OK, SUSPENDED or the refusal. */
    private Object advance() {
        int n = rules.length;
        while (step < 2 * n) {
            if (step < n) {
                LimitStep.Rule r = rules[step];
                LimitRule lr = r.rule;
                if (lr.hasRate()) {
                    Mono<Long> m;
                    try {
                        m = gate.store(lr).take(keys[step], lr.rate(), lr.periodMs(), lr.burst());
                    } catch (RuntimeException e) {
                        m = Mono.error(e);
                    }
                    if (m instanceof Callable<?> c) {
                        Object wait;
                        try {
                            wait = c.call();
                        } catch (Exception e) {
                            return storeDown(r);
                        }
                        Object refusal = taken(r, wait);
                        if (refusal != null) {
                            return refusal;
                        }
                    } else {
                        int at = step;
                        take = m.timeout(LimitStep.STORE_TIMEOUT, gate.timer).publishOn(gate.timer)
                                .subscribe(v -> resumeAfterTake(at, v), e -> resumeAfterTake(at, e));
                        return SUSPENDED;
                    }
                }
                step++;
            } else {
                int i = step - n;
                LimitStep.Rule r = rules[i];
                int cap = r.rule.concurrency();
                if (cap > 0) {
                    switch (gate.caps.acquire(keys[i], cap, this, gate.maxWaiting)) {
                        case ACQUIRED -> {
                            held[i] = true;
                            r.meters.running.incrementAndGet();
                        }
                        case QUEUED -> {
                            waitingOn = i;
                            r.meters.waited.increment();
                            r.meters.waiting.incrementAndGet();
                            return SUSPENDED;
                        }
                        case FULL -> {
                            return new ErrorInfo(ErrorCode.REJECTED, gate.texts.tooManyWaiting(tool, r.rule.name(),
                                    gate.maxWaiting));
                        }
                    }
                }
                step++;
            }
        }
        return OK;
    }

    /** {@code null} when the take got its token, else the refusal. */
    private Object taken(LimitStep.Rule r, Object wait) {
        if (!(wait instanceof Long ms)) {
            return storeDown(r);
        }
        if (ms <= 0) {
            return null;
        }
        r.meters.refusedRate.increment();
        return new ErrorInfo(ErrorCode.RATE_LIMITED, gate.texts.rateLimited(tool, r.rule.name(), ms), ms);
    }

    private ErrorInfo storeDown(LimitStep.Rule r) {
        r.meters.refusedStore.increment();
        return new ErrorInfo(ErrorCode.RATE_LIMITED, gate.texts.limitStoreDown(tool, r.rule.name()), STORE_RETRY_MS);
    }

    private void resumeAfterTake(int at, Object outcome) {
        Object r;
        synchronized (this) {
            take = null;
            if (closed || step != at) {
                return;
            }
            Object refusal = outcome instanceof Throwable ? storeDown(rules[at]) : taken(rules[at], outcome);
            if (refusal != null) {
                r = refusal;
            } else {
                step++;
                r = advance();
            }
        }
        settle(r);
    }

    @Override
    public void granted() {
        Object r;
        String giveBack = null;
        synchronized (this) {
            int i = waitingOn;
            waitingOn = -1;
            if (i < 0) {
                return;
            }
            LimitStep.Rule rule = rules[i];
            rule.meters.waiting.decrementAndGet();
            if (closed) {
                giveBack = keys[i];
                r = SUSPENDED;
            } else {
                held[i] = true;
                rule.meters.running.incrementAndGet();
                step++;
                r = advance();
            }
        }
        if (giveBack != null) {
            gate.caps.release(giveBack);
            return;
        }
        settle(r);
    }

    private void settle(Object r) {
        if (r == SUSPENDED) {
            return;
        }
        Sinks.One<ErrorInfo> s;
        synchronized (this) {
            s = sink;
            if (s == null) {
                early = r;
                return;
            }
        }
        if (r == OK) {
            s.tryEmitEmpty();
        } else {
            s.tryEmitValue((ErrorInfo) r);
        }
    }

    /** The verdict's subscriber went away (a cancel): stop waiting. Held permits go at {@link #release()}. */
    private void abandon() {
        stopWaiting();
    }

    /** The call ended: every held permit goes back, any wait is withdrawn. Idempotent. */
    @Override
    public void release() {
        if (this == NONE || rules == null) {
            return;
        }
        stopWaiting();
        for (int i = 0; i < rules.length; i++) {
            boolean h;
            synchronized (this) {
                h = held[i];
                held[i] = false;
            }
            if (h) {
                rules[i].meters.running.decrementAndGet();
                gate.caps.release(keys[i]);
            }
        }
    }

    private void stopWaiting() {
        int i;
        Disposable t;
        synchronized (this) {
            closed = true;
            i = waitingOn;
            t = take;
            take = null;
        }
        if (t != null) {
            t.dispose();
        }
        if (i >= 0 && gate.caps.withdraw(keys[i], this)) {
            synchronized (this) {
                if (waitingOn == i) {
                    waitingOn = -1;
                    rules[i].meters.waiting.decrementAndGet();
                }
            }
        }
    }
}
