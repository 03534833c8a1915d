package dev.toolbus.config;

import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.limits.Limits;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.policy.SourceMode;
import dev.toolbus.rules.RuleSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The whole {@code toolbus.yaml}, immutable and already validated: every value is in range.
 * {@link ConfigLoader#load} builds it from the file (lenient: a bad value falls back with a warning);
 * {@link #builder()} builds it in code (strict: each section's builder throws on a bad value) and starts from
 * {@link #defaults()}, the config of an empty file. Each section is a type of its own, next to the reader of its
 * keys ({@code BusConfig} and {@code BusSection}, …); docs/configuration.md lists every key and default.
 * <pre>{@code
 * Config config = Config.builder()
 *         .bus(BusConfig.builder("redis").url("redis://10.0.0.5:6379").build())
 *         .gateway(GatewayConfig.builder().port(9000).token(System.getenv("TOOLBUS_TOKEN")).build())
 *         .build();
 * }</pre>
 */
public final class Config {

    /** The approval settings of an empty file: the default dangerous tools ask. */
    private static final ApprovalSettings DEFAULT_APPROVAL = ApprovalSettings.builder()
            .dangerousTools(PolicyConfig.Security.DEFAULTS.dangerousTools()).build();

    private final SourceMode mode;
    private final SourcesConfig sources;
    private final List<PolicyConfig.Group> groups;
    private final PolicyConfig.Security security;
    private final ToolsConfig tools;
    private final ExecutionSettings execution;
    private final BusConfig bus;
    private final GatewayConfig gateway;
    private final DocumentsConfig documents;
    private final ApprovalSettings approval;
    private final DispatchConfig dispatch;
    private final Limits limits;
    private final PluginsConfig plugins;
    private final RuleSet rules;

    private Config(Builder b) {
        SourceMode mode = b.mode;
        SourcesConfig sources = b.sources;
        List<PolicyConfig.Group> groups = b.groups;
        PolicyConfig.Security security = b.security;
        ToolsConfig tools = b.tools;
        ExecutionSettings execution = b.execution;
        BusConfig bus = b.bus;
        GatewayConfig gateway = b.gateway;
        DocumentsConfig documents = b.documents;
        ApprovalSettings approval = b.approval;
        DispatchConfig dispatch = b.dispatch;
        Limits limits = b.limits;
        PluginsConfig plugins = b.plugins;
        RuleSet rules = b.rules;
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(sources, "sources");
        groups = List.copyOf(groups);
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(tools, "tools");
        Objects.requireNonNull(execution, "execution");
        Objects.requireNonNull(bus, "bus");
        Objects.requireNonNull(gateway, "gateway");
        Objects.requireNonNull(documents, "documents");
        Objects.requireNonNull(approval, "approval");
        dispatch = dispatch == null ? DispatchConfig.DEFAULTS : dispatch;
        limits = limits == null ? Limits.NONE : limits;
        plugins = plugins == null ? PluginsConfig.NONE : plugins;
        rules = rules == null ? RuleSet.NONE : rules;
        this.mode = mode;
        this.sources = sources;
        this.groups = groups;
        this.security = security;
        this.tools = tools;
        this.execution = execution;
        this.bus = bus;
        this.gateway = gateway;
        this.documents = documents;
        this.approval = approval;
        this.dispatch = dispatch;
        this.limits = limits;
        this.plugins = plugins;
        this.rules = rules;
    }

    /** Starts a builder from the defaults (the config of an empty file). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this config's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.mode = mode;
        b.sources = sources;
        b.groups = groups;
        b.security = security;
        b.tools = tools;
        b.execution = execution;
        b.bus = bus;
        b.gateway = gateway;
        b.documents = documents;
        b.approval = approval;
        b.dispatch = dispatch;
        b.limits = limits;
        b.plugins = plugins;
        b.rules = rules;
        return b;
    }

    /** The config of an empty file. */
    public static Config defaults() {
        return builder().build();
    }

    /** hybrid, skills-only or mcp-only. */
    public SourceMode mode() {
        return mode;
    }

    /** The tool sources: switches, disabled tools, plugin directories, MCP servers file. */
    public SourcesConfig sources() {
        return sources;
    }

    /** The named tool groups. */
    public List<PolicyConfig.Group> groups() {
        return groups;
    }

    /** The dangerous tools. */
    public PolicyConfig.Security security() {
        return security;
    }

    /** The allow/deny layers, profiles, per-provider and per-agent rules, tool search. */
    public ToolsConfig tools() {
        return tools;
    }

    /** The executor settings. */
    public ExecutionSettings execution() {
        return execution;
    }

    /** Which bus carries turns. */
    public BusConfig bus() {
        return bus;
    }

    /** The WebSocket/HTTP gateway. */
    public GatewayConfig gateway() {
        return gateway;
    }

    /** The skill documents. */
    public DocumentsConfig documents() {
        return documents;
    }

    /** The approval step (applies live on reload). */
    public ApprovalSettings approval() {
        return approval;
    }

    /** Tool dispatch by a small model (ChatAI's {@code dispatch}; off by default). */
    public DispatchConfig dispatch() {
        return dispatch;
    }

    /** The rate, concurrency and per-turn limits (applies live on reload). */
    public Limits limits() {
        return limits;
    }

    /** The per-plugin configuration ({@code plugins.<id>.config}; applies live on reload). */
    public PluginsConfig plugins() {
        return plugins;
    }

    /**
     * The rules over the call ({@code rules}), compiled; applies live on reload. A section that does not compile
     * is a policy error ({@link ConfigLoader.Loaded#policyErrors()}) and is held here as one rule that denies
     * every call, so a config used despite its errors fails closed.
     */
    public RuleSet rules() {
        return rules;
    }

    /** This config with other approval settings. */
    public Config withApproval(ApprovalSettings next) {
        return toBuilder().approval(next).build();
    }

    /** This config with other limits. */
    public Config withLimits(Limits next) {
        return toBuilder().limits(next).build();
    }

    /** This config with other rules. */
    public Config withRules(RuleSet next) {
        return toBuilder().rules(next).build();
    }

    /** The policy part: mode, source switches, the union of every source's disabledTools, groups, security, tools. */
    public PolicyConfig policy() {
        List<String> disabled = new ArrayList<>(sources.builtin().disabledTools());
        for (String s : sources.custom().disabledTools()) {
            if (!disabled.contains(s)) {
                disabled.add(s);
            }
        }
        for (String s : sources.mcp().disabledTools()) {
            if (!disabled.contains(s)) {
                disabled.add(s);
            }
        }
        return new PolicyConfig(mode,
                PolicyConfig.Sources.builder().builtinEnabled(sources.builtin().enabled())
                        .customEnabled(sources.custom().enabled()).mcpEnabled(sources.mcp().enabled())
                        .disabledTools(disabled).build(),
                groups, security, PolicyConfig.Rules.builder().allow(tools.allow()).alsoAllow(tools.alsoAllow())
                        .deny(tools.deny()).profile(tools.profile()).build(),
                tools.profiles(), tools.byProvider(), tools.agents(), tools.search());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Config e && mode.equals(e.mode) && sources.equals(e.sources) && groups.equals(e.groups)
                && security.equals(e.security) && tools.equals(e.tools) && execution.equals(e.execution)
                && bus.equals(e.bus) && gateway.equals(e.gateway) && documents.equals(e.documents)
                && approval.equals(e.approval) && dispatch.equals(e.dispatch) && limits.equals(e.limits)
                && plugins.equals(e.plugins) && rules.equals(e.rules);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, sources, groups, security, tools, execution, bus, gateway, documents, approval,
                dispatch, limits, plugins, rules);
    }

    @Override
    public String toString() {
        return "Config[mode=" + mode + ", sources=" + sources + ", groups=" + groups + ", security=" + security
                + ", tools=" + tools + ", execution=" + execution + ", bus=" + bus + ", gateway=" + gateway
                + ", documents=" + documents + ", approval=" + approval + ", dispatch=" + dispatch + ", limits="
                + limits + ", plugins=" + plugins + ", rules=" + rules + "]";
    }

    /**
     * Builder of {@link Config}, starting from the defaults: set the sections that differ.
     */
    public static final class Builder {
        private SourceMode mode = SourceMode.HYBRID;
        private SourcesConfig sources = SourcesConfig.DEFAULTS;
        private List<PolicyConfig.Group> groups = List.of();
        private PolicyConfig.Security security = PolicyConfig.Security.DEFAULTS;
        private ToolsConfig tools = ToolsConfig.DEFAULTS;
        private ExecutionSettings execution = ExecutionSettings.defaults();
        private BusConfig bus = BusConfig.defaults("in-memory");
        private GatewayConfig gateway = GatewayConfig.DEFAULTS;
        private DocumentsConfig documents = DocumentsConfig.DEFAULTS;
        private ApprovalSettings approval = DEFAULT_APPROVAL;
        private DispatchConfig dispatch = DispatchConfig.DEFAULTS;
        private Limits limits = Limits.NONE;
        private PluginsConfig plugins = PluginsConfig.NONE;
        private RuleSet rules = RuleSet.NONE;

        private Builder() {
        }

        /** hybrid, skills-only or mcp-only. */
        public Builder mode(SourceMode mode) {
            this.mode = mode;
            return this;
        }

        /** The tool sources: switches, disabled tools, plugin directories, MCP servers file. */
        public Builder sources(SourcesConfig sources) {
            this.sources = sources;
            return this;
        }

        /** The named tool groups. */
        public Builder groups(List<PolicyConfig.Group> groups) {
            this.groups = groups;
            return this;
        }

        /** The dangerous tools. */
        public Builder security(PolicyConfig.Security security) {
            this.security = security;
            return this;
        }

        /** The allow/deny layers, profiles, per-provider and per-agent rules, tool search. */
        public Builder tools(ToolsConfig tools) {
            this.tools = tools;
            return this;
        }

        /** The executor settings. */
        public Builder execution(ExecutionSettings execution) {
            this.execution = execution;
            return this;
        }

        /** Which bus carries turns. */
        public Builder bus(BusConfig bus) {
            this.bus = bus;
            return this;
        }

        /** The WebSocket/HTTP gateway. */
        public Builder gateway(GatewayConfig gateway) {
            this.gateway = gateway;
            return this;
        }

        /** The skill documents. */
        public Builder documents(DocumentsConfig documents) {
            this.documents = documents;
            return this;
        }

        /** The approval step (applies live on reload). */
        public Builder approval(ApprovalSettings approval) {
            this.approval = approval;
            return this;
        }

        /** Tool dispatch by a small model ({@code null}: off). */
        public Builder dispatch(DispatchConfig dispatch) {
            this.dispatch = dispatch;
            return this;
        }

        /** The rate, concurrency and per-turn limits ({@code null}: none). */
        public Builder limits(Limits limits) {
            this.limits = limits;
            return this;
        }

        /** The per-plugin configuration ({@code null}: none). */
        public Builder plugins(PluginsConfig plugins) {
            this.plugins = plugins;
            return this;
        }

        /** The rules over the call ({@code null}: none). */
        public Builder rules(RuleSet rules) {
            this.rules = rules;
            return this;
        }

        /**
         * The config.
         *
         * @throws NullPointerException when a section is {@code null} (dispatch, limits, plugins and rules:
         *     {@code null} means none)
         */
        public Config build() {
            return new Config(this);
        }
    }
}
