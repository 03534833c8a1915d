package dev.toolbus.executor.internal;

import dev.toolbus.executor.limits.LimitStep;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.metrics.CallLog;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.result.MediaSplitter;
import dev.toolbus.spi.CallGate;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import java.util.function.LongSupplier;
import reactor.core.scheduler.Scheduler;

/** What every call of one executor shares: settings, registry, slots, schedulers, cache, meters. */
final class Pipeline {

    final ExecutionSettings settings;
    final ToolRegistry registry;
    final ToolPolicy policy;
    final Slots slots;
    final Scheduler timer;
    final Scheduler blocking;
    final LongSupplier nanoClock;
    final ResultCache cache;
    final ExecutorMetrics metrics;
    final CallLog callLog;
    final Texts texts;
    final MediaSplitter splitter;
    /** The cut of long results (their full texts go to the turn state's cut results). */
    final ResultCutter cutter;
    final String instanceId;
    final CallGate gate;
    /** The rules over the call, or {@code null} (then only each tool's own allowed callers apply). */
    final dev.toolbus.spi.CallRules rules;
    final ControlMetrics control;
    final PendingInputs inputs;
    final RunningCalls running;
    /** The journal writes of this executor's calls, batched per journal. */
    final JournalBatches journals = new JournalBatches();
    /** The limit step, or {@code null} when the executor was built without limits (then calls pay nothing). */
    final LimitStep limits;
    /** When calls ended, for the call log; set once by the executor's constructor when the clocks are the system's. */
    RecordClock recordClock;
    /** Observations of turns and calls; set once by the executor's constructor. */
    TurnTracing tracing = TurnTracing.OFF;
    /** Compiled checks and meters per registered definition. */
    private final ToolPlans plans;

    Pipeline(ExecutionSettings settings, ToolRegistry registry, ToolPolicy policy, Scheduler timer, Scheduler blocking,
             LongSupplier nanoClock, io.micrometer.core.instrument.MeterRegistry meters, CallLog callLog,
             String instanceId, CallGate gate) {
        this(settings, registry, policy, timer, blocking, nanoClock, meters, callLog, instanceId, gate, null, null, null);
    }

    Pipeline(ExecutionSettings settings, ToolRegistry registry, ToolPolicy policy, Scheduler timer, Scheduler blocking,
             LongSupplier nanoClock, io.micrometer.core.instrument.MeterRegistry meters, CallLog callLog,
             String instanceId, CallGate gate, java.util.function.Supplier<dev.toolbus.executor.limits.Limits> limits,
             dev.toolbus.spi.RateLimitStore sharedBuckets, dev.toolbus.spi.CallRules rules) {
        this.settings = settings;
        this.registry = registry;
        this.policy = policy;
        this.slots = new Slots(settings.maxParallel());
        this.running = new RunningCalls(settings.maxParallel());
        this.timer = timer;
        this.recordClock = RecordClock.exact(timer);
        this.blocking = blocking;
        this.nanoClock = nanoClock;
        this.cache = settings.cacheResults() && !settings.cacheTtl().isZero()
                ? new ResultCache(settings.cacheTtl(), settings.cacheMaxEntries(),
                        settings.cacheMaxBytes(), settings.cacheMaxKeyBytes(), settings.cacheMaxResultBytes(), nanoClock) : null;
        this.metrics = new ExecutorMetrics(meters, running::count, slots::queued);
        this.plans = new ToolPlans(registry, metrics, CacheOptIn.of(settings.cacheTools()));
        this.callLog = callLog;
        this.texts = Texts.of(settings.locale());
        this.splitter = MediaSplitter.create(settings.locale(), settings.maxMediaBytes());
        this.cutter = new ResultCutter(settings.results(), () -> ReadToolResult.registered(registry),
                settings.locale());
        this.instanceId = instanceId;
        this.gate = gate;
        this.rules = rules;
        this.control = new ControlMetrics(meters);
        this.inputs = new PendingInputs(timer, control);
        this.limits = limits == null ? null : LimitStep.create(limits, sharedBuckets, registry, nanoClock, timer, meters,
                settings.locale(), settings.maxQueuedCalls());
    }

    /** The compiled argument checks and meters of a definition (made once per registered definition). */
    ToolPlan plan(ToolDefinition def) {
        return plans.get(def);
    }

}
