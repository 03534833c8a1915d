package dev.toolbus.executor.internal;

import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ReplayedEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.spi.CallRules;
import dev.toolbus.spi.CallJournal;
import dev.toolbus.spi.GatedTurn;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.spi.TurnState;
import dev.toolbus.tool.ToolContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * One turn in flight. Calls start together (each then waits for a slot); results are emitted in call
 * order as soon as every earlier call is done; after the last result come the media follow-ups of all
 * calls, then {@code turn_completed}. The owner of the sink calls {@link #done()} once the events are
 * delivered (or published), which frees the stream for its next turn.
 *
 * <p>Live events ({@code tool_progress}, {@code send_message}, {@code input_request},
 * {@code approval_request}) bypass call order: {@link #live} publishes them at once. A control cancel
 * ({@link #cancelCalls}) ends unfinished calls {@code CANCELLED}; the turn then completes as usual.
 */
final class TurnRun implements GatedTurn, ToolContext.Services {

    /**
     * Where a turn's events go. {@link #next} and {@link #live} only queue (they run no code of the
     * subscriber or bus and may be called holding a lock); {@link #flush} and {@link #complete} deliver
     * and are called holding no lock of the executor.
     */
    interface Sink {
        /** Queues an event in order. */
        void next(OutboundEvent event);

        /**
         * Queues a live event for publishing now (not held for call order), before anything queued later.
         *
         * @return completes when published; {@code null} when refused (the turn's bound of pending live
         *     events is reached)
         */
        Mono<Void> live(OutboundEvent event);

        /**
         * Queues the event in order like {@link #next}, or delivers it now: called holding no lock, by
         * the one thread that produces the turn's ordered events (a turn of one call ending).
         */
        default void emit(OutboundEvent event) {
            next(event);
        }

        /**
         * The turn's last two events and its end: {@link #emit} each, then {@link #complete}; called once,
         * holding no lock, instead of {@code complete} (a turn of one call without follow-ups).
         */
        default void completeWith(OutboundEvent result, OutboundEvent completed) {
            emit(result);
            emit(completed);
            complete();
        }

        /** Delivers what is queued. */
        void flush();

        /** All events were queued; called once. Delivers them; the sink's owner then calls {@link TurnRun#done()}. */
        void complete();
    }

    final ToolCallsEvent turn;
    /** Who sent the turn (set by the ingress). */
    final Principal principal;
    /** The turn state its calls use (the bus's facets, else the executor's). */
    final TurnState state;
    final long startNanos;
    private final Pipeline pipeline;
    private final Sink sink;
    private final Consumer<TurnRun> onDone;
    private final CallRun[] calls;
    private static final AtomicIntegerFieldUpdater<TurnRun> DONE_ONCE =
            AtomicIntegerFieldUpdater.newUpdater(TurnRun.class, "doneOnce");
    private static final AtomicIntegerFieldUpdater<TurnRun> FINISHED =
            AtomicIntegerFieldUpdater.newUpdater(TurnRun.class, "finished");
    /** {@link #finished}: running, finished normally (its events queued), or ended otherwise (cancelled, abandoned). */
    private static final int RUNNING = 0;
    private static final int NORMALLY = 1;
    private static final int ENDED = 2;
    private volatile int doneOnce;
    private int nextEmit;
    private volatile int finished;
    /** What the turn was told before it started (tracing parent, control cancels), or null; written holding the monitor. */
    private volatile BeforeStart beforeStart;
    private volatile boolean started;
    /** Why the turn was cancelled; null while it was not (see {@link #cancelled()}). */
    private volatile String cancelReason;
    /** The turn's tracing, or null (no observing registry and no inbound trace context). */
    private volatile TurnObservation trace;
    /**
     * The calls past the rules so far, made when the first is counted; touched only by the thread that
     * starts the turn's calls (a call is decided and counted while it starts), and only when there are rules.
     */
    private RuledCalls ruled;

    /**
     * The turn is starting its calls: those that reach the journal meanwhile wait in their
     * {@link JournaledCall#waiting}, for one {@code begin} of the wave.
     */
    private volatile boolean collecting;
    /** The turn's calls exist (all of {@link #calls} is written): what a control cancel stops directly. */
    private volatile boolean callsMade;
    /**
     * The thread starting this turn at its submission (its stream was idle), while it does; else null.
     * Written and compared by that thread only: another thread finds a different thread or null.
     */
    private Thread startingAtSubmission;

    TurnRun(ToolCallsEvent turn, Principal principal, TurnState state, Pipeline pipeline, Sink sink,
            Consumer<TurnRun> onDone) {
        this.turn = turn;
        this.principal = principal;
        this.state = state;
        this.pipeline = pipeline;
        this.sink = sink;
        this.onDone = onDone;
        int n = turn.calls().size();
        this.calls = new CallRun[n];
        this.startNanos = pipeline.nanoClock.getAsLong();
    }

    /**
     * The turn's key in the state, made when asked (by a call's journal entry or its live events; most
     * turns never ask, and a field would cost every turn).
     */
    TurnKey key() {
        return TurnKey.of(principal, turn.streamId(), turn.turnId());
    }

    /** Counts a call that passed the rules (see {@link CallRules.Counts}). */
    void countRuled(String tool, boolean sideEffecting, boolean dangerous) {
        RuledCalls r = ruled;
        if (r == null) {
            r = new RuledCalls();
            ruled = r;
        }
        r.count(tool, sideEffecting, dangerous);
    }

    /** The calls past the rules so far, for the rules of the next call. */
    CallRules.Counts ruledCalls() {
        RuledCalls r = ruled;
        return r == null ? RuledCalls.NONE : r;
    }

    /** Sets the parent observation of the turn's (before it is submitted); ignored unless an {@code Observation}. */
    void parentObservation(Object parent) {
        if (parent != null) {
            synchronized (this) {
                beforeStart().parentObservation = parent;
            }
        }
    }

    /** The turn's {@link BeforeStart}, made on first use; the caller holds the monitor. */
    private BeforeStart beforeStart() {
        BeforeStart b = beforeStart;
        if (b == null) {
            b = new BeforeStart();
            beforeStart = b;
        }
        return b;
    }

    /** {@link #start()} on the thread that submitted the turn, its stream being idle. */
    void startAtSubmission() {
        startingAtSubmission = Thread.currentThread();
        try {
            start();
        } finally {
            startingAtSubmission = null;
        }
    }

    /**
     * When the handler of the first attempt of call {@code index} starts, if that is now and no later than
     * the turn's {@link #startNanos} plus the turn's own synchronous steps: the first call of a turn started
     * at its submission, reaching its handler on the submitting thread before {@link #start()} returned.
     * {@code Long.MIN_VALUE} otherwise (the caller reads the clock). Saves a clock read per one-call turn.
     */
    long handlerStartIfNow(int index) {
        return index == 0 && startingAtSubmission == Thread.currentThread() ? startNanos : Long.MIN_VALUE;
    }

    /** Starts every call of the turn (its stream's lane is now held). */
    void start() {
        started = true;
        if (cancelled()) {
            done();
            return;
        }
        BeforeStart told = beforeStart;
        trace = pipeline.tracing.start(turn, told == null ? null : told.parentObservation);
        List<ToolCall> list = turn.calls();
        if (list.isEmpty()) {
            synchronized (this) {
                try {
                    finish(pipeline.nanoClock.getAsLong());
                } catch (Throwable t) {
                    abandon(t);
                }
            }
            try {
                sink.complete();
            } catch (Throwable t) {
                abandon(t);
            }
            return;
        }
        TurnObservation tr = trace;
        if (tr != null) {
            // before any call can end (a cancel may end one as soon as the calls exist)
            tr.startCalls(pipeline.registry);
        }
        if (calls.length == 1 && beforeStart == null) {
            makeOnlyCall(list.get(0));
        } else {
            synchronized (this) {
                BeforeStart stops = beforeStart;
                for (int i = 0; i < list.size(); i++) {
                    CallRun c = new CallRun(pipeline, this, i, list.get(i));
                    if (stops != null && stops.stopped(c.id())) {
                        c.stopBeforeStart(stops.stopReason);
                    }
                    calls[i] = c;
                }
                collecting = true;
                callsMade = true;
            }
        }
        for (int i = 0; i < calls.length && !cancelled(); i++) {
            try {
                calls[i].start();
            } catch (Throwable t) {
                calls[i].crash(t);
            }
        }
        flushWave();
        if (cancelled()) {
            // a cancel that came while the turn was starting (its tracing can take a while the first time)
            // found no call, or not every call, to stop, and no observation to end: do both now
            String reason = cancelReason;
            for (CallRun c : calls) {
                c.cancel(reason);
            }
            done();
            return;
        }
        if (pipeline.gate != null) {
            pipeline.gate.turnAdmitted(this);
        }
    }

    /**
     * Makes the only call of a turn told nothing before it started, without the monitor. A control cancel
     * publishes {@link #beforeStart} before it reads {@link #callsMade}, and this writes {@code callsMade}
     * before it reads {@code beforeStart} again (both volatile): either the cancel finds the call and stops
     * it, or this finds the cancel's note and, under the monitor the cancel writes it in, applies it.
     */
    private void makeOnlyCall(ToolCall call) {
        CallRun c = new CallRun(pipeline, this, 0, call);
        calls[0] = c;
        collecting = true;
        callsMade = true;
        if (beforeStart != null) {
            synchronized (this) {
                BeforeStart stops = beforeStart;
                if (stops.stopped(c.id())) {
                    c.stopBeforeStart(stops.stopReason);
                }
            }
        }
    }

    /**
     * A call asks the journal for its entry: collected while the turn starts its calls (one round trip
     * for the wave), else sent now (batched with other turns' by {@link JournalBatches}).
     */
    void journalBegin(JournaledCall call, BiConsumer<CallJournal.Entry, Throwable> done) {
        JournalBatches.Begin b = new JournalBatches.Begin(call.key, done);
        synchronized (this) {
            if (collecting) {
                call.waiting = b;
                return;
            }
        }
        pipeline.journals.begin(state.journal(), List.of(b));
    }

    /** The turn's calls are started: the journal gets the {@code begin} of those that wait, in call order. */
    private void flushWave() {
        collecting = false;
        if (!anyJournal()) {
            // no call has asked the journal: one that asks from now on reads collecting false (volatile, written
            // first; a call sets its journal before it asks) and sends its begin itself
            return;
        }
        List<JournalBatches.Begin> w = null;
        synchronized (this) {
            for (CallRun c : calls) {
                JournaledCall j = c.journal();
                if (j != null && j.waiting != null) {
                    if (w == null) {
                        w = new ArrayList<>(4);
                    }
                    w.add(j.waiting);
                    j.waiting = null;
                }
            }
        }
        if (w != null) {
            pipeline.journals.begin(state.journal(), w);
        }
    }

    private boolean anyJournal() {
        for (CallRun c : calls) {
            if (c.journal() != null) {
                return true;
            }
        }
        return false;
    }

    /** Whether the turn was cancelled (its subscriber went away, or the executor stopped). */
    boolean cancelled() {
        return cancelReason != null;
    }

    /** Whether the turn's calls exist (they are made all at once, then this is set). */
    private boolean callsCreated() {
        return callsMade;
    }

    /**
     * A control cancel: ends the unfinished calls of this turn (all, or the one named) {@code CANCELLED};
     * a turn that has not started yet answers them {@code CANCELLED} when it starts.
     *
     * @return whether anything unfinished was cancelled
     */
    boolean cancelCalls(String toolCallId, String reason) {
        synchronized (this) {
            if (finished != RUNNING || cancelled()) {
                return false;
            }
            // published before the calls are looked for: see makeOnlyCall
            BeforeStart stops = beforeStart();
            if (!callsCreated()) {
                stops.stopReason = reason;
                if (toolCallId == null) {
                    boolean first = !stops.stopAll;
                    stops.stopAll = true;
                    return first;
                }
                if (stops.stopAll || !hasCall(toolCallId)) {
                    return false;
                }
                return stops.stop(toolCallId);
            }
        }
        boolean any = false;
        for (CallRun c : calls) {
            if (toolCallId == null || c.id().equals(toolCallId)) {
                any |= c.stop(reason);
            }
        }
        return any;
    }

    private boolean hasCall(String toolCallId) {
        for (ToolCall c : turn.calls()) {
            if (c.toolCallId().equals(toolCallId)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Queues a live event of this turn (the caller may hold a lock; it calls {@link #flushLive} after
     * releasing it); {@code null} when refused (see {@link Sink#live}).
     */
    Mono<Void> live(OutboundEvent event) {
        return sink.live(stamp(event));
    }

    /** The handler Mono of call {@code index}, with the call's observation in its Reactor context when traced. */
    <T> Mono<T> inScope(int index, Mono<T> handler) {
        TurnObservation tr = trace;
        return tr == null ? handler : tr.inScope(index, handler);
    }

    /** The trace context of call {@code index} (its span's, or the inbound one), or null. */
    dev.toolbus.protocol.TraceContext callTrace(int index) {
        TurnObservation tr = trace;
        return tr == null ? null : tr.trace(index);
    }

    private OutboundEvent stamp(OutboundEvent event) {
        TurnObservation tr = trace;
        return tr == null ? event : tr.stamp(event);
    }

    /** Delivers the queued live events; call holding no lock. */
    void flushLive() {
        sink.flush();
    }

    @Override
    public ToolCallsEvent event() {
        return turn;
    }

    @Override
    public String instanceId() {
        return pipeline.instanceId;
    }

    @Override
    public Principal principal() {
        return principal;
    }

    /** What the contexts of the turn's calls offer the built-in tools: the turn's cut results, read as its principal. */
    @Override
    public <T> T find(Class<T> type) {
        return type == CutReader.class ? type.cast(new CutReader(state.cutResults(), principal, turn.streamId())) : null;
    }

    @Override
    public TurnState turnState() {
        return state;
    }

    @Override
    public Scheduler timer() {
        return pipeline.timer;
    }

    @Override
    public Mono<Void> publish(OutboundEvent event) {
        Mono<Void> m = sink.live(stamp(event));
        if (m == null) {
            return Mono.error(TurnLiveEvents.overflow());
        }
        sink.flush();
        return m;
    }

    /** Records a call's result and emits whatever is now in order (queued under the lock, delivered after). */
    void complete(int index, ToolResultEvent result, List<UserMessageEvent> messages, long nowNanos) {
        TurnObservation tr = trace;
        if (tr != null) {
            tr.callEnded(index, result);
            result = tr.stamp(index, result);
        }
        if (calls.length == 1) {
            completeOnly(result, messages, nowNanos);
            return;
        }
        boolean last;
        synchronized (this) {
            CallRun c = calls[index];
            if (finished != RUNNING || c.emitted != null) {
                return;
            }
            c.emitted = result;
            c.followUps = messages;
            try {
                while (nextEmit < calls.length && calls[nextEmit].emitted != null) {
                    CallRun next = calls[nextEmit++];
                    sink.next(next.replayed() ? ReplayedEvent.of(next.emitted) : next.emitted);
                }
                last = nextEmit == calls.length;
                if (last) {
                    finish(nowNanos);
                }
            } catch (Throwable t) {
                abandon(t);
                return;
            }
        }
        try {
            if (last) {
                sink.complete();
            } else {
                sink.flush();
            }
        } catch (Throwable t) {
            abandon(t);
        }
    }

    /**
     * The end of a turn's only call, without the monitor: claiming {@link #finished} once orders it
     * against a cancel (which claims it too) and against a second completion of the call; the events
     * then go to the sink from this thread alone, in order, where it can deliver them straight away.
     */
    private void completeOnly(ToolResultEvent result, List<UserMessageEvent> messages, long nowNanos) {
        CallRun c = calls[0];
        if (finished != RUNNING || c.emitted != null) {
            return;
        }
        // written before the claim, which publishes them to done() on another thread
        c.emitted = result;
        c.followUps = messages;
        if (!FINISHED.compareAndSet(this, RUNNING, NORMALLY)) {
            c.emitted = null;
            c.followUps = null;
            return;
        }
        nextEmit = 1;
        int e = result.isError() ? 1 : 0;
        try {
            boolean replayed = c.replayed();
            OutboundEvent first = replayed ? ReplayedEvent.of(result) : result;
            if (messages == null || messages.isEmpty()) {
                OutboundEvent end = completed(e, nowNanos);
                pipeline.metrics.turn();
                sink.completeWith(first, end);
                return;
            }
            sink.emit(first);
            for (int i = 0; i < messages.size(); i++) {
                OutboundEvent m = stamp(messages.get(i));
                sink.emit(replayed ? ReplayedEvent.of(m) : m);
            }
            sink.emit(completed(e, nowNanos));
            pipeline.metrics.turn();
            sink.complete();
        } catch (Throwable t) {
            abandon(t);
        }
    }

    private OutboundEvent completed(int errorCount, long nowNanos) {
        return stamp(new TurnCompletedEvent(turn.streamId(), turn.turnId(), callIds(turn.calls()), errorCount,
                (nowNanos - startNanos) / 1_000_000));
    }

    /** The sink threw (an {@code Error} included): the turn emits nothing more, and its stream is freed. */
    private void abandon(Throwable t) {
        org.slf4j.LoggerFactory.getLogger(TurnRun.class).error("turn {} of stream {} could not deliver its events; "
                + "its stream is freed", turn.turnId(), turn.streamId(), t);
        FINISHED.compareAndSet(this, RUNNING, ENDED);
        done();
    }

    /** Cancels running calls with the reason {@code cancelled}; see {@link #cancel(String)}. */
    void cancel() {
        cancel(ToolContext.CANCELLED);
    }

    /** Cancels running calls; the turn emits nothing more and frees its stream. */
    void cancel(String reason) {
        cancelReason = reason == null ? ToolContext.CANCELLED : reason;
        FINISHED.compareAndSet(this, RUNNING, ENDED);
        for (CallRun c : calls) {
            if (c != null) {
                c.cancel(reason);
            }
        }
        if (started) {
            done();
        }
    }

    /** Frees the stream for its next turn; idempotent. */
    void done() {
        TurnObservation tr = trace;
        if (tr != null) {
            int errorCount;
            boolean normal;
            synchronized (this) {
                normal = finished == NORMALLY;
                errorCount = errors();
            }
            tr.stop(errorCount, !normal);
        }
        if (onDone != null && DONE_ONCE.compareAndSet(this, 0, 1)) {
            onDone.accept(this);
        }
    }

    /** Whether the executor refused this turn (it was closing): it has no lane and runs nothing. */
    boolean rejected() {
        return onDone == null;
    }

    /** Queues the media follow-ups and {@code turn_completed} (the caller holds the lock, then calls {@link Sink#complete}). */
    private void finish(long nowNanos) {
        finished = NORMALLY;
        for (CallRun c : calls) {
            List<UserMessageEvent> m = c.followUps;
            if (m != null && !m.isEmpty()) {
                for (int i = 0; i < m.size(); i++) {
                    OutboundEvent e = stamp(m.get(i));
                    sink.next(c.replayed() ? ReplayedEvent.of(e) : e);
                }
            }
        }
        sink.next(stamp(new TurnCompletedEvent(turn.streamId(), turn.turnId(), callIds(turn.calls()), errors(),
                (nowNanos - startNanos) / 1_000_000)));
        pipeline.metrics.turn();
    }

    /** The calls that ended in error so far (the caller holds the monitor, or claimed {@link #finished}). */
    private int errors() {
        int n = 0;
        for (CallRun c : calls) {
            if (c != null && c.emitted != null && c.emitted.isError()) {
                n++;
            }
        }
        return n;
    }

    private static List<String> callIds(List<ToolCall> calls) {
        if (calls.size() == 1) {
            return List.of(calls.get(0).toolCallId());
        }
        String[] ids = new String[calls.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = calls.get(i).toolCallId();
        }
        return List.of(ids);
    }
}
