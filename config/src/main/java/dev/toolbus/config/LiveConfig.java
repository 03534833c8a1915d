package dev.toolbus.config;

import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.policy.ConfiguredPolicy;
import dev.toolbus.policy.SwitchablePolicy;
import dev.toolbus.policy.ToolDiscovery;
import dev.toolbus.policy.ToolPolicies;
import dev.toolbus.registry.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The config in force, swapped atomically on reload.
 *
 * <p>What applies live: everything the policy reads ({@code mode}, source switches and
 * {@code disabledTools}, {@code groups}, {@code security}, {@code tools}), {@code rules} (give
 * {@link #rules()} to the engine; each call reads the rules in force), and {@code approval}
 * (give {@link #approval()} to the executor; each call reads the settings in force). A config whose
 * {@code rules} did not compile keeps the last good rules (the watcher refuses such a file anyway;
 * this covers a config applied directly). A reloaded
 * {@code approval} section with any warning keeps the last good one (fail closed: a typo in a mode
 * never switches approval off); the warning is logged. Give {@link #policy()} to
 * the executor once; each decision reads the current rules with one volatile read, so a new call is
 * decided wholly under the old or the new config, and a call already past its check finishes
 * whatever happens later. Discoveries of deferred tools survive reloads.
 *
 * <p>What needs a restart: {@code execution} (an executor's settings are fixed for its life),
 * {@code bus}, {@code gateway}, {@code documents}, and the paths of {@code sources} (plugin
 * directories, MCP servers file; read by their sources at start). {@link #apply} reports these as
 * {@link Reload#restartNeeded()} and logs them; {@link #current()} already shows the new values.
 */
public final class LiveConfig {

    private static final Logger log = LoggerFactory.getLogger(LiveConfig.class);

    private final ToolRegistry registry;
    private final AtomicReference<Config> current;
    private final SwitchablePolicy policy;
    private final List<Consumer<Reload>> listeners = new CopyOnWriteArrayList<>();

    private LiveConfig(Config initial, ToolRegistry registry) {
        this.registry = registry;
        this.current = new AtomicReference<>(initial);
        ToolDiscovery discovery = ToolDiscovery.create(initial.tools().search());
        this.policy = ToolPolicies.switchable(ToolPolicies.from(initial.policy(), registry, discovery));
    }

    /** A live config over the registry whose tools the policy decides about. */
    public static LiveConfig create(Config initial, ToolRegistry registry) {
        return new LiveConfig(Objects.requireNonNull(initial, "initial"), Objects.requireNonNull(registry, "registry"));
    }

    /** The config last applied. */
    public Config current() {
        return current.get();
    }

    /** The policy to give the executor (and {@code tool_search}); follows {@link #apply}. */
    public SwitchablePolicy policy() {
        return policy;
    }

    /** The approval settings in force, for {@code ToolExecutor.Builder.approval}; follows {@link #apply}. */
    public Supplier<ApprovalSettings> approval() {
        return () -> current.get().approval();
    }

    /** The rules over the call in force (compiled); follows {@link #apply}. */
    public Supplier<dev.toolbus.rules.RuleSet> rules() {
        return () -> current.get().rules();
    }

    /** The limits in force, for {@code ToolExecutor.Builder.limits}; follows {@link #apply}. */
    public Supplier<dev.toolbus.executor.limits.Limits> limits() {
        return () -> current.get().limits();
    }

    /**
     * Applies a new config: the policy is swapped atomically, before the config itself (so whoever
     * reads the new approval, rules or limits finds the new policy already in force); settings that
     * cannot change while running are reported. An {@code approval} section with warnings is replaced by the last good one.
     */
    public Reload apply(Config next) {
        Objects.requireNonNull(next, "next");
        Config before = current.get();
        if (!next.approval().warnings().isEmpty()) {
            log.warn("config reloaded with problems in the approval section; keeping the last good approval settings: {}",
                    next.approval().warnings());
            next = next.withApproval(before.approval().toBuilder()
                    .dangerousTools(next.security().dangerousTools()).build());
        }
        if (RulesSection.isDenyAll(next.rules()) && !RulesSection.isDenyAll(before.rules())) {
            log.warn("config reloaded with rules that do not compile; keeping the last good rules");
            next = next.withRules(before.rules());
        }
        if (!next.limits().warnings().isEmpty()) {
            log.warn("config reloaded with problems in the limits section; keeping the last good limits: {}",
                    next.limits().warnings());
            next = next.withLimits(before.limits());
        }
        // the policy first: whoever sees the new approval, rules or limits (read from the config) also
        // finds the new policy in force, and a policy that cannot be built leaves all of the last config
        ConfiguredPolicy p = ToolPolicies.from(next.policy(), registry, policy.discovery());
        policy.set(p);
        Config prev = current.getAndSet(next);
        List<String> restart = new ArrayList<>();
        if (!prev.execution().toBuilder().build().equals(next.execution().toBuilder().build())) {
            restart.add("execution");
        }
        if (prev.limits().maxKeys() != next.limits().maxKeys()
                || !prev.limits().store().equals(next.limits().store())
                || !prev.limits().redisUrl().equals(next.limits().redisUrl())) {
            restart.add("limits.store, limits.redisUrl and limits.maxKeys (the rules apply now)");
        }
        if (!prev.bus().equals(next.bus())) {
            restart.add("bus");
        }
        if (!prev.gateway().equals(next.gateway())) {
            restart.add("gateway");
        }
        if (prev.documents().scanDiffers(next.documents())) {
            restart.add("documents (enabled, paths, maxDepth, maxFileBytes, maxPromptChars; mode, autoActivate and "
                    + "triggers apply now)");
        }
        if (!prev.sources().custom().pluginDirs().equals(next.sources().custom().pluginDirs())
                || prev.sources().custom().autoReload() != next.sources().custom().autoReload()
                || !prev.sources().mcp().serversFile().equals(next.sources().mcp().serversFile())
                || !prev.sources().mcp().servers().equals(next.sources().mcp().servers())
                || !prev.sources().mcp().disabledServers().equals(next.sources().mcp().disabledServers())) {
            restart.add("sources (paths and servers)");
        }
        if (!prev.tools().search().equals(next.tools().search())) {
            restart.add("tools.search (discovery bounds; requireDiscovery and maxResults apply now)");
        }
        if (!restart.isEmpty()) {
            log.warn("config reloaded; these sections changed and take effect after a restart: {}", restart);
        } else {
            log.info("config reloaded; the new tool policy is in force");
        }
        Reload reload = new Reload(next, List.copyOf(restart));
        for (Consumer<Reload> l : listeners) {
            try {
                l.accept(reload);
            } catch (RuntimeException e) {
                log.warn("a config reload listener failed: {}", e.toString());
            }
        }
        return reload;
    }

    /**
     * Calls {@code listener} after every {@link #apply}, once the new policy is in force, on the
     * applying thread (the config watcher's): it must return quickly. toolbus's MCP server uses it to
     * re-read the tools a client may see, and the plugin hosts to hand plugins their new config.
     *
     * @return disposing it removes the listener
     */
    public Disposable onReload(Consumer<Reload> listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Applies every config the watcher publishes that differs from the current one. */
    public Disposable follow(ConfigWatcher watcher) {
        return watcher.updates().filter(l -> !l.config().equals(current())).subscribe(l -> apply(l.config()),
                e -> log.error("config watcher failed", e));
    }

    /**
     * The outcome of {@link #apply}.
     *
     * @param config the config now current
     * @param restartNeeded sections whose change takes effect only after a restart
     */
    public record Reload(Config config, List<String> restartNeeded) {
    }
}
