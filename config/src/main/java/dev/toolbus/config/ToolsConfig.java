package dev.toolbus.config;

import dev.toolbus.policy.PolicyConfig;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code tools} section: the allow/deny layers, profiles, per-provider and per-agent rules and tool search.
 * Immutable; built with {@link #builder()}, which starts from the defaults (everything allowed).
 */
public final class ToolsConfig {

    /** Everything allowed, no profiles, the default search. */
    public static final ToolsConfig DEFAULTS = builder().build();

    private final List<String> allow;
    private final List<String> alsoAllow;
    private final List<String> deny;
    private final String profile;
    private final Map<String, PolicyConfig.Rules> profiles;
    private final Map<String, PolicyConfig.Rules> byProvider;
    private final Map<String, PolicyConfig.AgentRules> agents;
    private final PolicyConfig.Search search;

    private ToolsConfig(Builder b) {
        List<String> allow = b.allow;
        List<String> alsoAllow = b.alsoAllow;
        List<String> deny = b.deny;
        String profile = b.profile;
        Map<String, PolicyConfig.Rules> profiles = b.profiles;
        Map<String, PolicyConfig.Rules> byProvider = b.byProvider;
        Map<String, PolicyConfig.AgentRules> agents = b.agents;
        PolicyConfig.Search search = b.search;
        allow = List.copyOf(allow);
        alsoAllow = List.copyOf(alsoAllow);
        deny = List.copyOf(deny);
        profiles = Map.copyOf(profiles);
        byProvider = Map.copyOf(byProvider);
        agents = Map.copyOf(agents);
        Objects.requireNonNull(search, "search");
        this.allow = allow;
        this.alsoAllow = alsoAllow;
        this.deny = deny;
        this.profile = profile;
        this.profiles = profiles;
        this.byProvider = byProvider;
        this.agents = agents;
        this.search = search;
    }

    /** Starts a builder from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this section's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.allow = allow;
        b.alsoAllow = alsoAllow;
        b.deny = deny;
        b.profile = profile;
        b.profiles = profiles;
        b.byProvider = byProvider;
        b.agents = agents;
        b.search = search;
        return b;
    }

    /** The global allow list (empty: everything). */
    public List<String> allow() {
        return allow;
    }

    /** Added to allow lists; enables optional tools. */
    public List<String> alsoAllow() {
        return alsoAllow;
    }

    /** The global deny list, always wins. */
    public List<String> deny() {
        return deny;
    }

    /** The global profile, or {@code null}. */
    public String profile() {
        return profile;
    }

    /** The named profiles. */
    public Map<String, PolicyConfig.Rules> profiles() {
        return profiles;
    }

    /** Layers by {@code provider/model} or {@code provider}. */
    public Map<String, PolicyConfig.Rules> byProvider() {
        return byProvider;
    }

    /** Layers by agent id. */
    public Map<String, PolicyConfig.AgentRules> agents() {
        return agents;
    }

    /** {@code tool_search} and discovery of deferred tools. */
    public PolicyConfig.Search search() {
        return search;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ToolsConfig e && allow.equals(e.allow) && alsoAllow.equals(e.alsoAllow)
                && deny.equals(e.deny) && Objects.equals(profile, e.profile) && profiles.equals(e.profiles)
                && byProvider.equals(e.byProvider) && agents.equals(e.agents) && search.equals(e.search);
    }

    @Override
    public int hashCode() {
        return Objects.hash(allow, alsoAllow, deny, profile, profiles, byProvider, agents, search);
    }

    @Override
    public String toString() {
        return "ToolsConfig[allow=" + allow + ", alsoAllow=" + alsoAllow + ", deny=" + deny + ", profile=" + profile
                + ", profiles=" + profiles + ", byProvider=" + byProvider + ", agents=" + agents + ", search="
                + search + "]";
    }

    /**
     * Builder of {@link ToolsConfig}, starting from the defaults.
     */
    public static final class Builder {
        private List<String> allow = List.of();
        private List<String> alsoAllow = List.of();
        private List<String> deny = List.of();
        private String profile;
        private Map<String, PolicyConfig.Rules> profiles = Map.of();
        private Map<String, PolicyConfig.Rules> byProvider = Map.of();
        private Map<String, PolicyConfig.AgentRules> agents = Map.of();
        private PolicyConfig.Search search = PolicyConfig.Search.DEFAULTS;

        private Builder() {
        }

        /** The global allow list (empty: everything). */
        public Builder allow(List<String> allow) {
            this.allow = allow;
            return this;
        }

        /** Added to allow lists; enables optional tools. */
        public Builder alsoAllow(List<String> alsoAllow) {
            this.alsoAllow = alsoAllow;
            return this;
        }

        /** The global deny list, always wins. */
        public Builder deny(List<String> deny) {
            this.deny = deny;
            return this;
        }

        /** The global profile, or {@code null}. */
        public Builder profile(String profile) {
            this.profile = profile;
            return this;
        }

        /** The named profiles. */
        public Builder profiles(Map<String, PolicyConfig.Rules> profiles) {
            this.profiles = profiles;
            return this;
        }

        /** Layers by {@code provider/model} or {@code provider}. */
        public Builder byProvider(Map<String, PolicyConfig.Rules> byProvider) {
            this.byProvider = byProvider;
            return this;
        }

        /** Layers by agent id. */
        public Builder agents(Map<String, PolicyConfig.AgentRules> agents) {
            this.agents = agents;
            return this;
        }

        /** {@code tool_search} and discovery of deferred tools. */
        public Builder search(PolicyConfig.Search search) {
            this.search = search;
            return this;
        }

        /**
         * The section.
         *
         * @throws NullPointerException when a list, a map or {@code search} is {@code null}
         */
        public ToolsConfig build() {
            return new ToolsConfig(this);
        }
    }
}
