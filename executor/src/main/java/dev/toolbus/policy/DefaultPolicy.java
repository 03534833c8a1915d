package dev.toolbus.policy;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.Visibility;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The configured policy: see {@link ConfiguredPolicy} and docs/policy.md. */
final class DefaultPolicy implements ConfiguredPolicy {

    private static final Logger log = LoggerFactory.getLogger(DefaultPolicy.class);

    private final PolicyConfig config;
    private final ToolRegistry registry;
    private final ToolDiscovery discovery;
    private final List<Pattern> disabled;
    private final List<Pattern> dangerous;
    private final PermissionLevel dangerousLevel;
    private final Map<String, CompiledGroup> groups = new LinkedHashMap<>();
    private final List<String> configWarnings = new ArrayList<>();
    private volatile Snapshot snapshot;
    /**
     * What {@link #decide} would otherwise build for every call, kept since the config cannot change: the
     * layers of a context (by its agent, provider and model, the only parts they read) and a tool's facts
     * (by name, taken only for the same definition and source, dropped when the registry changes). At
     * most {@value #MAX_KEPT} of each, and layers only of contexts whose agent, provider and model add up
     * to {@value #MAX_KEPT_CONTEXT_CHARS} characters (they come from the wire); past that they are built
     * per call as before.
     */
    private final ConcurrentHashMap<LayerKey, List<RawLayer>> layersByContext = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Facts> factsByName = new ConcurrentHashMap<>();
    static final int MAX_KEPT = 1024;
    static final int MAX_KEPT_CONTEXT_CHARS = 256;

    DefaultPolicy(PolicyConfig config, ToolRegistry registry, ToolDiscovery discovery) {
        this.config = config;
        this.registry = registry;
        this.discovery = discovery;
        this.disabled = Pattern.compileAll(config.sources().disabledTools());
        this.dangerous = Pattern.compileAll(config.security().dangerousTools());
        this.dangerousLevel = PermissionLevel.parseRequired(config.security().dangerousRequiredPermission());
        if (dangerousLevel == null) {
            configWarnings.add("security.dangerousRequiredPermission '" + config.security()
                    .dangerousRequiredPermission()
                    + "' is not a permission level; no caller may use dangerous tools");
        }
        for (PolicyConfig.Group g : config.groups()) {
            String key = Pattern.norm(g.name());
            List<Pattern> members = new ArrayList<>();
            for (Pattern p : Pattern.compileAll(g.tools())) {
                if (p.kind() == Pattern.Kind.GROUP || p.kind() == Pattern.Kind.PLUGINS) {
                    configWarnings.add("groups." + g.name() + ".tools: '" + p.text()
                            + "' refers to a group; groups do not nest, ignored");
                } else {
                    members.add(p);
                }
            }
            PermissionLevel level = g.requiredPermission() == null ? null
                    : PermissionLevel.parseRequired(g.requiredPermission());
            if (g.requiredPermission() != null && level == null) {
                configWarnings.add("groups." + g.name() + ".requiredPermission '" + g.requiredPermission()
                        + "' is not a permission level; nobody may use this group's tools through it");
            }
            if (groups.putIfAbsent(key, new CompiledGroup(g, members, level)) != null) {
                configWarnings.add("groups: '" + g.name() + "' is defined twice; the first definition is used");
            }
        }
        checkProfile("tools.profile", config.tools().profile());
        config.byProvider().forEach((k, r) -> checkProfile("tools.byProvider." + k + ".profile", r.profile()));
        config.agents().forEach((id, a) -> {
            checkProfile("agents." + id + ".profile", a.rules().profile());
            a.byProvider().forEach((k, r) -> checkProfile("agents." + id + ".byProvider." + k + ".profile", r.profile()));
        });
        forEachList((label, list) -> {
            for (Pattern p : Pattern.compileAll(list)) {
                if (p.kind() == Pattern.Kind.GROUP && !groups.containsKey(p.text())) {
                    configWarnings.add(label + ": group:" + p.text() + " is not a configured group; it matches nothing");
                }
            }
        });
    }

    private void checkProfile(String label, String name) {
        if (name != null && !name.equalsIgnoreCase(PolicyConfig.FULL_PROFILE) && !config.profiles().containsKey(name)) {
            configWarnings.add(label + " '" + name + "' is not a defined profile; it restricts nothing");
        }
    }

    private void forEachList(java.util.function.BiConsumer<String, List<String>> f) {
        rulesLists("tools", config.tools(), f);
        config.profiles().forEach((k, r) -> rulesLists("profiles." + k, r, f));
        config.byProvider().forEach((k, r) -> rulesLists("tools.byProvider." + k, r, f));
        config.agents().forEach((id, a) -> {
            rulesLists("agents." + id, a.rules(), f);
            a.byProvider().forEach((k, r) -> rulesLists("agents." + id + ".byProvider." + k, r, f));
        });
        f.accept("sources.disabledTools", config.sources().disabledTools());
        f.accept("security.dangerousTools", config.security().dangerousTools());
    }

    private static void rulesLists(String label, PolicyConfig.Rules r, java.util.function.BiConsumer<String, List<String>> f) {
        f.accept(label + ".allow", r.allow());
        f.accept(label + ".alsoAllow", r.alsoAllow());
        f.accept(label + ".deny", r.deny());
    }

    List<String> configWarnings() {
        return List.copyOf(configWarnings);
    }

    @Override
    public PolicyConfig config() {
        return config;
    }

    @Override
    public ToolDiscovery discovery() {
        return discovery;
    }

    @Override
    public Decision decide(ToolDefinition tool, String streamId, CallContext context) {
        return decide(tool, streamId, context, false);
    }

    @Override
    public Decision decideForSearch(ToolDefinition tool, String streamId, CallContext context) {
        return decide(tool, streamId, context, true);
    }

    private Decision decide(ToolDefinition tool, String streamId, CallContext ctx, boolean asFound) {
        if (ctx == null) {
            ctx = CallContext.EMPTY;
        }
        if (tool.visibility() == Visibility.HIDDEN) {
            return Decision.notAvailable("");
        }
        Facts t = keptFacts(tool, sourceOf(tool));
        boolean search = isSearchTool(t);
        if (!search && !sourceEnabled(t.source())) {
            return Decision.notAvailable("");
        }
        if (Pattern.any(disabled, t)) {
            return Decision.notAvailable("");
        }
        if (!tool.channels().isEmpty() && !inChannel(tool, streamId, ctx)) {
            return Decision.notAvailable("");
        }
        Snapshot snap = snapshot();
        List<RawLayer> layers = keptLayers(ctx);
        if (tool.optional() && !named(layers, t)) {
            return Decision.notAvailable("");
        }
        for (RawLayer raw : layers) {
            if (!snap.layer(raw).permits(t, search)) {
                return Decision.notAvailable("");
            }
        }
        List<CompiledGroup> enabledGroups = new ArrayList<>();
        boolean grouped = false;
        for (String g : t.groups()) {
            CompiledGroup cg = groups.get(g);
            if (cg != null) {
                grouped = true;
                if (cg.group().enabled()) {
                    enabledGroups.add(cg);
                }
            }
        }
        if (grouped && enabledGroups.isEmpty()) {
            return Decision.notAvailable("");
        }
        boolean isDangerous = tool.dangerous() || Pattern.any(dangerous, t);
        if (isDangerous && (!config.security().allowDangerous() || dangerousLevel == null)) {
            return Decision.notAvailable("");
        }
        PermissionLevel toolLevel = null;
        if (tool.requiredPermission() != null) {
            toolLevel = PermissionLevel.parseRequired(tool.requiredPermission());
            if (toolLevel == null) {
                return Decision.notAvailable("");
            }
        }
        PermissionLevel groupLevel = null;
        if (!enabledGroups.isEmpty()) {
            for (CompiledGroup cg : enabledGroups) {
                if (cg.group().requiredPermission() == null) {
                    groupLevel = PermissionLevel.MEMBER;
                    break;
                }
                if (cg.level() != null && (groupLevel == null || cg.level().compareTo(groupLevel) < 0)) {
                    groupLevel = cg.level();
                }
            }
            if (groupLevel == null) {
                return Decision.notAvailable("");
            }
        }
        if (tool.visibility() == Visibility.DEFERRED && !asFound && config.search().requireDiscovery()
                && !isResultReader(t) && !discovery.isFound(streamId, tool.name())) {
            return Decision.notAvailable("");
        }
        PermissionLevel user = PermissionLevel.parseUser(ctx.permission());
        PermissionLevel needed = PermissionLevel.MEMBER;
        for (PermissionLevel l : new PermissionLevel[] {groupLevel, toolLevel, isDangerous ? dangerousLevel : null}) {
            if (l != null && l.compareTo(needed) > 0) {
                needed = l;
            }
        }
        if (!user.atLeast(needed)) {
            return Decision.permissionDenied("Tool " + tool.name() + " needs the " + needed.wireName()
                    + " permission level; this session has " + user.wireName() + ".");
        }
        return Decision.ALLOW;
    }

    /**
     * Whether the tool is one of the built-ins that can only reveal the session's own things:
     * {@code tool_search} and {@code read_tool_result} (exempt from source modes and allow lists).
     */
    static boolean isSearchTool(Facts t) {
        return t.source() == ToolSource.CORE && (t.def().name().equals(ToolSearch.NAME) || isResultReader(t));
    }

    /** {@code read_tool_result}: callable without discovery, its cut markers name it. */
    static boolean isResultReader(Facts t) {
        return t.source() == ToolSource.CORE && t.def().name().equals(BuiltInTools.READ_TOOL_RESULT);
    }

    private boolean sourceEnabled(ToolSource s) {
        PolicyConfig.Sources src = config.sources();
        SourceMode mode = config.mode();
        return switch (s) {
            case CORE, PLUGIN -> mode != SourceMode.MCP_ONLY && src.builtinEnabled();
            case STDIO -> mode != SourceMode.MCP_ONLY && src.customEnabled();
            case MCP -> mode != SourceMode.SKILLS_ONLY && src.mcpEnabled();
        };
    }

    /** The session's channel: {@code context.channel}, else the stream id's prefix before the first ':'. */
    static String sessionChannel(String streamId, CallContext ctx) {
        if (!ctx.channel().isBlank()) {
            return Pattern.norm(ctx.channel());
        }
        if (streamId != null) {
            int i = streamId.indexOf(':');
            if (i > 0) {
                return Pattern.norm(streamId.substring(0, i));
            }
        }
        return "";
    }

    private static boolean inChannel(ToolDefinition tool, String streamId, CallContext ctx) {
        String ch = sessionChannel(streamId, ctx);
        if (ch.isEmpty()) {
            return false;
        }
        for (String c : tool.channels()) {
            if (ch.equals(Pattern.norm(c))) {
                return true;
            }
        }
        return false;
    }

    private ToolSource sourceOf(ToolDefinition tool) {
        ToolRegistry.Entry e = registry.find(tool.name());
        if (e != null) {
            return e.source();
        }
        return tool.pluginId() != null ? ToolSource.PLUGIN : ToolSource.CORE;
    }

    private Facts keptFacts(ToolDefinition tool, ToolSource source) {
        Facts f = factsByName.get(tool.name());
        if (f != null && f.def() == tool && f.source() == source) {
            return f;
        }
        f = facts(tool, source);
        if (factsByName.size() < MAX_KEPT || factsByName.containsKey(tool.name())) {
            factsByName.put(tool.name(), f);
        }
        return f;
    }

    Facts facts(ToolDefinition tool, ToolSource source) {
        String pid = tool.pluginId() == null || tool.pluginId().isBlank() ? null : Pattern.norm(tool.pluginId());
        boolean plugin = pid != null || source == ToolSource.STDIO || source == ToolSource.MCP;
        Set<String> gs = new LinkedHashSet<>();
        for (String g : tool.groups()) {
            gs.add(Pattern.norm(g));
        }
        Facts bare = new Facts(tool, Pattern.norm(tool.name()), pid, source, plugin, Set.of(),
                Facts.aliasesOf(tool, pid));
        for (Map.Entry<String, CompiledGroup> e : groups.entrySet()) {
            if (Pattern.any(e.getValue().members(), bare)) {
                gs.add(e.getKey());
            }
        }
        return new Facts(tool, bare.name(), pid, source, plugin, gs, bare.aliases());
    }

    /** Whether an allow list of these layers names the tool explicitly (name, plugin id, group:plugins). */
    private static boolean named(List<RawLayer> layers, Facts t) {
        for (RawLayer l : layers) {
            for (String raw : l.explicit()) {
                String e = Pattern.norm(raw);
                if (t.isGranted(e) || e.equals(t.pluginId()) || (t.plugin() && e.equals(Pattern.PLUGINS))) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---- layers -------------------------------------------------------------------------------

    /** One layer before compilation: a unique label, its effective allow (empty = all) and deny. */
    record RawLayer(String label, List<String> allow, List<String> deny, List<String> explicit) {
    }

    /** The parts of a context its layers depend on. */
    private record LayerKey(String agentId, String provider, String model) {
    }

    private List<RawLayer> keptLayers(CallContext ctx) {
        LayerKey key = new LayerKey(ctx.agentId(), ctx.provider(), ctx.model());
        List<RawLayer> l = layersByContext.get(key);
        if (l == null) {
            l = List.copyOf(layers(ctx));
            int chars = key.agentId().length() + key.provider().length() + key.model().length();
            if (chars <= MAX_KEPT_CONTEXT_CHARS && layersByContext.size() < MAX_KEPT) {
                layersByContext.putIfAbsent(key, l);
            }
        }
        return l;
    }

    List<RawLayer> layers(CallContext ctx) {
        List<RawLayer> out = new ArrayList<>(6);
        PolicyConfig.Rules global = config.tools();
        // agent ids match like names: case and surrounding blanks do not matter
        String agentId = Pattern.norm(ctx.agentId());
        PolicyConfig.AgentRules agent = agentId.isEmpty() ? null : config.agents().get(agentId);
        String gKey = providerKey(config.byProvider(), ctx);
        String aKey = agent == null ? null : providerKey(agent.byProvider(), ctx);
        PolicyConfig.Rules gp = gKey == null ? null : config.byProvider().get(gKey);
        PolicyConfig.Rules ap = aKey == null ? null : agent.byProvider().get(aKey);

        // alsoAllow handed down to the profile layers: a written list (even []) at the more specific
        // level replaces the general one. The provider profile takes its provider entries' list only
        // (the agent's entry's, else the global entry's), never the profile's: OpenClaw's rule
        boolean agentAlso = agent != null && agent.rules().alsoAllowGiven();
        List<String> also = agentAlso ? agent.rules().alsoAllow() : global.alsoAllow();
        String alsoLabel = agentAlso ? "agents." + agentId + ".alsoAllow" : "tools.alsoAllow";
        List<String> pAlso = List.of();
        String pAlsoLabel = "";
        if (ap != null && ap.alsoAllowGiven()) {
            pAlso = ap.alsoAllow();
            pAlsoLabel = "agents." + agentId + ".byProvider." + aKey + ".alsoAllow";
        } else if (gp != null && gp.alsoAllowGiven()) {
            pAlso = gp.alsoAllow();
            pAlsoLabel = "tools.byProvider." + gKey + ".alsoAllow";
        }

        String profile = agent != null && agent.rules().profile() != null ? agent.rules().profile() : global.profile();
        addProfile(out, "profile " + profile, profile, also, alsoLabel);
        String pProfile = ap != null && ap.profile() != null ? ap.profile() : gp != null ? gp.profile() : null;
        addProfile(out, "provider profile " + pProfile, pProfile, pAlso, pAlsoLabel);
        addRules(out, "tools", global);
        if (gp != null) {
            addRules(out, "tools.byProvider." + gKey, gp);
        }
        if (agent != null) {
            addRules(out, "agents." + agentId, agent.rules());
        }
        if (ap != null) {
            addRules(out, "agents." + agentId + ".byProvider." + aKey, ap);
        }
        return out;
    }

    private void addProfile(List<RawLayer> out, String label, String name, List<String> also, String alsoLabel) {
        if (name == null || name.equalsIgnoreCase(PolicyConfig.FULL_PROFILE)) {
            return;
        }
        PolicyConfig.Rules p = config.profiles().get(name);
        if (p == null) {
            return;
        }
        List<String> allow = p.allow();
        if (!allow.isEmpty() && !also.isEmpty()) {
            allow = new ArrayList<>(allow);
            allow.addAll(also);
            label = label + " + " + alsoLabel;
        }
        out.add(new RawLayer(label, allow, p.deny(), allow));
    }

    private static void addRules(List<RawLayer> out, String label, PolicyConfig.Rules r) {
        List<String> allow;
        if (!r.allow().isEmpty()) {
            allow = new ArrayList<>(r.allow());
            allow.addAll(r.alsoAllow());
        } else if (!r.alsoAllow().isEmpty()) {
            allow = new ArrayList<>();
            allow.add("*");
            allow.addAll(r.alsoAllow());
        } else {
            allow = List.of();
        }
        List<String> explicit = new ArrayList<>(r.allow());
        explicit.addAll(r.alsoAllow());
        if (!allow.isEmpty() || !r.deny().isEmpty() || !explicit.isEmpty()) {
            out.add(new RawLayer(label, allow, r.deny(), explicit));
        }
    }

    /** The byProvider key for this context: {@code provider/model} first, then {@code provider}. */
    static String providerKey(Map<String, PolicyConfig.Rules> byProvider, CallContext ctx) {
        if (byProvider.isEmpty()) {
            return null;
        }
        String provider = Pattern.norm(ctx.provider());
        String model = Pattern.norm(ctx.model());
        if (!model.isEmpty()) {
            String full = model.indexOf('/') >= 0 || provider.isEmpty() ? model : provider + "/" + model;
            if (byProvider.containsKey(full)) {
                return full;
            }
        }
        if (!provider.isEmpty() && byProvider.containsKey(provider)) {
            return provider;
        }
        return null;
    }

    // ---- snapshot of the registry: core/plugin classification for stripping ---------------------

    private Snapshot snapshot() {
        Collection<ToolRegistry.Entry> cur = registry.entries();
        Snapshot s = snapshot;
        if (s == null || s.entries != cur) {
            s = new Snapshot(cur);
            snapshot = s;
            // the registry changed: drop the kept facts, so none holds a definition no longer registered
            factsByName.clear();
        }
        return s;
    }

    @Override
    public List<String> warnings() {
        List<String> out = new ArrayList<>(configWarnings);
        Snapshot snap = snapshot();
        Set<String> seen = new HashSet<>();
        List<CallContext> contexts = new ArrayList<>();
        contexts.add(CallContext.EMPTY);
        for (String key : config.byProvider().keySet()) {
            contexts.add(providerContext("", key));
        }
        config.agents().forEach((id, a) -> {
            contexts.add(providerContext(id, ""));
            for (String key : a.byProvider().keySet()) {
                contexts.add(providerContext(id, key));
            }
        });
        for (CallContext c : contexts) {
            for (RawLayer raw : layers(c)) {
                Layer l = snap.layer(raw);
                if (l.warning() != null && seen.add(l.warning())) {
                    out.add(l.warning());
                }
            }
        }
        return out;
    }

    private static CallContext providerContext(String agentId, String key) {
        int slash = key.indexOf('/');
        String provider = slash < 0 ? key : key.substring(0, slash);
        String model = slash < 0 ? "" : key.substring(slash + 1);
        return CallContext.builder().provider(provider).model(model).agentId(agentId).build();
    }

    record CompiledGroup(PolicyConfig.Group group, List<Pattern> members, PermissionLevel level) {
    }

    /** A compiled layer: {@code allow == null} allows everything. */
    record Layer(List<Pattern> allow, List<Pattern> deny, String warning) {
        boolean permits(Facts t, boolean searchTool) {
            if (Pattern.any(deny, t)) {
                return false;
            }
            return allow == null || searchTool || Pattern.anyGrants(allow, t);
        }
    }

    private final class Snapshot {
        final Collection<ToolRegistry.Entry> entries;
        final List<Facts> core = new ArrayList<>();
        final List<Facts> plugin = new ArrayList<>();
        final Map<String, Layer> layers = new ConcurrentHashMap<>();

        Snapshot(Collection<ToolRegistry.Entry> entries) {
            this.entries = entries;
            for (ToolRegistry.Entry e : entries) {
                Facts f = facts(e.tool().definition(), e.source());
                (f.plugin() ? plugin : core).add(f);
            }
        }

        Layer layer(RawLayer raw) {
            return layers.computeIfAbsent(raw.label(), k -> compile(raw));
        }

        private Layer compile(RawLayer raw) {
            List<Pattern> deny = Pattern.compileAll(raw.deny());
            List<Pattern> allow = Pattern.compileAll(raw.allow());
            if (allow.isEmpty()) {
                return new Layer(null, deny, null);
            }
            boolean hasCore = false;
            List<String> unknown = new ArrayList<>();
            for (Pattern p : allow) {
                if (p.kind() == Pattern.Kind.ALL || anyMatch(core, p)) {
                    hasCore = true;
                } else if (p.kind() != Pattern.Kind.PLUGINS && !anyMatch(plugin, p)) {
                    unknown.add(p.kind() == Pattern.Kind.GROUP ? "group:" + p.text() : p.text());
                }
            }
            String warning = null;
            if (!unknown.isEmpty()) {
                warning = raw.label() + ": the allow list names entries that match no tool (" + String.join(", ", unknown)
                        + ")" + (hasCore ? "; they stay without effect until such a tool is registered"
                        : "; as it names no core tool it does not restrict core tools (use alsoAllow to add plugin tools)");
                log.warn(warning);
            }
            return new Layer(hasCore ? allow : null, deny, warning);
        }

        private boolean anyMatch(List<Facts> tools, Pattern p) {
            for (Facts f : tools) {
                if (p.grants(f)) {
                    return true;
                }
            }
            return false;
        }
    }
}
