package dev.toolbus.registry;

import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;

/**
 * The tools an executor can run, by name. Thread-safe: reads see an immutable snapshot, writes
 * replace it.
 *
 * <p>Name clashes, with names compared ignoring case ({@code Web_Fetch} clashes with
 * {@code web_fetch}): a {@link ToolSource#CORE core} tool wins; otherwise the first registered wins.
 * The loser is skipped (or removed, when a core tool arrives later) and a {@link Diagnostic} says so.
 *
 * <p>A plugin whose id equals a core tool's name (ignoring case) is blocked whole: each of its tools
 * is skipped, or removed when the core tool arrives later, with a diagnostic. A <em>plugin tool</em>
 * is one with a plugin id; a <em>core tool</em> is one without, from {@link ToolSource#CORE} or
 * {@link ToolSource#PLUGIN} (the same split the tool policy uses).
 */
public final class ToolRegistry {

    private static final Logger log = LoggerFactory.getLogger(ToolRegistry.class);

    private final Object lock = new Object();
    /** The tools by name, and by name in lower case (clashes are found in one look-up, not a scan). */
    private volatile Snapshot snapshot = Snapshot.EMPTY;
    /** Diagnostics kept, the oldest dropped first. */
    static final int MAX_DIAGNOSTICS = 256;

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
        boolean registered;
        synchronized (lock) {
            Working w = new Working(snapshot);
            registered = add(tool, source, w);
            if (registered) {
                snapshot = w.publish();
            }
        }
        if (registered) {
            changed();
        }
        return registered;
    }

    private boolean add(ToolSpec tool, ToolSource source, Working w) {
        Objects.requireNonNull(tool, "tool");
        java.util.List<String> problems = dev.toolbus.internal.JsonSchemas.problems(tool.definition().inputSchema());
        String which = "input";
        if (problems.isEmpty() && tool.definition().hasOutputSchema()) {
            problems = dev.toolbus.internal.JsonSchemas.problems(tool.definition().outputSchema());
            which = "output";
        }
        String name = tool.name();
        if (!problems.isEmpty()) {
            Entry refused = new Entry(tool, source);
            Diagnostic d = new Diagnostic(name, source, pluginOf(refused), null, null, "tool '" + name + "' from "
                    + describe(refused) + " is skipped: its " + which + " schema is not a valid JSON Schema ("
                    + String.join("; ", problems.subList(0, Math.min(3, problems.size()))) + ")");
            report(d);
            return false;
        }
        Entry incoming = new Entry(tool, source);
        if (source != ToolSource.CORE && isReserved(name)) {
            report(new Diagnostic(name, source, pluginOf(incoming), ToolSource.CORE, null, "tool '" + name + "' from "
                    + describe(incoming) + " is skipped: the name '" + norm(name)
                    + "' is reserved for toolbus's own tool"));
            return false;
        }
        Entry blocker = isPluginTool(incoming) ? w.coreNamed(pluginOf(incoming)) : null;
        if (blocker != null) {
            report(blockedPlugin(incoming, blocker));
            return false;
        }
        Entry existing = w.clash(name);
        if (existing != null) {
            boolean replace = source == ToolSource.CORE && existing.source() != ToolSource.CORE;
            Entry loser = replace ? existing : incoming;
            Entry winner = replace ? incoming : existing;
            boolean sameCase = existing.tool().name().equals(name);
            report(new Diagnostic(loser.tool().name(), loser.source(), pluginOf(loser), winner.source(),
                    pluginOf(winner), "tool '" + loser.tool().name() + "' from " + describe(loser) + " is skipped: "
                    + (sameCase ? describe(winner) + " already provides it"
                            : "its name equals '" + winner.tool().name() + "' from " + describe(winner)
                                    + " ignoring case")
                    + (replace ? " (core tools win)" : " (first registered wins)")));
            if (!replace) {
                return false;
            }
            w.remove(existing.tool().name());
        }
        if (isCore(incoming)) {
            // a plugin whose id is this core tool's name is blocked whole, also when it came first
            for (Entry e : w.toolsOfPlugin(name)) {
                w.remove(e.tool().name());
                report(blockedPlugin(e, incoming));
            }
        }
        w.put(incoming);
        return true;
    }

    /**
     * Whether a name is reserved for one of toolbus's own tools ({@link BuiltInTools#RESERVED}, compared
     * ignoring case and surrounding blanks): only a {@link ToolSource#CORE} tool may be registered
     * under it; a plugin's or MCP server's tool of that name is skipped with a diagnostic (an MCP
     * source renames it {@code <server>__<name>} first).
     */
    public static boolean isReserved(String name) {
        return name != null && BuiltInTools.RESERVED.contains(norm(name));
    }

    private static Diagnostic blockedPlugin(Entry plugin, Entry core) {
        return new Diagnostic(plugin.tool().name(), plugin.source(), pluginOf(plugin), core.source(), pluginOf(core),
                "tool '" + plugin.tool().name() + "' from " + describe(plugin) + " is skipped: the plugin id '"
                        + pluginOf(plugin) + "' clashes with the core tool '" + core.tool().name()
                        + "' (ids are compared ignoring case), so every tool of that plugin is blocked");
    }

    /** Records a diagnostic; one already recorded is logged again only at debug level (reloads repeat them). */
    private void report(Diagnostic d) {
        boolean repeated = diagnostics.contains(d);
        if (repeated) {
            diagnostics.remove(d);
            log.debug(d.message());
        } else {
            log.warn(d.message());
        }
        diagnostics.add(d);
        while (diagnostics.size() > MAX_DIAGNOSTICS) {
            diagnostics.remove(0);
        }
    }

    /**
     * The registered tool a tool of this name would clash with: the one of the same name, else one
     * whose name differs only in case ({@code Web_Fetch} and {@code web_fetch} clash), or {@code null}.
     * One look-up, whatever the number of tools.
     */
    public Entry clash(String name) {
        return snapshot.clash(name);
    }

    /** A plugin tool has a plugin id (stdio and MCP tools always do); every other tool is core. */
    private static boolean isPluginTool(Entry e) {
        String p = pluginOf(e);
        return p != null && !p.isBlank();
    }

    private static boolean isCore(Entry e) {
        return !isPluginTool(e) && (e.source() == ToolSource.CORE || e.source() == ToolSource.PLUGIN);
    }

    static String norm(String s) {
        return s.strip().toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Puts this tool in place of the one of the same name and source in one step (calls never find
     * the name missing), or registers it when there is none.
     *
     * @return {@code true} when the tool is now the one that runs under its name
     */
    public boolean replace(ToolSpec tool, ToolSource source) {
        Objects.requireNonNull(tool, "tool");
        boolean inPlace;
        synchronized (lock) {
            Entry existing = snapshot.byName().get(tool.name());
            inPlace = existing != null && existing.source() == source
                    && dev.toolbus.internal.JsonSchemas.problems(tool.definition().inputSchema()).isEmpty()
                    && (!tool.definition().hasOutputSchema()
                            || dev.toolbus.internal.JsonSchemas.problems(tool.definition().outputSchema()).isEmpty());
            if (inPlace) {
                Working w = new Working(snapshot);
                w.put(new Entry(tool, source));
                snapshot = w.publish();
            }
        }
        if (!inPlace) {
            return register(tool, source);
        }
        changed();
        return true;
    }

    /**
     * Registers several tools from one source, in order, by the same rules as {@link #register} one
     * by one; the registry is copied once and its listeners told once, so tens of thousands of tools
     * cost time in proportion to their number.
     *
     * @return how many of them are now the ones that run under their names
     */
    public int registerAll(Collection<ToolSpec> tools, ToolSource source) {
        Objects.requireNonNull(source, "source");
        int registered = 0;
        synchronized (lock) {
            Working w = new Working(snapshot);
            for (ToolSpec t : tools) {
                if (add(t, source, w)) {
                    registered++;
                }
            }
            if (registered > 0) {
                snapshot = w.publish();
            }
        }
        if (registered > 0) {
            changed();
        }
        return registered;
    }

    /** Removes every tool matching the predicate (for example all tools of one plugin). */
    public int removeIf(Predicate<Entry> predicate) {
        int removed = 0;
        synchronized (lock) {
            Working w = new Working(snapshot);
            for (Entry e : List.copyOf(w.byName.values())) {
                if (predicate.test(e)) {
                    w.remove(e.tool().name());
                    removed++;
                }
            }
            if (removed > 0) {
                snapshot = w.publish();
            }
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
        return snapshot.byName().get(name);
    }

    /** All tools, in registration order. */
    public Collection<Entry> entries() {
        return snapshot.byName().values();
    }

    /** All definitions, in registration order. */
    public List<ToolDefinition> definitions() {
        Map<String, Entry> entries = snapshot.byName();
        List<ToolDefinition> out = new ArrayList<>(entries.size());
        entries.values().forEach(e -> out.add(e.tool().definition()));
        return out;
    }

    /** Clash diagnostics, oldest first: the last {@value #MAX_DIAGNOSTICS}, each once (a repeat moves it last). */
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

    /** The tools as readers see them: by name (registration order) and by lower-case name. */
    private record Snapshot(Map<String, Entry> byName, Map<String, Entry> byFolded) {
        static final Snapshot EMPTY = new Snapshot(Map.of(), Map.of());

        Entry clash(String name) {
            Entry e = byName.get(name);
            return e != null ? e : byFolded.get(norm(name));
        }
    }

    /** A copy being changed under the lock, published in one step. */
    private static final class Working {
        final LinkedHashMap<String, Entry> byName;
        final HashMap<String, Entry> byFolded;
        /** Lower-case plugin id to the names of its tools; built on first use. */
        private HashMap<String, Set<String>> byPlugin;

        Working(Snapshot s) {
            byName = new LinkedHashMap<>(s.byName());
            byFolded = new HashMap<>(s.byFolded());
        }

        Entry clash(String name) {
            Entry e = byName.get(name);
            return e != null ? e : byFolded.get(norm(name));
        }

        /** The core tool named {@code id} ignoring case, or {@code null}. */
        Entry coreNamed(String id) {
            Entry e = byFolded.get(norm(id));
            return e != null && isCore(e) ? e : null;
        }

        /**
         * The tools of the plugin with this id ignoring case, in registration order: one look-up once
         * the index is built (on first use in this copy, so a batch of core tools costs time in
         * proportion to its size, not its square).
         */
        List<Entry> toolsOfPlugin(String id) {
            if (byPlugin == null) {
                byPlugin = new HashMap<>();
                for (Entry e : byName.values()) {
                    index(e);
                }
            }
            Set<String> names = byPlugin.get(norm(id));
            if (names == null) {
                return List.of();
            }
            List<Entry> out = new ArrayList<>(names.size());
            for (String n : names) {
                Entry e = byName.get(n);
                if (e != null) {
                    out.add(e);
                }
            }
            return out;
        }

        void put(Entry e) {
            Entry old = byName.put(e.tool().name(), e);
            if (old != null && old != e) {
                byFolded.remove(norm(old.tool().name()), old);
                unindex(old);
            }
            byFolded.put(norm(e.tool().name()), e);
            if (byPlugin != null) {
                index(e);
            }
        }

        void remove(String name) {
            Entry old = byName.remove(name);
            if (old != null) {
                byFolded.remove(norm(name), old);
                unindex(old);
            }
        }

        private void index(Entry e) {
            if (isPluginTool(e)) {
                byPlugin.computeIfAbsent(norm(pluginOf(e)), k -> new LinkedHashSet<>()).add(e.tool().name());
            }
        }

        private void unindex(Entry e) {
            if (byPlugin != null && isPluginTool(e)) {
                String key = norm(pluginOf(e));
                Set<String> names = byPlugin.get(key);
                if (names != null && names.remove(e.tool().name()) && names.isEmpty()) {
                    byPlugin.remove(key);
                }
            }
        }

        Snapshot publish() {
            return new Snapshot(Collections.unmodifiableMap(byName), Collections.unmodifiableMap(byFolded));
        }
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
