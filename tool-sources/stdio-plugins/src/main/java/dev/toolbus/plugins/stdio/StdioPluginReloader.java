package dev.toolbus.plugins.stdio;

import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A plugins folder kept in step with its contents: every plugin folder (of any {@link PluginKind}) runs
 * under its own {@link StdioPluginHost}, and a folder whose files change is started again, a new one is
 * started, a removed one is stopped. The registry follows: the old tools are replaced by the new ones.
 * Calls in flight finish on the old process, which is stopped once they are done (or after
 * {@code drainTimeout}). A plugin that fails to start again keeps its running version (and is tried
 * again at its next change).
 *
 * <pre>{@code
 * StdioPluginReloader plugins = StdioPluginReloader.start(Path.of("plugins"), registry, Duration.ofSeconds(1));
 * // ... on shutdown
 * plugins.closeGracefully().block();
 * }</pre>
 *
 * <p>Changes are found by polling: each period, every plugin folder's file names, sizes and
 * modification times (at most {@value #MAX_DEPTH} levels, {@value #MAX_FILES} entries; {@code node_modules},
 * {@code __pycache__}, {@code .git} and {@code target} skipped) are compared with the last look.
 */
public final class StdioPluginReloader implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StdioPluginReloader.class);
    static final int MAX_DEPTH = 4;
    static final int MAX_FILES = 5000;
    private static final Set<String> SKIPPED = Set.of("node_modules", "__pycache__", ".git", "target");
    private static final Duration START_BOUND = Duration.ofMinutes(2);

    private final Path dir;
    private final ToolRegistry registry;
    private final Duration drainTimeout;
    private final PluginConfigs configs;
    private final Map<String, Slot> slots = new LinkedHashMap<>();
    /** Folder → fingerprint of a state that is not a running plugin (not a plugin, or it failed to start). */
    private final Map<String, String> unusable = new LinkedHashMap<>();
    private final List<Mono<Void>> retiring = new ArrayList<>();
    private Disposable polling;
    private boolean closed;

    private StdioPluginReloader(Path dir, ToolRegistry registry, Duration drainTimeout, PluginConfigs configs) {
        this.dir = dir;
        this.registry = registry;
        this.drainTimeout = drainTimeout;
        this.configs = configs;
    }

    /**
     * Loads every plugin of {@code dir} into {@code registry}, like {@link StdioPlugins#load(Path)}, then
     * looks for changes every {@code pollEvery}.
     *
     * @param pollEvery the polling period; {@link Duration#ZERO} for no polling ({@link #rescan()} by hand)
     * @throws StdioPluginException as {@link StdioPlugins#load(Path)} does
     */
    public static StdioPluginReloader start(Path dir, ToolRegistry registry, Duration pollEvery) {
        return start(dir, registry, pollEvery, Duration.ofMinutes(2));
    }

    /**
     * As {@link #start(Path, ToolRegistry, Duration)}, with the longest wait for calls in flight on a
     * replaced process before it is stopped.
     */
    public static StdioPluginReloader start(Path dir, ToolRegistry registry, Duration pollEvery, Duration drainTimeout) {
        return start(dir, registry, pollEvery, drainTimeout, PluginConfigs.none());
    }

    /**
     * As {@link #start(Path, ToolRegistry, Duration, Duration)}, with the configuration the application
     * gives the plugins ({@link PluginConfigs}): every process started gets its plugin's in
     * {@code activate}, and a running one a {@code configure} when it changes.
     */
    public static StdioPluginReloader start(Path dir, ToolRegistry registry, Duration pollEvery, Duration drainTimeout,
                                            PluginConfigs configs) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(configs, "configs");
        if (!Files.isDirectory(dir)) {
            throw new StdioPluginException("plugins folder " + dir.toAbsolutePath() + " does not exist or is not a folder");
        }
        StdioPluginReloader r = new StdioPluginReloader(dir, registry, drainTimeout, configs);
        r.initialLoad();
        if (!pollEvery.isZero() && !pollEvery.isNegative()) {
            r.polling = Flux.interval(pollEvery, pollEvery, Schedulers.boundedElastic())
                    .onBackpressureDrop()
                    .concatMap(t -> Mono.fromRunnable(r::rescanQuietly), 1)
                    .subscribe();
        }
        return r;
    }

    private void initialLoad() {
        // StdioPlugins' semantics (optional plugins, duplicate ids, required failures), one host per plugin
        StdioPlugins.Found found = StdioPlugins.manifests(dir);
        Set<String> ids = new HashSet<>();
        for (PluginManifest m : found.manifests()) {
            if (!ids.add(m.id())) {
                throw new StdioPluginException("two plugins have the id '" + m.id() + "'");
            }
        }
        // all at once, as StdioPlugins.load does; a required failure stops the others and fails the load
        List<Object> outcomes = Flux.fromIterable(found.manifests())
                .flatMapSequential(m -> StdioPlugins.start(List.of(m), configs).<Object>map(StdioPluginHost::withoutShutdownHook)
                        .onErrorResume(e -> Mono.just(e)))
                .collectList()
                .block(START_BOUND);
        List<StdioPluginHost> started = new ArrayList<>();
        RuntimeException failed = null;
        for (Object o : outcomes) {
            if (o instanceof StdioPluginHost h) {
                started.add(h);
            } else if (failed == null) {
                failed = o instanceof RuntimeException re ? re : new StdioPluginException(String.valueOf(o));
            }
        }
        if (failed != null) {
            Flux.fromIterable(started).flatMap(StdioPluginHost::closeGracefully).then().block(START_BOUND);
            throw failed;
        }
        Map<String, StdioPluginHost> byDir = new LinkedHashMap<>();
        for (StdioPluginHost h : started) {
            if (!h.plugins().isEmpty()) { // else an optional plugin that was skipped
                found.manifests().stream().filter(m -> m.id().equals(h.plugins().get(0).id())).findFirst()
                        .ifPresent(m -> byDir.put(String.valueOf(m.directory().getFileName()), h));
            }
        }
        synchronized (this) {
            for (Path folder : folders()) {
                String name = String.valueOf(folder.getFileName());
                StdioPluginHost host = byDir.get(name);
                if (host == null) {
                    unusable.put(name, fingerprint(folder));
                    continue;
                }
                Slot slot = new Slot(host.plugins().get(0).id(), fingerprint(folder), host);
                slot.specs = counted(slot, host.tools());
                slots.put(name, slot);
                registry.registerAll(slot.specs, ToolSource.STDIO);
            }
            started.stream().filter(h -> !byDir.containsValue(h)).forEach(StdioPluginHost::close);
        }
    }

    /** Compares every folder with the last look and applies what changed; returns when it is done. */
    public synchronized StdioPluginReloader rescan() {
        if (closed) {
            return this;
        }
        Map<String, Path> now = new LinkedHashMap<>();
        folders().forEach(f -> now.put(String.valueOf(f.getFileName()), f));
        for (String name : List.copyOf(slots.keySet())) {
            if (!now.containsKey(name)) {
                log.info("plugin folder {} was removed: stopping plugin {}", name, slots.get(name).id);
                retire(slots.remove(name));
            }
        }
        unusable.keySet().retainAll(now.keySet());
        now.forEach((name, folder) -> {
            String fp = fingerprint(folder);
            Slot old = slots.get(name);
            if (old != null && fp.equals(old.fingerprint) || fp.equals(unusable.get(name))) {
                return;
            }
            replace(name, folder, fp, old);
        });
        return this;
    }

    private void replace(String name, Path folder, String fp, Slot old) {
        PluginManifest m;
        try {
            Optional<PluginManifest> found = PluginKinds.manifest(folder);
            if (found.isEmpty()) {
                unusable.put(name, fp);
                if (old != null) {
                    log.info("{} holds no plugin any more: stopping plugin {}", folder, old.id);
                    retire(slots.remove(name));
                }
                return;
            }
            m = found.get();
        } catch (IllegalArgumentException e) {
            log.warn("plugin folder {} changed but its manifest is invalid ({}); {}", folder, e.getMessage(),
                    old == null ? "not started" : "keeping the running version");
            unusable.put(name, fp);
            return;
        }
        for (Map.Entry<String, Slot> e : slots.entrySet()) {
            if (!e.getKey().equals(name) && m.id().equals(e.getValue().id)) {
                log.warn("plugin folder {} declares id '{}', which {} already has; not started", folder, m.id(), e.getKey());
                unusable.put(name, fp);
                return;
            }
        }
        StdioPluginHost host;
        String failure;
        try {
            host = StdioPlugins.start(List.of(m), configs).map(StdioPluginHost::withoutShutdownHook).block(START_BOUND);
            // an optional plugin that fails is skipped, not thrown: the same failure here
            failure = host.plugins().isEmpty() ? String.valueOf(host.skipped().get(m.id())) : null;
            if (failure != null) {
                host.close();
            }
        } catch (RuntimeException e) {
            host = null;
            failure = e.getMessage();
        }
        if (failure != null) {
            log.warn("plugin {} in {} failed to {}: {}{}", m.id(), folder, old == null ? "start" : "restart",
                    failure, old == null ? "" : "; keeping the running version");
            unusable.put(name, fp);
            return;
        }
        unusable.remove(name);
        Slot fresh = new Slot(m.id(), fp, host);
        fresh.specs = counted(fresh, host.tools());
        if (old != null) {
            registry.removeIf(e -> e.source() == ToolSource.STDIO && old.specs.contains(e.tool()));
        }
        registry.registerAll(fresh.specs, ToolSource.STDIO);
        slots.put(name, fresh);
        log.info("plugin {} {} from {}: {}", m.id(), old == null ? "started" : "restarted", folder,
                fresh.specs.stream().map(ToolSpec::name).toList());
        if (old != null) {
            retire(old);
        }
    }

    /** Takes a slot's tools out of the registry and stops its host once its calls are done. */
    private void retire(Slot slot) {
        registry.removeIf(e -> e.source() == ToolSource.STDIO && slot.specs.contains(e.tool()));
        Mono<Void> stop = slot.inFlight.idle()
                .timeout(drainTimeout, Mono.fromRunnable(() -> log.warn("plugin {} still had calls after {}; stopping it",
                        slot.id, drainTimeout)))
                .then(slot.host.closeGracefully())
                .onErrorResume(e -> Mono.empty())
                .cache();
        retiring.add(stop);
        stop.subscribe();
    }

    private void rescanQuietly() {
        try {
            rescan();
        } catch (RuntimeException e) {
            log.warn("rescanning {} failed: {}", dir, e.toString());
        }
    }

    /** A snapshot of every running plugin, in folder order. */
    public synchronized List<StdioPluginStatus> plugins() {
        List<StdioPluginStatus> out = new ArrayList<>();
        for (Slot s : slots.values()) {
            s.host.plugins().stream().filter(p -> p.id().equals(s.id)).forEach(out::add);
        }
        return out;
    }

    /** Stops polling and every plugin; completes when their processes are gone. Idempotent. */
    public Mono<Void> closeGracefully() {
        return Mono.defer(() -> {
            List<Mono<Void>> stops = new ArrayList<>();
            synchronized (this) {
                closed = true;
                if (polling != null) {
                    polling.dispose();
                }
                slots.values().forEach(s -> stops.add(s.host.closeGracefully()));
                stops.addAll(retiring);
            }
            return Flux.fromIterable(stops).flatMap(m -> m).then();
        });
    }

    @Override
    public void close() {
        closeGracefully().block();
    }

    private List<Path> folders() {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            log.warn("cannot list plugins folder {}: {}", dir, e.toString());
            return List.copyOf(slots.keySet().stream().map(dir::resolve).toList());
        }
    }

    /** Names, sizes and modification times of a folder's files, bounded in depth and count. */
    static String fingerprint(Path folder) {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> s = Files.walk(folder, MAX_DEPTH)) {
            s.filter(p -> !skipped(folder, p)).limit(MAX_FILES).sorted().forEach(p -> {
                try {
                    sb.append(folder.relativize(p)).append('|').append(Files.size(p)).append('|')
                            .append(Files.getLastModifiedTime(p).toMillis()).append('\n');
                } catch (IOException e) {
                    sb.append(folder.relativize(p)).append("|gone\n");
                }
            });
        } catch (IOException | RuntimeException e) {
            sb.append("unreadable:").append(e.getClass().getSimpleName());
        }
        return Integer.toHexString(sb.toString().hashCode()) + ":" + sb.length();
    }

    private static boolean skipped(Path root, Path p) {
        for (Path part : root.relativize(p)) {
            if (SKIPPED.contains(part.toString())) {
                return true;
            }
        }
        return false;
    }

    private static List<ToolSpec> counted(Slot slot, List<ToolSpec> specs) {
        return specs.stream().map(s -> new ToolSpec(s.definition(), InFlight.wrap(s.handler(), slot.inFlight))).toList();
    }

    /** One plugin folder's running plugin. */
    private static final class Slot {
        final String id;
        final String fingerprint;
        final StdioPluginHost host;
        final InFlight inFlight = new InFlight();
        List<ToolSpec> specs = List.of();

        Slot(String id, String fingerprint, StdioPluginHost host) {
            this.id = id;
            this.fingerprint = fingerprint;
            this.host = host;
        }
    }
}
