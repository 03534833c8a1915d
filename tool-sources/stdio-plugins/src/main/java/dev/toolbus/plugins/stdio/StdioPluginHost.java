package dev.toolbus.plugins.stdio;

import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The running stdio plugins of one folder and their tools. Obtain one from {@link StdioPlugins}; close
 * it to stop every plugin process (each gets {@code deactivate}, a grace period, then a kill of its
 * whole process tree). Until it is closed, a JVM shutdown hook kills the processes if the JVM exits.
 *
 * <pre>{@code
 * StdioPluginHost plugins = StdioPlugins.load(Path.of("plugins")).registerInto(executor.registry());
 * ...
 * plugins.closeGracefully().block();
 * }</pre>
 */
public final class StdioPluginHost implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StdioPluginHost.class);

    private final List<PluginSupervisor> plugins;
    private final List<ToolSpec> tools;
    private final Map<String, String> skipped;
    private final Thread shutdownHook;
    private final java.util.concurrent.atomic.AtomicBoolean hooked = new java.util.concurrent.atomic.AtomicBoolean(true);
    private final Mono<Void> closing;

    StdioPluginHost(List<PluginSupervisor> plugins, Map<String, String> skipped) {
        this.plugins = List.copyOf(plugins);
        this.skipped = Collections.unmodifiableMap(new LinkedHashMap<>(skipped));
        List<ToolSpec> specs = new ArrayList<>();
        plugins.forEach(p -> specs.addAll(p.specs()));
        this.tools = List.copyOf(specs);
        this.shutdownHook = new Thread(this::killNow, "toolbus-stdio-plugins-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        this.closing = Flux.fromIterable(this.plugins)
                .flatMap(PluginSupervisor::closeGracefully)
                .then(Mono.fromRunnable(this::removeHook))
                .doOnSuccess(x -> log.debug("stdio plugins closed"))
                .then()
                .cache();
    }

    /** The tools of every started plugin, plugin by plugin in folder order; register them as {@link ToolSource#STDIO}. */
    public List<ToolSpec> tools() {
        return tools;
    }

    /**
     * Registers {@link #tools()} as {@link ToolSource#STDIO} tools (core and earlier tools win a name clash;
     * the registry reports it).
     *
     * @return this host
     */
    public StdioPluginHost registerInto(ToolRegistry registry) {
        registry.registerAll(tools, ToolSource.STDIO);
        return this;
    }

    /** A snapshot of every started plugin. */
    public List<StdioPluginStatus> plugins() {
        return plugins.stream().map(PluginSupervisor::status).toList();
    }

    /** Optional plugins that were skipped: id (or folder) → reason. */
    public Map<String, String> skipped() {
        return skipped;
    }

    /**
     * Stops every plugin process and completes when all of them, and the descendants they had, are gone.
     * Calls made afterwards fail. Idempotent.
     */
    public Mono<Void> closeGracefully() {
        return closing;
    }

    /**
     * Removes the JVM shutdown hook that kills the plugin processes, for an application that stops the
     * plugins on its own shutdown path (after letting running calls finish) with
     * {@link #closeGracefully()}. If the JVM dies before that, the processes are still killed where the
     * system allows it (see {@code docs/plugins.md}, "Lifetime"). Idempotent.
     *
     * @return this host
     */
    public StdioPluginHost withoutShutdownHook() {
        removeHook();
        return this;
    }

    /** {@link #closeGracefully()}, waiting for it. */
    @Override
    public void close() {
        closeGracefully().block();
    }

    /** Requests the plugins are working on (for tests). */
    int pendingCount() {
        return plugins.stream().mapToInt(PluginSupervisor::pendingCount).sum();
    }

    /** Kills every plugin process at once (the JVM shutdown hook). */
    void killNow() {
        plugins.forEach(PluginSupervisor::killNow);
    }

    private void removeHook() {
        if (!hooked.compareAndSet(true, false)) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException ignored) {
            // the JVM is already shutting down; the hook does the rest
        }
    }
}
