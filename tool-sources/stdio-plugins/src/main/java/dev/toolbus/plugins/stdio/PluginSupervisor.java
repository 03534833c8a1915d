package dev.toolbus.plugins.stdio;

import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

/**
 * Keeps one plugin running: starts its process on demand (one start at a time, later callers join
 * it), serializes calls unless the plugin is concurrent (a cancelled call keeps its turn until the
 * plugin answers it), kills the process when a cancelled call is not answered within the grace or the
 * process breaks, and delays the next start by an exponential, capped backoff.
 */
final class PluginSupervisor implements PluginProcess.Listener {

    private static final Logger log = LoggerFactory.getLogger(PluginSupervisor.class);

    private final PluginManifest manifest;
    private final Permits permits;
    private final Object lock = new Object();
    private final Set<PluginProcess> live = ConcurrentHashMap.newKeySet();
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicInteger starts = new AtomicInteger();
    private final AtomicLong retiredStderrDropped = new AtomicLong();
    private final AtomicLong retiredStderrLogged = new AtomicLong();
    private volatile long lastFailureNanos;
    private volatile PluginProcess current;
    private volatile boolean closed;
    private volatile List<ToolDefinition> definitions = List.of();
    private volatile boolean toolsKnown;
    private Sinks.One<PluginProcess> starting;
    private Disposable launching;
    private final PluginConfigs configs;
    private final Disposable configListener;

    PluginSupervisor(PluginManifest manifest) {
        this(manifest, PluginConfigs.none());
    }

    PluginSupervisor(PluginManifest manifest, PluginConfigs configs) {
        this.manifest = Objects.requireNonNull(manifest, "manifest");
        this.permits = manifest.concurrent() ? null : new Permits(1);
        this.configs = Objects.requireNonNull(configs, "configs");
        this.configListener = configs.onChange(id -> {
            if (id.equals(manifest.id())) {
                configure();
            }
        });
    }

    /** Hands the running process its new configuration; a process started later gets it in activate. */
    private void configure() {
        PluginProcess p = current;
        if (p != null && !closed && p.isUsable()) {
            log.info("plugin {}: sending its new configuration (version {})", manifest.id(),
                    configs.version(manifest.id()).isEmpty() ? "none" : configs.version(manifest.id()));
            p.rpc().notify(Wire.configure(configs.get(manifest.id()), configs.version(manifest.id())));
        }
    }

    PluginManifest manifest() {
        return manifest;
    }

    /** Starts the process the first time and returns its tools. */
    Mono<List<ToolDefinition>> activate() {
        return process().map(p -> definitions);
    }

    /** The tools as runnable specs; each call goes to this plugin's current process. */
    List<ToolSpec> specs() {
        List<ToolSpec> out = new ArrayList<>();
        for (ToolDefinition def : definitions) {
            String name = def.name();
            out.add(new ToolSpec(def, (args, ctx) -> call(name, args.json(), ctx)));
        }
        return out;
    }

    /**
     * Runs one {@code execute_tool}. A plugin {@code error} answer is an error result; a crash, a
     * protocol break or a failed restart is a {@link StdioPluginException}. Cancelling the Mono while
     * the plugin works on the request stops the process.
     */
    Mono<ToolResult> call(String toolName, String inputJson, ToolContext ctx) {
        Function<Permits.Lease, Mono<ToolResult>> body = lease -> process().flatMap(p ->
                p.rpc().execute(Wire.executeParams(toolName, inputJson, ctx), ctx, lease)
                        .map(answer -> {
                            failures.set(0);
                            return Wire.toResult(answer);
                        }));
        return permits == null ? Mono.defer(() -> body.apply(null)) : permits.run(body);
    }

    /** The usable process, or a start (after the backoff) that every caller meanwhile shares. */
    Mono<PluginProcess> process() {
        PluginProcess p = current;
        if (p != null && !closed && p.isUsable()) {
            return Mono.just(p);
        }
        Sinks.One<PluginProcess> sink;
        Duration delay = null;
        synchronized (lock) {
            if (closed) {
                return Mono.error(closedError());
            }
            p = current;
            if (p != null && p.isUsable()) {
                return Mono.just(p);
            }
            if (starting == null) {
                starting = Sinks.one();
                delay = backoff();
            }
            sink = starting;
        }
        if (delay != null) {
            launch(sink, delay);
        }
        return sink.asMono();
    }

    private void launch(Sinks.One<PluginProcess> sink, Duration delay) {
        if (!delay.isZero()) {
            log.info("plugin {}: restarting in {} ms", manifest.id(), delay.toMillis());
        }
        Mono<Long> wait = delay.isZero() ? Mono.just(0L) : Mono.delay(delay);
        Disposable d = wait
                .then(Mono.fromCallable(this::spawn).subscribeOn(Schedulers.boundedElastic()))
                .flatMap(p -> p.rpc().activate(configs.get(manifest.id()), configs.version(manifest.id()))
                        .onErrorResume(e -> Mono.fromFuture(p.stop(String.valueOf(e.getMessage()), false), true)
                                .then(Mono.error(e)))
                        .map(tools -> new Started(p, tools)))
                .subscribe(s -> started(sink, s.process(), s.tools()), e -> startFailed(sink, e));
        synchronized (lock) {
            if (starting == sink) {
                launching = d;
            }
        }
    }

    private PluginProcess spawn() {
        if (closed) {
            throw closedError();
        }
        PluginProcess p = PluginProcess.spawn(manifest, this);
        synchronized (lock) {
            if (closed) {
                p.stop("plugin host is closed", false);
                throw closedError();
            }
            live.add(p);
        }
        p.terminated().whenComplete((x, e) -> {
            live.remove(p);
            retiredStderrDropped.addAndGet(p.stderrDroppedLines());
            retiredStderrLogged.addAndGet(p.stderrLoggedBytes());
        });
        starts.incrementAndGet();
        return p;
    }

    /** A process that answered {@code activate}, and the tools it declared. */
    private record Started(PluginProcess process, List<ToolDefinition> tools) {
    }

    private void started(Sinks.One<PluginProcess> sink, PluginProcess p, List<ToolDefinition> tools) {
        synchronized (lock) {
            starting = null;
            launching = null;
            if (!closed) {
                current = p;
            }
        }
        if (closed) {
            p.stop("plugin host is closed", true);
            sink.tryEmitError(closedError());
            return;
        }
        List<ToolDefinition> had = definitions;
        if (!toolsKnown) {
            definitions = tools;
            toolsKnown = true;
        } else if (!names(had).equals(names(tools))) {
            log.warn("plugin {} declared different tools after a restart ({} instead of {}); the first set stays registered",
                    manifest.id(), names(tools), names(had));
        }
        log.info("plugin {} active (pid {}, {} tools)", manifest.id(), p.pid(), tools.size());
        sink.tryEmitValue(p);
    }

    private void startFailed(Sinks.One<PluginProcess> sink, Throwable e) {
        synchronized (lock) {
            starting = null;
            launching = null;
        }
        recordFailure();
        StdioPluginException error = e instanceof StdioPluginException se ? se
                : new StdioPluginException("plugin '" + manifest.id() + "' could not be started: " + e, e);
        log.warn("plugin {} failed to start: {}", manifest.id(), error.getMessage());
        sink.tryEmitError(error);
    }

    private static List<String> names(List<ToolDefinition> defs) {
        return defs.stream().map(ToolDefinition::name).toList();
    }

    /** The delay before the next start: none after success, then base·2^(n-1) capped, minus the time already waited. */
    private Duration backoff() {
        int n = failures.get();
        if (n == 0) {
            return Duration.ZERO;
        }
        long base = manifest.restartBackoff().toMillis();
        long cap = manifest.restartBackoffMax().toMillis();
        long wanted = n >= 31 ? cap : Math.min(cap, base << Math.min(n - 1, 30));
        long waited = (System.nanoTime() - lastFailureNanos) / 1_000_000L;
        return Duration.ofMillis(Math.max(0, Math.min(wanted, cap) - waited));
    }

    private void recordFailure() {
        lastFailureNanos = System.nanoTime();
        failures.incrementAndGet();
    }

    @Override
    public void broken(PluginProcess p, String reason) {
        log.warn("plugin {} (pid {}) broke: {}", manifest.id(), p.pid(), reason);
        retire(p, reason);
    }

    @Override
    public void unresponsive(PluginProcess p, String reason) {
        retire(p, reason, false);
    }

    private void retire(PluginProcess p, String reason) {
        retire(p, reason, true);
    }

    private void retire(PluginProcess p, String reason, boolean graceful) {
        if (p.isStopping()) {
            return;
        }
        recordFailure();
        synchronized (lock) {
            if (current == p) {
                current = null;
            }
        }
        p.stop(reason, graceful);
    }

    /** Requests waiting for an answer in every live process (for tests). */
    int pendingCount() {
        return live.stream().mapToInt(p -> p.rpc().pendingCount()).sum();
    }

    /** What {@code plugins()} reports. */
    StdioPluginStatus status() {
        PluginProcess p = current;
        boolean running = p != null && p.isUsable();
        return new StdioPluginStatus(manifest.id(), running, running ? p.pid() : -1, starts.get(), failures.get(),
                names(definitions), live.stream().map(PluginProcess::pid).sorted().toList(),
                retiredStderrDropped.get() + live.stream().mapToLong(PluginProcess::stderrDroppedLines).sum(),
                retiredStderrLogged.get() + live.stream().mapToLong(PluginProcess::stderrLoggedBytes).sum());
    }

    /** Stops every process of this plugin (deactivate, grace, kill) and refuses further calls. */
    Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            Sinks.One<PluginProcess> s;
            Disposable d;
            configListener.dispose();
            synchronized (lock) {
                closed = true;
                current = null;
                s = starting;
                d = launching;
                starting = null;
                launching = null;
            }
            if (d != null) {
                d.dispose();
            }
            if (s != null) {
                s.tryEmitError(closedError());
            }
            return Flux.fromIterable(List.copyOf(live))
                    .flatMap(p -> Mono.fromFuture(p.stop("plugin host is closed", true), true))
                    .then();
        });
    }

    /** Kills every process at once (JVM shutdown hook); waiting calls fail at once. */
    void killNow() {
        closed = true;
        live.forEach(p -> p.killNow("plugin '" + manifest.id() + "' was killed: the JVM is shutting down"));
    }

    private StdioPluginException closedError() {
        return new StdioPluginException("plugin '" + manifest.id() + "' is closed");
    }
}
