package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.approval.ApprovalStep;
import dev.toolbus.executor.limits.LimitStep;
import dev.toolbus.executor.limits.Limits;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.state.InMemoryTurnState;
import dev.toolbus.executor.state.TurnLedgerSettings;
import dev.toolbus.executor.state.TurnStateStep;
import dev.toolbus.metrics.CallLog;
import dev.toolbus.metrics.ExecutorHealth;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.ErrorInfo;
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
import dev.toolbus.spi.CallGate;
import dev.toolbus.spi.CallRules;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.RateLimitStore;
import dev.toolbus.spi.SkillProvider;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.spi.ToolDispatch;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnLedger;
import dev.toolbus.spi.TurnState;
import dev.toolbus.spi.TurnStateSettings;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.Visibility;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The engine: turns in, events out. Not API: {@code ToolExecutor.builder()} builds it and the
 * package-private {@code DefaultToolExecutor} is the {@code ToolExecutor} over it, so this package never
 * depends on {@code dev.toolbus.executor}. Its behaviour is {@code ToolExecutor}'s, method for method.
 */
public final class Engine {

    private static final Logger log = LoggerFactory.getLogger(Engine.class);

    private final Pipeline pipeline;
    private final StreamLanes lanes = new StreamLanes();
    private final EventCodec codec;
    private final int maxInflightTurns;
    private final Scheduler ownedBlocking;
    private final AtomicInteger activeTurns = new AtomicInteger();
    private final Sinks.Empty<Void> drained = Sinks.empty();
    private final ControlRouter router;
    private final DispatchedListing dispatch;
    private final TurnStateStep turnState;
    private final SkillProvider skills;
    private final Consumer<TurnRun> released = run -> {
        lanes.release(run);
        leave();
    };
    private volatile boolean closing;
    /** The subscription to the answers recorded in this executor's state (by any instance). */
    private final Disposable answers;

    /** Builds the engine from its parts (validated by {@code ToolExecutor.Builder}); registers the built-in tools. */
    public Engine(Options o) {
        ExecutionSettings settings = o.settings;
        ToolRegistry registry = o.registry;
        Scheduler timer = o.timer != null ? o.timer : Schedulers.parallel();
        LongSupplier clock = o.nanoClock != null ? o.nanoClock
                : o.timer != null ? () -> timer.now(TimeUnit.NANOSECONDS) : System::nanoTime;
        this.ownedBlocking = o.blockingScheduler == null
                ? Schedulers.newBoundedElastic(Math.max(64, settings.maxParallel() * 4), 100_000, "toolbus-blocking", 60, true)
                : null;
        Scheduler blocking = o.blockingScheduler != null ? o.blockingScheduler : ownedBlocking;
        MeterRegistry meters = o.meterRegistry != null ? o.meterRegistry : new SimpleMeterRegistry();
        // without approval settings there is no approval step at all: plain calls pay nothing for it
        CallGate gate = o.callGate != null ? o.callGate
                : o.approval != null ? ApprovalStep.create(o.approval, settings.locale(), meters) : null;
        ReadToolResult.register(registry, settings.locale());
        this.pipeline = new Pipeline(settings, registry, o.policy, timer, blocking, clock, meters,
                CallLog.create(o.callLogSize), o.instanceId, gate, o.limits, o.rateLimitStore, o.rules);
        if (o.timer == null && o.nanoClock == null) {
            pipeline.recordClock = RecordClock.system(timer);
        }
        if (!o.observationRegistry.isNoop()) {
            pipeline.tracing = new TurnTracing(o.observationRegistry, new GenAiMeters(meters), clock,
                    settings.locale());
        }
        this.router = new ControlRouter(lanes, pipeline.inputs, gate, pipeline.control,
                () -> pipeline.settings.inputTimeout());
        this.codec = o.codec;
        this.maxInflightTurns = o.maxInflightTurns;
        this.dispatch = o.dispatch == null ? null : new DispatchedListing(o.dispatch, o.dispatchCacheTtl, clock, meters);
        this.skills = o.skills;
        LongSupplier epochMillis = () -> timer.now(TimeUnit.MILLISECONDS);
        InMemoryTurnState memory = InMemoryTurnState.builder().ledger(o.turnLedgerSettings)
                .settings(o.turnStateSettings != null ? o.turnStateSettings : TurnStateSettings.DEFAULTS.toBuilder()
                        .cutResultsTtl(settings.results().storeTtl()).cutResultsMaxBytes(settings.results().storeMaxBytes())
                        .cutResultsMaxEntries(settings.results().storeMaxEntries()).build())
                .nanoClock(clock).epochMillis(epochMillis).meters(meters).build();
        this.turnState = TurnStateStep.create(TurnStateStep.overlay(o.turnState, memory), meters);
        this.answers = listen(turnState.state());
    }

    /**
     * Listens to the answers recorded in a state by any instance: each one this instance waits on is
     * applied. A failing signal is logged and the listening goes on (a request's expiry still applies
     * its answer).
     */
    Disposable listen(TurnState state) {
        return state.requests().answered()
                .onErrorResume(e -> {
                    log.warn("the turn state stopped signalling answers (expiries still apply them): {}", e.toString());
                    return Flux.empty();
                })
                .subscribe(id -> {
                    try {
                        router.signal(id);
                    } catch (RuntimeException e) {
                        log.error("applying the answer {} failed", id, e);
                    }
                });
    }

    /** The turn-state step (its state serves callers of {@link #handle} and buses without their own). */
    TurnStateStep turnStateStep() {
        return turnState;
    }

    /** The ledger of idempotent turns for callers of {@link #handle} and buses without their own (diagnostics). */
    public TurnLedger turnLedger() {
        return turnState.ledger();
    }

    /** The turn state for callers of {@link #handle} and buses without their own. */
    public TurnState turnState() {
        return turnState.state();
    }

    public Flux<OutboundEvent> execute(ToolCallsEvent turn, Principal principal) {
        java.util.Objects.requireNonNull(principal, "principal");
        ErrorEvent refused = TurnChecks.refusal(turn, pipeline.settings);
        if (refused != null) {
            return Flux.just(turn.trace() == null ? refused : refused.withTrace(turn.trace()));
        }
        return new TurnPublisher(this, turn, principal);
    }

    /**
     * A turn writing to the sink. When the executor is closing, the turn is marked rejected:
     * {@link #submit} then answers every call {@code REJECTED} instead of running it.
     */
    TurnRun newTurn(ToolCallsEvent turn, Principal principal, TurnRun.Sink sink) {
        return newTurn(turn, principal, turnState.state(), sink);
    }

    /** A turn of a principal whose calls use the given state (a bus's). */
    TurnRun newTurn(ToolCallsEvent turn, Principal principal, TurnState state, TurnRun.Sink sink) {
        if (!enter()) {
            return new TurnRun(turn, principal, state, pipeline, sink, null);
        }
        return new TurnRun(turn, principal, state, pipeline, sink, released);
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

    public Flux<OutboundEvent> handle(InboundEvent event, Principal principal) {
        if (event instanceof ToolCallsEvent t) {
            return turnState.forCaller(t, principal, () -> execute(t, principal));
        }
        if (event instanceof ControlEvent c) {
            return control(c, principal).flatMapMany(o -> {
                ErrorEvent error = controlError(c, o);
                return error == null ? Flux.empty() : Flux.just(error);
            });
        }
        if (event instanceof ListSkillsEvent s) {
            return answerSkillsOrError(s).flux();
        }
        return answerListTools((ListToolsEvent) event).<OutboundEvent>map(t -> t).flux();
    }

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

    public Mono<ControlOutcome> control(ControlEvent event, Principal principal) {
        return control(event, principal, turnState.state());
    }

    /** A control event of a principal, recorded in the given state (a bus's); observed when tracing is on. */
    Mono<ControlOutcome> control(ControlEvent event, Principal principal, TurnState state) {
        java.util.Objects.requireNonNull(principal, "principal");
        TurnTracing tracing = pipeline.tracing;
        if (tracing == TurnTracing.OFF) {
            return Mono.defer(() -> router.route(event, principal, state));
        }
        // observed: a span of the caller's trace (the event's traceparent), else of the subscriber's observation
        return Mono.deferContextual(context -> tracing.control(event,
                event.trace() != null || context.isEmpty() ? null : context.getOrDefault(
                        io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor.KEY, null),
                () -> router.route(event, principal, state)));
    }

    /** The error answering a control event with this outcome, or {@code null} when it needs none. */
    public ErrorEvent controlError(ControlEvent event, ControlOutcome outcome) {
        return switch (outcome) {
            case UNKNOWN_REQUEST -> unknownRequest(event);
            case INVALID_ANSWER -> new ErrorEvent(event.streamId(), null, ErrorCode.BAD_EVENT,
                    event instanceof InputResponseEvent i ? pipeline.inputs.invalidText(i)
                            : "the answer does not match what was asked");
            case APPLIED, NOTHING_TO_DO, HELD -> null;
        };
    }

    /** The error answering a control event whose id nobody waits for (with the event's trace context). */
    static ErrorEvent unknownRequest(ControlEvent event) {
        ErrorEvent e = new ErrorEvent(event.streamId(), null, ErrorCode.UNKNOWN_REQUEST, ControlRouter.unknownText(event));
        return event.trace() == null ? e : e.withTrace(event.trace());
    }

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

    /** Approval requests waiting for an answer (diagnostics). */
    public int pendingApprovals() {
        return pipeline.gate instanceof ApprovalStep g ? g.pendingRequests() : 0;
    }

    /** Questions waiting for an answer (diagnostics). */
    public int pendingInputs() {
        return pipeline.inputs.size();
    }

    public ToolsEvent listTools(ListToolsEvent request) {
        return export(request, allowed(request));
    }

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
            ToolDefinition d = e.tool().definition();
            out.add(ToolExport.export(d, request.format(), pipeline.settings.locale(),
                    pipeline.rules == null ? d.allowedCallers() : pipeline.rules.allowedCallers(d)));
        }
        return ToolsEvent.builder().streamId(request.streamId()).requestId(request.requestId())
                .format(request.format().wireName()).tools(out).trace(request.trace()).build();
    }

    public Disposable attach(ToolBus bus) {
        return run(bus).subscribe(null, e -> log.error("bus loop ended with an error", e));
    }

    public Mono<Void> run(ToolBus bus) {
        return new BusLoop(this, bus, codec, maxInflightTurns).run();
    }

    /**
     * Runs a turn for a bus: live events published at once (one batch each, in order), the other events
     * collected and handed to {@code publish} after every live publish completed, the lane held until
     * that completes.
     */
    Mono<Void> runForBus(ToolCallsEvent turn, Principal principal, TurnState state,
                         Function<List<OutboundEvent>, Mono<Void>> publish) {
        ErrorEvent refused = TurnChecks.refusal(turn, pipeline.settings);
        if (refused != null) {
            OutboundEvent answer = turn.trace() == null ? refused : refused.withTrace(turn.trace());
            return Mono.defer(() -> publish.apply(List.of(answer)));
        }
        return Mono.create(result -> {
            List<OutboundEvent> events = new ArrayList<>(turn.calls().size() + 1);
            TurnRun[] run = new TurnRun[1];
            TurnRun.Sink sink = new TurnRun.Sink() {
                private TurnLiveEvents live;

                            @Override
                            public void next(OutboundEvent event) {
                    events.add(event);
                }

                            @Override
                            public Mono<Void> live(OutboundEvent event) {
                    return liveEvents().enqueue(event);
                }

                            @Override
                            public void flush() {
                    TurnLiveEvents ch;
                    synchronized (this) {
                        ch = live;
                    }
                    if (ch != null) {
                        ch.flush();
                    }
                }

                private synchronized TurnLiveEvents liveEvents() {
                    if (live == null) {
                        live = new TurnLiveEvents(publish);
                    }
                    return live;
                }

                            @Override
                            public void complete() {
                    TurnLiveEvents ch;
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
            run[0] = newTurn(turn, principal, state, sink);
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
            out.add(ToolResultEvent.builder().streamId(turn.streamId()).turnId(turn.turnId())
                    .toolCallId(c.toolCallId()).name(c.name()).content(msg).isError(true)
                    .error(new ErrorInfo(ErrorCode.REJECTED, msg)).trace(turn.trace()).build());
            ids.add(c.toolCallId());
        }
        out.add(new TurnCompletedEvent(turn.streamId(), turn.turnId(), ids, ids.size(), 0, turn.trace()));
        return out;
    }

    public ToolRegistry registry() {
        return pipeline.registry;
    }

    public ExecutionSettings settings() {
        return pipeline.settings;
    }

    public CallLog callLog() {
        return pipeline.callLog;
    }

    public int inflight() {
        return pipeline.running.count();
    }

    public ExecutorHealth health() {
        Slots slots = pipeline.slots;
        long[] r = pipeline.running.snapshot(pipeline.nanoClock.getAsLong());
        return ExecutorHealth.builder().slots(slots.size()).slotsInUse(slots.inUse()).queuedCalls(slots.queued())
                .maxQueuedCalls(pipeline.settings.maxQueuedCalls()).activeTurns(activeTurns.get())
                .runningCalls((int) r[0]).oldestCallMs(r[1]).stuckCalls((int) r[2]).closing(closing).build();
    }

    /** The result cache, or null when caching is off (for tests). */
    ResultCache cache() {
        return pipeline.cache;
    }

    /** The limit step, or null without limits (diagnostics). */
    public LimitStep limits() {
        return pipeline.limits;
    }

    /** Whether turns and calls are observed (an observation registry other than {@code NOOP} was given). */
    public boolean traced() {
        return pipeline.tracing != TurnTracing.OFF;
    }

    /** Calls waiting for a slot (diagnostics). */
    public int queued() {
        return pipeline.slots.queued();
    }

    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            closing = true;
            if (activeTurns.get() == 0) {
                drained.tryEmitEmpty();
            }
            return drained.asMono();
        }).then(Mono.fromRunnable(() -> {
            answers.dispose();
            if (ownedBlocking != null) {
                ownedBlocking.dispose();
            }
        }));
    }

    /**
     * The parts of an engine, as {@code ToolExecutor.Builder} collects and validates them. Not API.
     */
    public static final class Options {
        ToolRegistry registry;
        ExecutionSettings settings = ExecutionSettings.defaults();
        ToolPolicy policy = ToolPolicy.allowAll();
        MeterRegistry meterRegistry;
        Scheduler timer;
        Scheduler blockingScheduler;
        LongSupplier nanoClock;
        EventCodec codec = EventCodec.defaults();
        int callLogSize = 1000;
        int maxInflightTurns = 256;
        String instanceId;
        ToolDispatch dispatch;
        Duration dispatchCacheTtl = Duration.ofSeconds(30);
        SkillProvider skills;
        CallGate callGate;
        Supplier<ApprovalSettings> approval;
        Supplier<Limits> limits;
        RateLimitStore rateLimitStore;
        TurnLedgerSettings turnLedgerSettings = TurnLedgerSettings.DEFAULTS;
        TurnStateSettings turnStateSettings;
        TurnState turnState;
        ObservationRegistry observationRegistry = ObservationRegistry.NOOP;
        CallRules rules;

        /** The rules over the call; {@code null}: none (each tool's own allowed callers still apply). */
        public Options rules(CallRules v) {
            rules = v;
            return this;
        }

        /** The registry the engine runs (and registers its built-in tools in). */
        public Options registry(ToolRegistry v) {
            registry = v;
            return this;
        }

        public Options settings(ExecutionSettings v) {
            settings = v;
            return this;
        }

        public Options policy(ToolPolicy v) {
            policy = v;
            return this;
        }

        public Options meterRegistry(MeterRegistry v) {
            meterRegistry = v;
            return this;
        }

        public Options timer(Scheduler v) {
            timer = v;
            return this;
        }

        public Options blockingScheduler(Scheduler v) {
            blockingScheduler = v;
            return this;
        }

        public Options nanoClock(LongSupplier v) {
            nanoClock = v;
            return this;
        }

        public Options codec(EventCodec v) {
            codec = v;
            return this;
        }

        public Options callLogSize(int v) {
            callLogSize = v;
            return this;
        }

        public Options maxInflightTurns(int v) {
            maxInflightTurns = v;
            return this;
        }

        public Options instanceId(String v) {
            instanceId = v;
            return this;
        }

        public Options dispatch(ToolDispatch v, Duration cacheTtl) {
            dispatch = v;
            dispatchCacheTtl = cacheTtl;
            return this;
        }

        public Options skills(SkillProvider v) {
            skills = v;
            return this;
        }

        public Options callGate(CallGate v) {
            callGate = v;
            return this;
        }

        public Options approval(Supplier<ApprovalSettings> v) {
            approval = v;
            return this;
        }

        public Options limits(Supplier<Limits> v) {
            limits = v;
            return this;
        }

        public Options rateLimitStore(RateLimitStore v) {
            rateLimitStore = v;
            return this;
        }

        public Options turnLedgerSettings(TurnLedgerSettings v) {
            turnLedgerSettings = v;
            return this;
        }

        public Options turnState(TurnState v) {
            turnState = v;
            return this;
        }

        public Options turnStateSettings(TurnStateSettings v) {
            turnStateSettings = v;
            return this;
        }

        public Options observationRegistry(ObservationRegistry v) {
            observationRegistry = v;
            return this;
        }
    }
}
