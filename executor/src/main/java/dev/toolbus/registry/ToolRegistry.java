package dev.toolbus.registry;

import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The tools an executor can run, by name. Thread-safe: reads see an immutable snapshot, writes
 * replace it.
 *
 * <p>Name clashes: a {@link ToolSource#CORE core} tool wins; otherwise the first registered wins. The
 * loser is skipped (or removed, when a core tool arrives later) and a {@link Diagnostic} says so.
 */
public final class ToolRegistry {

    private static final Logger log = LoggerFactory.getLogger(ToolRegistry.class);

    private final Object lock = new Object();
    private volatile Map<String, Entry> entries = Map.of();
    private final List<Diagnostic> diagnostics = new CopyOnWriteArrayList<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    private ToolRegistry() {
    }

    /** An empty registry. */
    public static ToolRegistry create() {
        return new ToolRegistry();
    }

    /** A registry holding these plugin tools, in order. */
    public static ToolRegistry of(Collection<ToolSpec> tools) {
        ToolRegistry r = new ToolRegistry();
        tools.forEach(t -> r.register(t, ToolSource.PLUGIN));
        return r;
    }

    /**
     * Registers a tool.
     *
     * @return {@code true} when the tool is now the one that runs under its name
     */
    public boolean register(ToolSpec tool, ToolSource source) {
        Objects.requireNonNull(tool, "tool");
        Objects.requireNonNull(source, "source");
        java.util.List<String> problems = dev.toolbus.internal.JsonSchemas.problems(tool.definition().inputSchema());
        synchronized (lock) {
            String name = tool.name();
            if (!problems.isEmpty()) {
                Entry refused = new Entry(tool, source);
                Diagnostic d = new Diagnostic(name, source, pluginOf(refused), null, null, "tool '" + name + "' from "
                        + describe(refused) + " is skipped: its input schema is not a valid JSON Schema ("
                        + String.join("; ", problems.subList(0, Math.min(3, problems.size()))) + ")");
                diagnostics.add(d);
                log.warn(d.message());
                return false;
            }
            Entry existing = entries.get(name);
            if (existing != null) {
                boolean replace = source == ToolSource.CORE && existing.source() != ToolSource.CORE;
                Entry loser = replace ? existing : new Entry(tool, source);
                Entry winner = replace ? new Entry(tool, source) : existing;
                Diagnostic d = new Diagnostic(name, loser.source(), pluginOf(loser), winner.source(), pluginOf(winner),
                        "tool '" + name + "' from " + describe(loser) + " is skipped: " + describe(winner)
                                + " already provides it" + (replace ? " (core tools win)" : " (first registered wins)"));
                diagnostics.add(d);
                log.warn(d.message());
                if (!replace) {
                    return false;
                }
            }
            Map<String, Entry> next = new LinkedHashMap<>(entries);
            next.put(name, new Entry(tool, source));
            entries = Collections.unmodifiableMap(next);
        }
        changed();
        return true;
    }

    /** Registers several tools from one source, in order. */
    public void registerAll(Collection<ToolSpec> tools, ToolSource source) {
        tools.forEach(t -> register(t, source));
    }

    /** Removes every tool matching the predicate (for example all tools of one plugin). */
    public int removeIf(Predicate<Entry> predicate) {
        int removed;
        synchronized (lock) {
            Map<String, Entry> next = new LinkedHashMap<>(entries);
            int before = next.size();
            next.values().removeIf(predicate);
            entries = Collections.unmodifiableMap(next);
            removed = before - next.size();
        }
        if (removed > 0) {
            changed();
        }
        return removed;
    }

    /**
     * Calls {@code listener} after every change of the tools (a tool registered, replaced or removed),
     * on the thread that made the change, outside the registry's lock. It must return quickly (hand
     * the work to another thread); an exception it throws is logged and dropped. An MCP server uses it
     * to tell its clients {@code notifications/tools/list_changed}.
     *
     * @return disposing it removes the listener
     */
    public Disposable onChange(Runnable listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    private void changed() {
        for (Runnable l : listeners) {
            try {
                l.run();
            } catch (RuntimeException e) {
                log.warn("a registry change listener failed: {}", e.toString());
            }
        }
    }

    /** The tool of that name, or {@code null}. */
    public Entry find(String name) {
        return entries.get(name);
    }

    /** All tools, in registration order. */
    public Collection<Entry> entries() {
        return entries.values();
    }

    /** All definitions, in registration order. */
    public List<ToolDefinition> definitions() {
        List<ToolDefinition> out = new ArrayList<>(entries.size());
        entries.values().forEach(e -> out.add(e.tool().definition()));
        return out;
    }

    /** Clash diagnostics so far, oldest first. */
    public List<Diagnostic> diagnostics() {
        return List.copyOf(diagnostics);
    }

    private static String pluginOf(Entry e) {
        return e.tool().definition().pluginId();
    }

    private static String describe(Entry e) {
        String p = pluginOf(e);
        return e.source().name().toLowerCase(java.util.Locale.ROOT) + (p == null ? "" : " plugin '" + p + "'");
    }

    /**
     * A registered tool.
     *
     * @param tool the tool
     * @param source where it comes from
     */
    public record Entry(ToolSpec tool, ToolSource source) {
    }

    /**
     * A clash: the loser was skipped.
     *
     * @param name the contested name
     * @param loserSource the skipped tool's source
     * @param loserPlugin the skipped tool's plugin, or {@code null}
     * @param winnerSource the kept tool's source
     * @param winnerPlugin the kept tool's plugin, or {@code null}
     * @param message a readable explanation
     */
    public record Diagnostic(String name, ToolSource loserSource, String loserPlugin, ToolSource winnerSource,
                             String winnerPlugin, String message) {
    }
}
