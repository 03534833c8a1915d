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
            m.forEach((k, v) -> out.putIfAbsent(lowerKeys ? k.strip()
                    .toLowerCase(Locale.ROOT) : k, Objects.requireNonNull(v)));
        }
        return Collections.unmodifiableMap(out);
    }

    private static List<String> list(List<String> l) {
        return l == null ? List.of() : List.copyOf(l);
    }

    /**
     * Source switches. {@code builtin} covers core and in-process plugin tools, {@code custom} stdio
     * plugins, {@code mcp} MCP servers; {@link #disabledTools()} is the union of every source's
     * {@code disabledTools}: disabled everywhere. Immutable; built with {@link #builder()}.
     */
    public static final class Sources {
        /** Every source on, nothing disabled. */
        public static final Sources DEFAULTS = builder().build();

        private final boolean builtinEnabled;
        private final boolean customEnabled;
        private final boolean mcpEnabled;
        private final List<String> disabledTools;

        private Sources(Builder b) {
            this.builtinEnabled = b.builtinEnabled;
            this.customEnabled = b.customEnabled;
            this.mcpEnabled = b.mcpEnabled;
            this.disabledTools = list(b.disabledTools);
        }

        /** Starts a builder: every source on, nothing disabled. */
        public static Builder builder() {
            return new Builder();
        }

        /** A builder initialised from these switches. */
        public Builder toBuilder() {
            return new Builder().builtinEnabled(builtinEnabled).customEnabled(customEnabled).mcpEnabled(mcpEnabled)
                    .disabledTools(disabledTools);
        }

        /** Whether core and Java plugin tools are on. */
        public boolean builtinEnabled() {
            return builtinEnabled;
        }

        /** Whether stdio plugin tools are on. */
        public boolean customEnabled() {
            return customEnabled;
        }

        /** Whether MCP tools are on. */
        public boolean mcpEnabled() {
            return mcpEnabled;
        }

        /** Tools disabled everywhere (patterns). */
        public List<String> disabledTools() {
            return disabledTools;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Sources x && builtinEnabled == x.builtinEnabled && customEnabled == x.customEnabled
                    && mcpEnabled == x.mcpEnabled && disabledTools.equals(x.disabledTools);
        }

        @Override
        public int hashCode() {
            return Objects.hash(builtinEnabled, customEnabled, mcpEnabled, disabledTools);
        }

        @Override
        public String toString() {
            return "Sources[builtinEnabled=" + builtinEnabled + ", customEnabled=" + customEnabled + ", mcpEnabled="
                    + mcpEnabled + ", disabledTools=" + disabledTools + "]";
        }

        /** Builder of {@link Sources}. */
        public static final class Builder {
            private boolean builtinEnabled = true;
            private boolean customEnabled = true;
            private boolean mcpEnabled = true;
            private List<String> disabledTools = List.of();

            private Builder() {
            }

            /** Core and Java plugin tools (default on). */
            public Builder builtinEnabled(boolean v) {
                builtinEnabled = v;
                return this;
            }

            /** Stdio plugin tools (default on). */
            public Builder customEnabled(boolean v) {
                customEnabled = v;
                return this;
            }

            /** MCP tools (default on). */
            public Builder mcpEnabled(boolean v) {
                mcpEnabled = v;
                return this;
            }

            /** Tools disabled everywhere ({@code null}: none). */
            public Builder disabledTools(List<String> v) {
                disabledTools = v;
                return this;
            }

            /** The switches. */
            public Sources build() {
                return new Sources(this);
            }
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
     * One allow/deny layer: {@link #allow()} (empty allows everything), {@link #alsoAllow()} (added to
     * {@code allow}; with an empty {@code allow} it means everything plus these), {@link #deny()} (always
     * wins) and the {@link #profile()} it selects. Immutable; built with {@link #builder()}.
     */
    public static final class Rules {
        /** No rule: everything allowed, no profile. */
        public static final Rules NONE = builder().build();

        private final List<String> allow;
        private final List<String> alsoAllow;
        private final List<String> deny;
        private final String profile;
        private final boolean alsoAllowGiven;

        private Rules(Builder b) {
            this.allow = list(b.allow);
            this.alsoAllow = list(b.alsoAllow);
            this.deny = list(b.deny);
            this.profile = b.profile == null || b.profile.isBlank() ? null : b.profile.strip();
            this.alsoAllowGiven = b.alsoAllowGiven || !this.alsoAllow.isEmpty();
        }

        /** Starts a builder: everything allowed, nothing denied, no profile. */
        public static Builder builder() {
            return new Builder();
        }

        /** An allow/deny pair. */
        public static Rules of(List<String> allow, List<String> deny) {
            return builder().allow(allow).deny(deny).build();
        }

        /** A builder initialised from this layer. */
        public Builder toBuilder() {
            return new Builder().allow(allow).alsoAllow(alsoAllow).deny(deny).profile(profile)
                    .alsoAllowGiven(alsoAllowGiven);
        }

        /** Patterns allowed; empty allows everything. */
        public List<String> allow() {
            return allow;
        }

        /** Patterns added to {@code allow}. */
        public List<String> alsoAllow() {
            return alsoAllow;
        }

        /** Patterns denied; always wins. */
        public List<String> deny() {
            return deny;
        }

        /** The profile this layer selects ({@code null} for none; ignored inside a profile). */
        public String profile() {
            return profile;
        }

        /**
         * Whether {@code alsoAllow} was written, even as {@code []}: a written list replaces the one a more
         * general layer would hand down to the profile layers (so {@code alsoAllow: []} at an agent cancels
         * the global {@code tools.alsoAllow} there); an unwritten one inherits it.
         */
        public boolean alsoAllowGiven() {
            return alsoAllowGiven;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Rules r && allow.equals(r.allow) && alsoAllow.equals(r.alsoAllow) && deny.equals(r.deny)
                    && Objects.equals(profile, r.profile) && alsoAllowGiven == r.alsoAllowGiven;
        }

        @Override
        public int hashCode() {
            return Objects.hash(allow, alsoAllow, deny, profile, alsoAllowGiven);
        }

        @Override
        public String toString() {
            return "Rules[allow=" + allow + ", alsoAllow=" + alsoAllow + ", deny=" + deny + ", profile=" + profile
                    + ", alsoAllowGiven=" + alsoAllowGiven + "]";
        }

        /** Builder of {@link Rules}; a {@code null} list is empty. */
        public static final class Builder {
            private List<String> allow;
            private List<String> alsoAllow;
            private List<String> deny;
            private String profile;
            private boolean alsoAllowGiven;

            private Builder() {
            }

            /** Patterns allowed; empty allows everything. */
            public Builder allow(List<String> v) {
                allow = v;
                return this;
            }

            /** Patterns added to {@code allow} (a non-empty list counts as written). */
            public Builder alsoAllow(List<String> v) {
                alsoAllow = v;
                return this;
            }

            /** Patterns denied. */
            public Builder deny(List<String> v) {
                deny = v;
                return this;
            }

            /** The profile this layer selects ({@code null} or blank: none). */
            public Builder profile(String v) {
                profile = v;
                return this;
            }

            /** Whether {@code alsoAllow} was written even when empty (see {@link Rules#alsoAllowGiven()}). */
            public Builder alsoAllowGiven(boolean v) {
                alsoAllowGiven = v;
                return this;
            }

            /** The layer. */
            public Rules build() {
                return new Rules(this);
            }
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
            this.sources = sources.toBuilder().disabledTools(names).build();
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
            tools = tools.toBuilder().allow(allow).build();
            return this;
        }

        public Builder alsoAllow(List<String> alsoAllow) {
            tools = tools.toBuilder().alsoAllow(alsoAllow).alsoAllowGiven(alsoAllow != null).build();
            return this;
        }

        public Builder deny(List<String> deny) {
            tools = tools.toBuilder().deny(deny).build();
            return this;
        }

        public Builder profile(String profile) {
            tools = tools.toBuilder().profile(profile).build();
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
