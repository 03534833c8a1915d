package dev.toolbus.executor;

import dev.toolbus.bus.ToolBus;
import dev.toolbus.metrics.CallLog;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SkillsEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.ToolsEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.registry.ToolExport;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.Visibility;
import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/** The executor: turns in, events out (see {@link ToolExecutor}). */
final class DefaultToolExecutor implements ToolExecutor {

    private static final Logger log = LoggerFactory.getLogger(DefaultToolExecutor.class);

    private final Pipeline pipeline;
    private final StreamLanes lanes = new StreamLanes();
    private final EventCodec codec;
    private final int maxInflightTurns;
    private final Scheduler ownedBlocking;
    private final AtomicInteger activeTurns = new AtomicInteger();
    private final Sinks.Empty<Void> drained = Sinks.empty();
    private final ControlRouter router;
    private final DispatchedListing dispatch;
    private final TurnLedger turnLedger;
    private final RepeatedTurnMetrics repeats;
    private final SkillProvider skills;
    private final Consumer<TurnRun> released = run -> {
        lanes.release(run);
        leave();
    };
    private volatile boolean closing;

    DefaultToolExecutor(ToolExecutor.Builder b, ToolRegistry registry) {
        ExecutionSettings settings = b.settings;
        settings.warnings().forEach(w -> log.warn("execution settings: {}", w));
        Scheduler timer = b.timer != null ? b.timer : Schedulers.parallel();
        LongSupplier clock = b.nanoClock != null ? b.nanoClock
                : b.timer != null ? () -> timer.now(TimeUnit.NANOSECONDS) : System::nanoTime;
        this.ownedBlocking = b.blockingScheduler == null
                ? Schedulers.newBoundedElastic(Math.max(64, settings.maxParallel() * 4), 100_000, "toolbus-blocking", 60, true)
                : null;
        Scheduler blocking = b.blockingScheduler != null ? b.blockingScheduler : ownedBlocking;
        MeterRegistry meters = b.meterRegistry != null ? b.meterRegistry : new SimpleMeterRegistry();
        // without approval settings there is no approval step at all: plain calls pay nothing for it
        CallGate gate = b.callGate != null ? b.callGate
                : b.approvalGiven ? new ApprovalGate(b.approval, settings.locale(), meters, clock) : null;
        this.pipeline = new Pipeline(settings, registry, b.policy, timer, blocking, clock, meters,
                CallLog.create(b.callLogSize), b.instanceId, gate, b.limits, b.rateLimitStore);
        if (b.timer == null && b.nanoClock == null) {
            pipeline.recordClock = RecordClock.system(timer);
        }
        if (!b.observationRegistry.isNoop()) {
            pipeline.tracing = new TurnTracing(b.observationRegistry);
        }
        this.router = new ControlRouter(lanes, pipeline.inputs, gate, pipeline.control);
        this.codec = b.codec;
        this.maxInflightTurns = b.maxInflightTurns;
        this.dispatch = b.dispatch == null ? null : new DispatchedListing(b.dispatch, b.dispatchCacheTtl, clock, meters);
        this.skills = b.skills;
        this.turnLedger = b.turnLedger != null ? b.turnLedger : TurnLedger.inMemory(b.turnLedgerSettings, clock);
        this.repeats = RepeatedTurnMetrics.register(meters);
    }

    /** The ledger of idempotent turns for callers of {@link #handle} and buses without their own. */
    TurnLedger turnLedger() {
        return turnLedger;
    }

    /** The counters of repeated turns. */
    RepeatedTurnMetrics repeats() {
        return repeats;
    }

    @Override
    public Flux<OutboundEvent> execute(ToolCallsEvent turn) {
        ErrorEvent refused = TurnChecks.refusal(turn, pipeline.settings);
        if (refused != null) {
            return Flux.just(turn.trace() == null ? refused : refused.withTrace(turn.trace()));
        }
        return new TurnPublisher(this, turn);
    }

    /**
     * A turn writing to the sink. When the executor is closing, the turn is marked rejected:
     * {@link #submit} then answers every call {@code REJECTED} instead of running it.
     */
    TurnRun newTurn(ToolCallsEvent turn, TurnRun.Sink sink) {
        if (!enter()) {
            return new TurnRun(turn, pipeline, sink, null);
        }
        return new TurnRun(turn, pipeline, sink, released);
    }

    /**
     * The observation an {@code execute()} subscriber runs in (its Reactor context's
     * {@code ObservationThreadLocalAccessor.KEY}): the parent of a traced turn that came without a
     * {@code traceparent}; {@code null} when not observing.
     */
    Object tracingParent(ToolCallsEvent turn, reactor.util.context.ContextView context) {
        if (pipeline.tracing == TurnTracing.OFF || turn.trace() != null || context.isEmpty()) {
            return null;
        }
        return context.getOrDefault(io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor.KEY,
                null);
    }

    /** Queues the turn on its stream's lane (or answers it at once when it was rejected). */
    void submit(TurnRun run, TurnRun.Sink sink) {
        if (run.rejected()) {
            rejectTurn(run.turn).forEach(sink::next);
            sink.complete();
            return;
        }
        lanes.submit(run);
    }

    @Override
    public Flux<OutboundEvent> handle(InboundEvent event) {
        if (event instanceof ToolCallsEvent t) {
            return IdempotentTurns.forCaller(turnLedger, repeats, t, () -> execute(t));
        }
        if (event instanceof ControlEvent c) {
            return control(c).flatMapMany(o -> o == ControlOutcome.UNKNOWN_REQUEST
                    ? Flux.just(unknownRequest(c)) : Flux.empty());
        }
        if (event instanceof ListSkillsEvent s) {
            return answerSkillsOrError(s).flux();
        }
        return answerListTools((ListToolsEvent) event).<OutboundEvent>map(t -> t).flux();
    }

    @Override
    public Mono<SkillsEvent> answerListSkills(ListSkillsEvent request) {
        return skills == null ? Mono.fromSupplier(() -> SkillsEvent.off(request))
                : Mono.defer(() -> skills.answer(request));
    }

    /** The {@code skills} answer, or a {@code TOOL_FAILED} error event when the provider failed (logged). */
    Mono<OutboundEvent> answerSkillsOrError(ListSkillsEvent request) {
        return answerListSkills(request).<OutboundEvent>map(e -> e)
                .onErrorResume(e -> {
                    log.error("list_skills of stream {} failed", request.streamId(), e);
                    return Mono.just(new ErrorEvent(request.streamId(), null, ErrorCode.TOOL_FAILED,
                            "list_skills failed inside toolbus (logged by the server)"));
                });
    }

    @Override
    public Mono<ControlOutcome> control(ControlEvent event) {
        return Mono.fromSupplier(() -> router.route(event));
    }

    /** The error answering a control event whose id nobody waits for. */
    static ErrorEvent unknownRequest(ControlEvent event) {
        return new ErrorEvent(event.streamId(), null, ErrorCode.UNKNOWN_REQUEST, ControlRouter.unknownText(event));
    }

    @Override
    public String instanceId() {
        return pipeline.instanceId;
    }

    /** Cancels by a subscriber that went away (counted). */
    void subscriberCancelled() {
        pipeline.control.cancelBySubscriber();
    }

    /** The cancel reason of a turn whose subscriber went away: {@code shutdown} while closing. */
    String abandonReason() {
        return closing ? ToolContext.SHUTDOWN : ToolContext.CANCELLED;
    }

    /** Approval requests waiting for an answer (tests). */
    int pendingApprovals() {
        return pipeline.gate instanceof ApprovalGate g ? g.pendingRequests() : 0;
    }

    /** Questions waiting for an answer (tests). */
    int pendingInputs() {
        return pipeline.inputs.size();
    }

    @Override
    public ToolsEvent listTools(ListToolsEvent request) {
        return export(request, allowed(request));
    }

    @Override
    public Mono<ToolsEvent> answerListTools(ListToolsEvent request) {
        if (dispatch == null || request.text() == null) {
            return Mono.fromSupplier(() -> listTools(request));
        }
        return Mono.defer(() -> dispatch.narrow(request.streamId(), request.text(), request.context(), allowed(request),
                pipeline.settings.locale()))
                .map(entries -> export(request, entries));
    }

    /** The visible entries the policy lets this session see, in registry order. */
    private List<ToolRegistry.Entry> allowed(ListToolsEvent request) {
        List<ToolRegistry.Entry> out = new ArrayList<>();
        for (ToolRegistry.Entry e : pipeline.registry.entries()) {
            ToolDefinition def = e.tool().definition();
            if (def.visibility() != Visibility.VISIBLE) {
                continue;
            }
            if (!pipeline.policy.decide(def, request.streamId(), request.context()).allowed()) {
                continue;
            }
            out.add(e);
        }
        return out;
    }

    private ToolsEvent export(ListToolsEvent request, List<ToolRegistry.Entry> entries) {
        List<JsonNode> out = new ArrayList<>(entries.size());
        for (ToolRegistry.Entry e : entries) {
            out.add(ToolExport.export(e.tool().definition(), request.format(), pipeline.settings.locale()));
        }
        return new ToolsEvent(request.streamId(), request.requestId(), request.format().wireName(), out,
                request.trace());
    }

    @Override
    public Disposable attach(ToolBus bus) {
        return run(bus).subscribe(null, e -> log.error("bus loop ended with an error", e));
    }

    @Override
    public Mono<Void> run(ToolBus bus) {
        return new BusLoop(this, bus, codec, maxInflightTurns).run();
    }

    /**
     * Runs a turn for a bus: live events published at once (one batch each, in order), the other events
     * collected and handed to {@code publish} after every live publish completed, the lane held until
     * that completes.
     */
    Mono<Void> runForBus(ToolCallsEvent turn, Function<List<OutboundEvent>, Mono<Void>> publish) {
        ErrorEvent refused = TurnChecks.refusal(turn, pipeline.settings);
        if (refused != null) {
            OutboundEvent answer = turn.trace() == null ? refused : refused.withTrace(turn.trace());
            return Mono.defer(() -> publish.apply(List.of(answer)));
        }
        return Mono.create(result -> {
            List<OutboundEvent> events = new ArrayList<>(turn.calls().size() + 1);
            TurnRun[] run = new TurnRun[1];
            TurnRun.Sink sink = new TurnRun.Sink() {
                private LiveChannel live;

                @Override
                public void next(OutboundEvent event) {
                    events.add(event);
                }

                @Override
                public Mono<Void> live(OutboundEvent event) {
                    return channel().enqueue(event);
                }

                @Override
                public void flush() {
                    LiveChannel ch;
                    synchronized (this) {
                        ch = live;
                    }
                    if (ch != null) {
                        ch.flush();
                    }
                }

                private synchronized LiveChannel channel() {
                    if (live == null) {
                        live = new LiveChannel(publish);
                    }
                    return live;
                }

                @Override
                public void complete() {
                    LiveChannel ch;
                    synchronized (this) {
                        ch = live;
                    }
                    if (ch == null) {
                        publishFinal();
                    } else {
                        ch.whenIdle(this::publishFinal);
                    }
                }

                private void publishFinal() {
                    Mono<Void> published;
                    try {
                        published = publish.apply(events);
                    } catch (RuntimeException e) {
                        published = Mono.error(e);
                    }
                    published.doFinally(s -> run[0].done()).subscribe(null, result::error, result::success);
                }
            };
            run[0] = newTurn(turn, sink);
            submit(run[0], sink);
        });
    }

    private boolean enter() {
        if (closing) {
            return false;
        }
        activeTurns.incrementAndGet();
        if (closing) {
            leave();
            return false;
        }
        return true;
    }

    private void leave() {
        if (activeTurns.decrementAndGet() == 0 && closing) {
            drained.tryEmitEmpty();
        }
    }

    /** The events of a turn refused because the executor is closing. */
    private List<OutboundEvent> rejectTurn(ToolCallsEvent turn) {
        String msg = pipeline.texts.shuttingDown();
        List<OutboundEvent> out = new ArrayList<>(turn.calls().size() + 1);
        List<String> ids = new ArrayList<>(turn.calls().size());
        for (ToolCall c : turn.calls()) {
            out.add(new ToolResultEvent(turn.streamId(), turn.turnId(), c.toolCallId(), c.name(), msg, true,
                    new ErrorInfo(ErrorCode.REJECTED, msg), null, null, null, 0, false, 0, turn.trace()));
            ids.add(c.toolCallId());
        }
        out.add(new TurnCompletedEvent(turn.streamId(), turn.turnId(), ids, ids.size(), 0, turn.trace()));
        return out;
    }

    @Override
    public ToolRegistry registry() {
        return pipeline.registry;
    }

    @Override
    public ExecutionSettings settings() {
        return pipeline.settings;
    }

    @Override
    public CallLog callLog() {
        return pipeline.callLog;
    }

    @Override
    public int inflight() {
        return pipeline.inflight.get();
    }

    @Override
    public ExecutorHealth health() {
        Slots slots = pipeline.slots;
        long[] r = pipeline.running.snapshot(pipeline.nanoClock.getAsLong());
        return new ExecutorHealth(slots.size(), slots.inUse(), slots.queued(), pipeline.settings.maxQueuedCalls(),
                activeTurns.get(), (int) r[0], r[1], (int) r[2], closing);
    }

    /** The result cache, or null when caching is off (for tests). */
    ResultCache cache() {
        return pipeline.cache;
    }

    /** The concurrency caps of the limit step (tests), or null without limits. */
    ConcurrencyCaps limitCaps() {
        return pipeline.limits == null ? null : pipeline.limits.caps;
    }

    /** The full texts of cut results (tests). */
    FullResults fullResults() {
        return pipeline.fullResults;
    }

    /** Calls waiting for a slot. */
    int queued() {
        return pipeline.slots.queued();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            closing = true;
            if (activeTurns.get() == 0) {
                drained.tryEmitEmpty();
            }
            return drained.asMono();
        }).then(Mono.fromRunnable(() -> {
            if (ownedBlocking != null) {
                ownedBlocking.dispose();
            }
        }));
    }
}
