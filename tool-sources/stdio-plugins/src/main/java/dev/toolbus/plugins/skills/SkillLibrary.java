package dev.toolbus.plugins.skills;

import com.github.benmanes.caffeine.cache.Ticker;
import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.SkillsEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.SkillProvider;
import dev.toolbus.tool.ToolSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Skill documents as a live service: the current {@link SkillCatalog} of some folders, the
 * {@code load_skill} tool over it, the per-stream memory of what {@code load_skill} loaded, and the
 * {@code list_skills} answers ({@link SkillProvider}).
 *
 * <pre>{@code
 * SkillLibrary skills = SkillLibrary.builder(List.of(Path.of("data/skills")))
 *         .settings(() -> SkillSettings.DEFAULTS).build();          // scans now
 * skills.registerInto(registry);                                    // load_skill, as a core tool
 * skills.watch(Duration.ofSeconds(1));                              // hot reload
 * ToolExecutor executor = ToolExecutor.builder().registry(registry).skills(skills).build();
 * }</pre>
 *
 * <p>A reload scans again; a file that became unusable keeps its last good skill (with a warning), a
 * removed file removes its skill, and {@code load_skill}'s description is replaced in one step.
 */
public final class SkillLibrary implements SkillProvider, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(SkillLibrary.class);

    private final List<Path> paths;
    private final Supplier<SkillSettings> settings;
    private final AtomicReference<SkillCatalog> current;
    private final LoadedSkills loaded;
    private final boolean offerWhenEmpty;
    private final Object reloadLock = new Object();
    private volatile ToolRegistry registry;
    private volatile boolean registered;
    private volatile Disposable watching;
    private long fingerprint;
    private long lastSeen;

    private SkillLibrary(Builder b) {
        this.paths = List.copyOf(b.paths);
        this.settings = b.settings;
        this.loaded = new LoadedSkills(b.loadedTtl, b.ticker);
        this.offerWhenEmpty = b.offerWhenEmpty;
        this.fingerprint = SkillFingerprint.of(paths, b.limits.maxDepth());
        this.current = new AtomicReference<>(SkillCatalog.scan(paths, b.limits));
    }

    /** A builder over these folders (or single skill files), in priority order. */
    public static Builder builder(List<Path> paths) {
        return new Builder(paths);
    }

    /** The catalogue in force. */
    public SkillCatalog catalog() {
        return current.get();
    }

    /**
     * Registers {@code load_skill} as a core tool (when there are skills, or the builder said to offer it
     * anyway); later reloads replace it, or register it when the first skill appears.
     */
    public SkillLibrary registerInto(ToolRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        if (offerWhenEmpty || !current.get().skills().isEmpty()) {
            registered = registry.register(SkillTool.spec(current::get, loaded::remember), ToolSource.CORE);
        }
        return this;
    }

    /**
     * The answer, computed off the caller's thread (matching a long text against a large catalogue is
     * CPU work that must not hold a gateway event loop).
     */
    @Override
    public Mono<SkillsEvent> answer(ListSkillsEvent request) {
        return Mono.fromSupplier(() -> SkillSelection.answer(request, current.get(), settings.get(),
                loaded.of(request.streamId()))).subscribeOn(Schedulers.boundedElastic());
    }

    /** The skills {@code load_skill} loaded on this stream, oldest first. */
    public List<String> loadedOn(String streamId) {
        return loaded.of(streamId);
    }

    /**
     * Scans again now (blocking file I/O) and puts the result in force.
     *
     * @return whether the skills changed
     */
    public boolean reload() {
        synchronized (reloadLock) {
            fingerprint = SkillFingerprint.of(paths, current.get().limits().maxDepth());
            SkillCatalog before = current.get();
            SkillCatalog next = before.rescan(paths);
            current.set(next);
            boolean changed = !next.skills().equals(before.skills());
            ToolRegistry r = registry;
            if (changed && r != null && (registered || !next.skills().isEmpty())) {
                registered = r.replace(SkillTool.spec(current::get, loaded::remember), ToolSource.CORE);
            }
            if (changed) {
                log.info("skills reloaded: {} skills {}, {} files skipped", next.skills().size(),
                        next.skills().stream().map(SkillDocument::name).toList(), next.skippedFiles().size());
            }
            return changed;
        }
    }

    /**
     * Looks at the folders every {@code every} (on a scheduler of its own; never on a caller's thread)
     * and reloads when a skill file was added, changed or removed and two looks in a row saw the same
     * files (so a change applies one to two periods later, and a file is not read while being written).
     * Idempotent.
     */
    public synchronized SkillLibrary watch(Duration every) {
        if (watching == null) {
            Scheduler s = Schedulers.boundedElastic();
            watching = s.schedulePeriodically(this::poll, every.toMillis(), every.toMillis(),
                    java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        return this;
    }

    void poll() {
        try {
            long now = SkillFingerprint.of(paths, current.get().limits().maxDepth());
            boolean settled;
            synchronized (reloadLock) {
                // a change counts once two looks agree: a file being written is not read half-way
                settled = now != fingerprint && now == lastSeen;
                lastSeen = now;
            }
            if (settled) {
                reload();
            }
        } catch (RuntimeException | Error e) {
            // fail closed: the catalogue in force stays; the next poll tries again
            log.warn("skill folders could not be reloaded (the last good skills stay): {}", e.toString());
        }
    }

    /** Stops watching. */
    @Override
    public synchronized void close() {
        if (watching != null) {
            watching.dispose();
            watching = null;
        }
    }

    /** Builds a {@link SkillLibrary}. */
    public static final class Builder {
        private final List<Path> paths;
        private SkillLimits limits = SkillLimits.defaults();
        private Supplier<SkillSettings> settings = () -> SkillSettings.DEFAULTS;
        private Duration loadedTtl = LoadedSkills.DEFAULT_TTL;
        private Ticker ticker = Ticker.systemTicker();
        private boolean offerWhenEmpty;

        private Builder(List<Path> paths) {
            this.paths = List.copyOf(paths);
        }

        /** Depth, file and prompt bounds (default {@link SkillLimits#defaults()}). */
        public Builder limits(SkillLimits limits) {
            this.limits = Objects.requireNonNull(limits, "limits");
            return this;
        }

        /** The injection settings, read at every answer (give a live config's view to apply reloads). */
        public Builder settings(Supplier<SkillSettings> settings) {
            this.settings = Objects.requireNonNull(settings, "settings");
            return this;
        }

        /** How long a stream's loaded skills are remembered after its last use (default 24 h). */
        public Builder loadedTtl(Duration ttl) {
            if (ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("loadedTtl must be positive");
            }
            this.loadedTtl = ttl;
            return this;
        }

        /** The clock of that expiry, in nanoseconds (tests). */
        public Builder ticker(Ticker ticker) {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /** Offer {@code load_skill} even when no skill is found (default: only when some are). */
        public Builder offerWhenEmpty(boolean value) {
            this.offerWhenEmpty = value;
            return this;
        }

        /** Scans the folders (blocking file I/O) and returns the library. */
        public SkillLibrary build() {
            return new SkillLibrary(this);
        }
    }
}
