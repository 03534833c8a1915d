package dev.toolbus.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The rules of a configured tool policy, immutable. {@link ToolPolicies#from} turns them into a
 * {@link ConfiguredPolicy} over a registry; docs/policy.md explains every rule.
 *
 * <p>Lists hold patterns: a tool name, a plugin id (all of its tools), a glob with {@code *},
 * {@code *} (everything), {@code group:plugins} (every plugin tool) or {@code group:<name>} (a
 * configured group). Matching is case-insensitive.
 *
 * <pre>{@code
 * PolicyConfig config = PolicyConfig.builder()
 *     .mode(SourceMode.HYBRID)
 *     .disabledTools(List.of("execute_command"))
 *     .group(new PolicyConfig.Group("admin", "", List.of("mute_member"), true, "admin"))
 *     .allow(List.of("read", "workflow_tool"))
 *     .deny(List.of("web_*"))
 *     .build();
 * }</pre>
 *
 * @param mode which sources a session sees
 * @param sources per-source switches and the merged disabled tools
 * @param groups named tool groups, with an enabled switch and a required permission
 * @param security dangerous tools
 * @param tools the global allow/deny layer (with its {@code profile} name)
 * @param profiles named allow/deny bases selectable by {@code profile}; {@code full} is built in
 * @param byProvider layers by {@code provider/model} or {@code provider} (keys lower-case)
 * @param agents layers by agent id
 * @param search how deferred tools are found through {@code tool_search}
 */
public record PolicyConfig(
        SourceMode mode,
        Sources sources,
        List<Group> groups,
        Security security,
        Rules tools,
        Map<String, Rules> profiles,
        Map<String, Rules> byProvider,
        Map<String, AgentRules> agents,
        Search search) {

    /** The built-in profile that restricts nothing. */
    public static final String FULL_PROFILE = "full";

    public PolicyConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(sources, "sources");
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(tools, "tools");
        Objects.requireNonNull(search, "search");
        groups = List.copyOf(groups);
        profiles = copy(profiles, false);
        byProvider = copy(byProvider, true);
        agents = copy(agents, true);
    }

    /** Everything at its default: hybrid, nothing disabled, no groups, the default dangerous list. */
    public static PolicyConfig defaults() {
        return builder().build();
    }

    /** Starts a builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    private static <V> Map<String, V> copy(Map<String, V> m, boolean lowerKeys) {
        Map<String, V> out = new LinkedHashMap<>();
        if (m != null) {
            // lower-cased keys: the first of keys differing only in case wins (the loader warns about the rest)
            m.forEach((k, v) -> out.putIfAbsent(lowerKeys ? k.strip().toLowerCase(Locale.ROOT) : k, Objects.requireNonNull(v)));
        }
        return Collections.unmodifiableMap(out);
    }

    private static List<String> list(List<String> l) {
        return l == null ? List.of() : List.copyOf(l);
    }

    /**
     * Source switches. {@code builtin} covers core and in-process plugin tools, {@code custom} stdio
     * plugins, {@code mcp} MCP servers.
     *
     * @param builtinEnabled core and Java plugin tools
     * @param customEnabled stdio plugin tools
     * @param mcpEnabled MCP tools
     * @param disabledTools the union of every source's {@code disabledTools}: disabled everywhere
     */
    public record Sources(boolean builtinEnabled, boolean customEnabled, boolean mcpEnabled,
                          List<String> disabledTools) {
        public static final Sources DEFAULTS = new Sources(true, true, true, List.of());

        public Sources {
            disabledTools = list(disabledTools);
        }
    }

    /**
     * A named group of tools.
     *
     * @param name the group's name; {@code group:<name>} refers to it in lists
     * @param description free text
     * @param tools patterns of its members (no {@code group:} references)
     * @param enabled a tool whose every group is disabled is not available
     * @param requiredPermission the level a caller needs, or {@code null}
     */
    public record Group(String name, String description, List<String> tools, boolean enabled,
                        String requiredPermission) {
        public Group {
            Objects.requireNonNull(name, "name");
            description = description == null ? "" : description;
            tools = list(tools);
            requiredPermission = requiredPermission == null || requiredPermission.isBlank() ? null
                    : requiredPermission.strip();
        }
    }

    /**
     * Dangerous tools: those matching {@code dangerousTools} and those flagged on their definition.
     *
     * @param dangerousTools patterns
     * @param allowDangerous without it no dangerous tool is available
     * @param dangerousRequiredPermission the level a caller needs for a dangerous tool
     */
    public record Security(List<String> dangerousTools, boolean allowDangerous, String dangerousRequiredPermission) {
        /** ChatAI's default list. */
        public static final List<String> DEFAULT_DANGEROUS_TOOLS =
                List.of("kick_member", "mute_member", "recall_message", "set_group_admin", "write_file");
        public static final Security DEFAULTS = new Security(DEFAULT_DANGEROUS_TOOLS, false, "admin");

        public Security {
            dangerousTools = list(dangerousTools);
            dangerousRequiredPermission = dangerousRequiredPermission == null || dangerousRequiredPermission.isBlank()
                    ? "admin" : dangerousRequiredPermission.strip();
        }
    }

    /**
     * One allow/deny layer.
     *
     * @param allow empty allows everything
     * @param alsoAllow added to {@code allow}; with an empty {@code allow} it means everything plus these
     * @param deny always wins
     * @param profile the profile this layer selects ({@code null} for none; ignored inside a profile)
     * @param alsoAllowGiven whether {@code alsoAllow} was written, even as {@code []}: a written list
     *     replaces the one a more general layer would hand down to the profile layers (so
     *     {@code alsoAllow: []} at an agent cancels the global {@code tools.alsoAllow} there); an
     *     unwritten one inherits it
     */
    public record Rules(List<String> allow, List<String> alsoAllow, List<String> deny, String profile,
                        boolean alsoAllowGiven) {
        public static final Rules NONE = new Rules(List.of(), List.of(), List.of(), null, false);

        public Rules {
            allow = list(allow);
            alsoAllow = list(alsoAllow);
            deny = list(deny);
            profile = profile == null || profile.isBlank() ? null : profile.strip();
            alsoAllowGiven = alsoAllowGiven || !alsoAllow.isEmpty();
        }

        /** A layer whose {@code alsoAllow} counts as written only when it is non-empty. */
        public Rules(List<String> allow, List<String> alsoAllow, List<String> deny, String profile) {
            this(allow, alsoAllow, deny, profile, false);
        }

        /** An allow/deny pair. */
        public static Rules of(List<String> allow, List<String> deny) {
            return new Rules(allow, List.of(), deny, null);
        }
    }

    /**
     * An agent's layers.
     *
     * @param rules the agent's allow/alsoAllow/deny and profile (its profile replaces the global one;
     *     its written alsoAllow, even {@code []}, replaces the global one at the profile layers)
     * @param byProvider the agent's provider layers
     */
    public record AgentRules(Rules rules, Map<String, Rules> byProvider) {
        public AgentRules {
            Objects.requireNonNull(rules, "rules");
            byProvider = copy(byProvider, true);
        }
    }

    /**
     * Finding deferred tools.
     *
     * @param requireDiscovery whether a deferred tool is callable only after {@code tool_search} returned
     *     it on the same stream (turn off when several instances share a stream's turns)
     * @param discoveryTtl how long a found tool stays callable after the stream last used it
     * @param maxStreams streams whose discoveries are remembered (the least recently used are dropped)
     * @param maxResults the most tools one search returns
     */
    public record Search(boolean requireDiscovery, Duration discoveryTtl, int maxStreams, int maxResults) {
        public static final Search DEFAULTS = new Search(true, Duration.ofHours(1), 10_000, 5);

        public Search {
            Objects.requireNonNull(discoveryTtl, "discoveryTtl");
            if (discoveryTtl.isNegative() || discoveryTtl.isZero() || maxStreams < 1 || maxResults < 1) {
                throw new IllegalArgumentException("search settings out of range");
            }
        }
    }

    /** Builder of {@link PolicyConfig}. */
    public static final class Builder {
        private SourceMode mode = SourceMode.HYBRID;
        private Sources sources = Sources.DEFAULTS;
        private final List<Group> groups = new ArrayList<>();
        private Security security = Security.DEFAULTS;
        private Rules tools = Rules.NONE;
        private final Map<String, Rules> profiles = new LinkedHashMap<>();
        private final Map<String, Rules> byProvider = new LinkedHashMap<>();
        private final Map<String, AgentRules> agents = new LinkedHashMap<>();
        private Search search = Search.DEFAULTS;

        private Builder() {
        }

        public Builder mode(SourceMode mode) {
            this.mode = Objects.requireNonNull(mode, "mode");
            return this;
        }

        public Builder sources(Sources sources) {
            this.sources = Objects.requireNonNull(sources, "sources");
            return this;
        }

        /** Shortcut: keeps the switches, sets the disabled tools. */
        public Builder disabledTools(List<String> names) {
            this.sources = new Sources(sources.builtinEnabled(), sources.customEnabled(), sources.mcpEnabled(), names);
            return this;
        }

        public Builder group(Group group) {
            this.groups.add(Objects.requireNonNull(group, "group"));
            return this;
        }

        public Builder security(Security security) {
            this.security = Objects.requireNonNull(security, "security");
            return this;
        }

        /** The global layer. */
        public Builder tools(Rules rules) {
            this.tools = Objects.requireNonNull(rules, "rules");
            return this;
        }

        public Builder allow(List<String> allow) {
            tools = new Rules(allow, tools.alsoAllow(), tools.deny(), tools.profile(), tools.alsoAllowGiven());
            return this;
        }

        public Builder alsoAllow(List<String> alsoAllow) {
            tools = new Rules(tools.allow(), alsoAllow, tools.deny(), tools.profile(), alsoAllow != null);
            return this;
        }

        public Builder deny(List<String> deny) {
            tools = new Rules(tools.allow(), tools.alsoAllow(), deny, tools.profile(), tools.alsoAllowGiven());
            return this;
        }

        public Builder profile(String profile) {
            tools = new Rules(tools.allow(), tools.alsoAllow(), tools.deny(), profile, tools.alsoAllowGiven());
            return this;
        }

        public Builder defineProfile(String name, Rules rules) {
            profiles.put(Objects.requireNonNull(name, "name"), rules);
            return this;
        }

        public Builder byProvider(String key, Rules rules) {
            byProvider.put(Objects.requireNonNull(key, "key"), rules);
            return this;
        }

        public Builder agent(String id, AgentRules rules) {
            agents.put(Objects.requireNonNull(id, "id"), rules);
            return this;
        }

        public Builder agent(String id, Rules rules) {
            return agent(id, new AgentRules(rules, Map.of()));
        }

        public Builder search(Search search) {
            this.search = Objects.requireNonNull(search, "search");
            return this;
        }

        public PolicyConfig build() {
            return new PolicyConfig(mode, sources, groups, security, tools, profiles, byProvider, agents, search);
        }
    }
}
