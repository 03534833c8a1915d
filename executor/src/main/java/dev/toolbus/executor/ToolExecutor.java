package dev.toolbus.executor;

import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.internal.Engine;
import dev.toolbus.executor.limits.Limits;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.state.TurnLedgerSettings;
import dev.toolbus.metrics.CallLog;
import dev.toolbus.metrics.ExecutorHealth;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SkillsEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolsEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.CallGate;
import dev.toolbus.spi.CallRules;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.RateLimitStore;
import dev.toolbus.spi.SkillProvider;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.spi.ToolDispatch;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.spi.TurnState;
import dev.toolbus.spi.TurnStateSettings;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Runs the tool calls of turns and produces their events.
 *
 * <p>Per turn, in this order: one {@code tool_result} per call, in call order; one
 * {@code user_message} per media item; one {@code turn_completed}. Turns of one stream run one after
 * the other in arrival order; different streams never wait for each other. At most
 * {@link ExecutionSettings#maxParallel()} handlers run at once across all streams; more calls wait.
 * Every failure is a {@code tool_result} with {@code is_error} and a code: the executor never fails a
 * turn because of one call. Every executor registers the built-in {@code read_tool_result} tool
 * (deferred) in its registry, unless a tool of that name is there: results longer than their limit are
 * cut, and the model reads the rest with it.
 *
 * <pre>{@code
 * try (ToolExecutor executor = ToolExecutor.builder()
 *         .tools(Tools.fromObject(new MyPlugin()))
 *         .settings(ExecutionSettings.builder().maxParallel(10).timeoutMs(5000).build())
 *         .build()) {
 *     ToolCallsEvent turn = ToolCallsEvent.of("chat-1", "turn-1",
 *             List.of(ToolCall.ofJson("call-1", "get_weather", "{\"city\":\"Paris\"}")));
 *     executor.execute(turn).doOnNext(event -> send(event)).blockLast();
 * }
 * }</pre>
 */
public interface ToolExecutor extends AutoCloseable {

    /** Starts a builder. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * Runs one turn of the in-process caller ({@link Principal#local()}); see {@link #execute(ToolCallsEvent,
     * Principal)}.
     */
    default Flux<OutboundEvent> execute(ToolCallsEvent turn) {
        return execute(turn, Principal.local());
    }

    /**
     * Runs one turn sent by {@code principal} (set by the ingress: the gateway's token, a bus's identity;
     * never read from the event). The returned Flux is cold: the turn is queued on subscription.
     * Cancelling the subscription cancels the turn's running calls. Every piece of the turn's state (its
     * journal, approvals, questions, grants, cut results) is bound to the principal.
     */
    Flux<OutboundEvent> execute(ToolCallsEvent turn, Principal principal);

    /** Answers an inbound event of the in-process caller ({@link Principal#local()}); see {@link #handle(InboundEvent, Principal)}. */
    default Flux<OutboundEvent> handle(InboundEvent event) {
        return handle(event, Principal.local());
    }

    /**
     * Answers any inbound event sent by {@code principal}: a turn's events (a turn that finished before
     * is answered with its recorded events, marked replayed; the same turn id from another principal is
     * another turn), the {@code tools} answer to {@code list_tools}, or for a control event nothing, or an
     * {@code error} event with code {@code UNKNOWN_REQUEST} for an approval or input id nobody waits
     * for (or that this principal may not answer).
     */
    Flux<OutboundEvent> handle(InboundEvent event, Principal principal);

    /** Applies a control event of the in-process caller ({@link Principal#local()}); see {@link #control(ControlEvent, Principal)}. */
    default Mono<ControlOutcome> control(ControlEvent event) {
        return control(event, Principal.local());
    }

    /**
     * Applies a control event sent by {@code principal} at once (it never waits behind the stream's
     * turns): a {@code cancel} ends the unfinished calls it names {@code CANCELLED} (only of turns this
     * principal sent, or may answer for; a no-op when there are none); an {@code approval_response} or
     * {@code input_response} is recorded as the answer of that id (by whichever instance receives it)
     * when the principal may answer it, and the instance running its turn applies it. The Mono is cold;
     * the event acts on subscription.
     */
    Mono<ControlOutcome> control(ControlEvent event, Principal principal);

    /** This executor's instance id: the middle part of its approval and input ids. */
    String instanceId();

    /** The definitions a session may see, in the requested format (the policy alone; no dispatch). */
    ToolsEvent listTools(ListToolsEvent request);

    /**
     * The answer to {@code list_tools}: {@link #listTools}, narrowed by the configured
     * {@link dev.toolbus.spi.ToolDispatch} to the tool groups the request's {@code text} needs. Without
     * a dispatcher or a text it is {@code listTools}; when the dispatcher fails it is {@code listTools}
     * too (dispatch only ever narrows what the policy allows).
     */
    default Mono<ToolsEvent> answerListTools(ListToolsEvent request) {
        return Mono.fromSupplier(() -> listTools(request));
    }

    /**
     * The answer to {@code list_skills}: the configured {@link SkillProvider}'s, or without one a
     * {@code skills} event of mode {@code off} with an empty catalogue (a bot core may ask every turn; a
     * toolbus without skill documents has none to offer, which is not an error).
     */
    default Mono<SkillsEvent> answerListSkills(ListSkillsEvent request) {
        return Mono.fromSupplier(() -> SkillsEvent.off(request));
    }

    /**
     * Runs this executor on a bus until the bus's input ends or the returned Disposable is disposed.
     * Each message is decoded, run, its events published in order, and then acknowledged; input that
     * cannot be decoded is answered with an {@code error} event on its stream, or dead-lettered.
     */
    Disposable attach(ToolBus bus);

    /** Like {@link #attach(ToolBus)}, completing when the bus's input ends and every turn is published. */
    Mono<Void> run(ToolBus bus);

    /** The registry (tools may be added at run time). */
    ToolRegistry registry();

    /** The settings in force. */
    ExecutionSettings settings();

    /** The recent-call log. */
    CallLog callLog();

    /** Calls currently running a handler. */
    int inflight();

    /**
     * What the executor can do now: slots in use, queued calls, and whether a call holds its slot past
     * its timeout (then it is wedged, and a health endpoint should say so). Cheap: reads counters and
     * at most {@code maxParallel} running calls.
     */
    ExecutorHealth health();

    /**
     * Stops taking new turns (they are answered {@code REJECTED}), lets running turns finish, then
     * releases owned resources.
     */
    Mono<Void> closeGracefully();

    @Override
    default void close() {
        closeGracefully().block();
    }

    /** Builder of {@link ToolExecutor}. */
    final class Builder {
        private ToolRegistry registry;
        private final List<ToolSpec> tools = new ArrayList<>();
        private final Engine.Options options = new Engine.Options();
        private boolean approvalGiven;
        private boolean callGateGiven;
        private String instanceId;

        private Builder() {
        }

        /** Uses this registry (shared, may change at run time). */
        public Builder registry(ToolRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** Registers these tools as plugin tools. */
        public Builder tools(List<ToolSpec> specs) {
            this.tools.addAll(specs);
            return this;
        }

        /** Registers a plugin tool. */
        public Builder tool(ToolSpec spec) {
            this.tools.add(Objects.requireNonNull(spec, "spec"));
            return this;
        }

        /** How calls run (default {@link ExecutionSettings#defaults()}). */
        public Builder settings(ExecutionSettings settings) {
            options.settings(Objects.requireNonNull(settings, "settings"));
            return this;
        }

        /** Which tools a session may see and call (default {@link ToolPolicy#allowAll()}). */
        public Builder policy(ToolPolicy policy) {
            options.policy(Objects.requireNonNull(policy, "policy"));
            return this;
        }

        /** Where meters go; by default a private {@link SimpleMeterRegistry}. */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            options.meterRegistry(Objects.requireNonNull(meterRegistry, "meterRegistry"));
            return this;
        }

        /**
         * Where turns and calls are observed (default {@code ObservationRegistry.NOOP}: no observations,
         * nothing allocated for them). With a registry that has a tracing handler, each turn is a span
         * ({@code toolbus.turn}) with one child span per call ({@code toolbus.call}); a registry with a
         * {@code PropagatingReceiverTracingObservationHandler} makes the turn a child of the span named by
         * the inbound {@code traceparent}, and outbound events then carry the turn's or call's span as
         * theirs. Whatever the registry, the trace context of an inbound turn is carried onto its events.
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            options.observationRegistry(Objects.requireNonNull(registry, "registry"));
            return this;
        }

        /**
         * The scheduler of timeouts, retry delays and the clock (default {@code Schedulers.parallel()});
         * pass a {@code VirtualTimeScheduler} in tests.
         */
        public Builder timer(Scheduler timer) {
            options.timer(Objects.requireNonNull(timer, "timer"));
            return this;
        }

        /**
         * Where blocking handlers run (default: an owned bounded elastic scheduler, disposed on
         * close). A scheduler passed here is not disposed by the executor.
         */
        public Builder blockingScheduler(Scheduler scheduler) {
            options.blockingScheduler(Objects.requireNonNull(scheduler, "scheduler"));
            return this;
        }

        /** The clock for durations, in nanoseconds (default: the timer's clock if one was given, else System.nanoTime). */
        public Builder nanoClock(LongSupplier clock) {
            options.nanoClock(Objects.requireNonNull(clock, "clock"));
            return this;
        }

        /** The codec used on buses (default {@link EventCodec#defaults()}). */
        public Builder codec(EventCodec codec) {
            options.codec(Objects.requireNonNull(codec, "codec"));
            return this;
        }

        /**
         * How many calls the recent-call log keeps (default 1000, at most 100000). A record's text fields
         * are cut to {@value dev.toolbus.metrics.CallRecord#MAX_FIELD_CHARS} characters, so the log holds at
         * most about 1.5 KB per record.
         */
        public Builder callLogSize(int size) {
            if (size < 1 || size > 100_000) {
                throw new IllegalArgumentException("callLogSize must be 1..100000, got " + size);
            }
            options.callLogSize(size);
            return this;
        }

        /** How many turns a bus may have in flight at once (default 256). */
        public Builder maxInflightTurns(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxInflightTurns must be at least 1");
            }
            options.maxInflightTurns(n);
            return this;
        }

        /**
         * Narrows {@code list_tools} answers that carry a conversation {@code text} (see
         * {@link ToolExecutor#answerListTools}); choices are cached per stream and text for
         * {@code cacheTtl} (default 30 s; zero: not cached).
         */
        public Builder dispatch(ToolDispatch dispatch, Duration cacheTtl) {
            Objects.requireNonNull(dispatch, "dispatch");
            if (cacheTtl.isNegative()) {
                throw new IllegalArgumentException("cacheTtl must not be negative");
            }
            options.dispatch(dispatch, cacheTtl);
            return this;
        }

        /** Answers {@code list_skills} (see {@link ToolExecutor#answerListSkills}); default: mode {@code off}. */
        public Builder skills(SkillProvider provider) {
            options.skills(Objects.requireNonNull(provider, "provider"));
            return this;
        }

        /**
         * The instance id in approval ids ({@code ap-<id>-<n>}) and input ids ({@code in-<id>-<n>}); default
         * a random 8-hex id. Letters, digits, {@code _} and {@code .} only.
         */
        public Builder instanceId(String id) {
            Objects.requireNonNull(id, "id");
            if (!id.matches("[A-Za-z0-9_.]{1,64}")) {
                throw new IllegalArgumentException("instanceId must be 1-64 letters, digits, _ or . but was '" + id
                        + "'");
            }
            this.instanceId = id;
            return this;
        }

        /**
         * The step calls pass before they take a slot, replacing the built-in approval step (then
         * {@link #approval} must not be given).
         */
        public Builder callGate(CallGate gate) {
            options.callGate(Objects.requireNonNull(gate, "gate"));
            this.callGateGiven = true;
            return this;
        }

        /**
         * The rules over the call: decisions that read a call's arguments, session, turn and caller,
         * after the policy and the argument checks, before approval (give
         * {@code dev.toolbus.rules.LiveRules.of(liveConfig.rules(), meters)} from {@code toolbus-rules};
         * it reads the rules in force per call). They also answer who may call each tool
         * ({@code allowed_callers}). Without rules, each tool's own {@code allowed_callers} apply.
         */
        public Builder rules(CallRules rules) {
            options.rules(Objects.requireNonNull(rules, "rules"));
            return this;
        }

        /**
         * Turns the approval step on with these settings. Without this (the default) calls pass no
         * approval step at all, and a turn's {@code context.approval_mode} is ignored; with it, even
         * mode {@code off} honours {@code context.approval_mode} and per-agent modes.
         */
        public Builder approval(ApprovalSettings settings) {
            Objects.requireNonNull(settings, "settings");
            return approval(() -> settings);
        }

        /**
         * Live approval settings, read once per call (give {@code LiveConfig.approval()} so a reload
         * applies to the next call). The supplier must be cheap and must not return {@code null}.
         */
        public Builder approval(Supplier<ApprovalSettings> settings) {
            options.approval(Objects.requireNonNull(settings, "settings"));
            this.approvalGiven = true;
            return this;
        }

        /**
         * Puts these rate, concurrency and per-turn limits on calls (see {@link Limits}).
         * Without this (the default) calls pass no limit step at all.
         */
        public Builder limits(Limits limits) {
            Objects.requireNonNull(limits, "limits");
            return limits(() -> limits);
        }

        /**
         * Live limits, read once per call (give {@code LiveConfig.limits()} so a reload applies to the next
         * call). The supplier must be cheap and must not return {@code null}; with no rules in force a call
         * pays one supplier read.
         */
        public Builder limits(Supplier<Limits> limits) {
            options.limits(Objects.requireNonNull(limits, "limits"));
            return this;
        }

        /**
         * Where the buckets of {@link dev.toolbus.executor.limits.LimitRule#shared() shared} rules live (e.g. the Redis
         * store, so every instance draws on one bucket). Without it shared rules count in this instance's
         * memory. A store that fails or takes longer than 2 s refuses the call {@code RATE_LIMITED}.
         */
        public Builder rateLimitStore(RateLimitStore store) {
            options.rateLimitStore(Objects.requireNonNull(store, "store"));
            return this;
        }

        /**
         * Bounds of the in-memory ledger of idempotent turns (default {@link TurnLedgerSettings#DEFAULTS};
         * {@link TurnLedgerSettings#OFF} turns them off). It serves {@link ToolExecutor#handle} and every
         * bus that brings no ledger of its own ({@link ToolBus#turnState()}).
         */
        public Builder idempotency(TurnLedgerSettings settings) {
            options.turnLedgerSettings(Objects.requireNonNull(settings, "settings"));
            return this;
        }

        /**
         * A turn state of your own (see {@link TurnState}), instead of the in-memory one, for
         * {@link ToolExecutor#handle} and every bus that brings none: for example one
         * {@link dev.toolbus.executor.state.InMemoryTurnState} shared by two executors. A facet it leaves
         * {@code null} is the executor's in-memory one.
         */
        public Builder turnState(TurnState state) {
            options.turnState(Objects.requireNonNull(state, "state"));
            return this;
        }

        /**
         * Bounds and lifetimes of the executor's in-memory turn state (journal, requests, grants, cut
         * results); default {@link TurnStateSettings#DEFAULTS} with the cut results' bounds of
         * {@link ExecutionSettings#results()}.
         */
        public Builder turnStateSettings(TurnStateSettings settings) {
            options.turnStateSettings(Objects.requireNonNull(settings, "settings"));
            return this;
        }

        /**
         * The executor: registers the plugin tools given and the built-in {@code read_tool_result} in the
         * registry.
         *
         * @throws IllegalStateException when both a call gate and approval settings were given
         */
        public ToolExecutor build() {
            if (callGateGiven && approvalGiven) {
                throw new IllegalStateException("give either callGate or approval settings, not both");
            }
            ToolRegistry r = registry != null ? registry : ToolRegistry.create();
            r.registerAll(tools, ToolSource.PLUGIN);
            options.registry(r).instanceId(instanceId != null ? instanceId
                    : String.format("%08x", ThreadLocalRandom.current().nextInt()));
            return new DefaultToolExecutor(new Engine(options));
        }
    }
}
