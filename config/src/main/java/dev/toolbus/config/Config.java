package dev.toolbus.config;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.policy.PermissionLevel;
import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.policy.SourceMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The whole {@code toolbus.yaml}, immutable and already validated: every value is in range.
 * {@link ConfigLoader#load} builds it; {@link #defaults()} is the config of an empty file.
 *
 * @param mode hybrid, skills-only or mcp-only
 * @param sources tool sources: switches, disabled tools, plugin directories, MCP servers file
 * @param groups named tool groups
 * @param security dangerous tools
 * @param tools allow/deny layers, profiles, per-provider and per-agent rules, tool search
 * @param execution executor settings
 * @param bus which bus carries turns
 * @param gateway the WebSocket/HTTP gateway
 * @param documents skill documents
 * @param approval the approval step (applies live on reload)
 * @param dispatch tool dispatch by a small model (ChatAI's {@code dispatch}; off by default)
 * @param limits rate, concurrency and per-turn limits (applies live on reload)
 * @param plugins per-plugin configuration ({@code plugins.<id>.config}; applies live on reload)
 * @param rules rules over the call ({@code rules}), compiled; applies live on reload. A section that
 *     does not compile is a policy error ({@link ConfigLoader.Loaded#policyErrors()}) and is held here
 *     as one rule that denies every call, so a config used despite its errors fails closed
 */
public record Config(
        SourceMode mode,
        Sources sources,
        List<PolicyConfig.Group> groups,
        PolicyConfig.Security security,
        Tools tools,
        ExecutionSettings execution,
        Bus bus,
        Gateway gateway,
        Documents documents,
        ApprovalSettings approval,
        Dispatch dispatch,
        dev.toolbus.executor.limits.Limits limits,
        Plugins plugins,
        dev.toolbus.rules.RuleSet rules) {

    public Config {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(sources, "sources");
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(tools, "tools");
        Objects.requireNonNull(execution, "execution");
        Objects.requireNonNull(bus, "bus");
        Objects.requireNonNull(gateway, "gateway");
        Objects.requireNonNull(documents, "documents");
        Objects.requireNonNull(approval, "approval");
        dispatch = dispatch == null ? Dispatch.DEFAULTS : dispatch;
        limits = limits == null ? dev.toolbus.executor.limits.Limits.NONE : limits;
        plugins = plugins == null ? Plugins.NONE : plugins;
        rules = rules == null ? dev.toolbus.rules.RuleSet.NONE : rules;
        groups = List.copyOf(groups);
    }

    /** A config without rules. */
    public Config(SourceMode mode, Sources sources, List<PolicyConfig.Group> groups, PolicyConfig.Security security,
                  Tools tools, ExecutionSettings execution, Bus bus, Gateway gateway, Documents documents,
                  ApprovalSettings approval, Dispatch dispatch, dev.toolbus.executor.limits.Limits limits, Plugins plugins) {
        this(mode, sources, groups, security, tools, execution, bus, gateway, documents, approval, dispatch, limits,
                plugins, dev.toolbus.rules.RuleSet.NONE);
    }

    /** A config without limits and a {@code plugins} section (the components before they were added). */
    public Config(SourceMode mode, Sources sources, List<PolicyConfig.Group> groups, PolicyConfig.Security security,
                  Tools tools, ExecutionSettings execution, Bus bus, Gateway gateway, Documents documents,
                  ApprovalSettings approval, Dispatch dispatch) {
        this(mode, sources, groups, security, tools, execution, bus, gateway, documents, approval, dispatch, null,
                Plugins.NONE);
    }

    /** A config without a {@code plugins} section. */
    public Config(SourceMode mode, Sources sources, List<PolicyConfig.Group> groups, PolicyConfig.Security security,
                  Tools tools, ExecutionSettings execution, Bus bus, Gateway gateway, Documents documents,
                  ApprovalSettings approval, Dispatch dispatch, dev.toolbus.executor.limits.Limits limits) {
        this(mode, sources, groups, security, tools, execution, bus, gateway, documents, approval, dispatch, limits,
                Plugins.NONE);
    }

    /** A config without limits. */
    public Config(SourceMode mode, Sources sources, List<PolicyConfig.Group> groups, PolicyConfig.Security security,
                  Tools tools, ExecutionSettings execution, Bus bus, Gateway gateway, Documents documents,
                  ApprovalSettings approval, Dispatch dispatch, Plugins plugins) {
        this(mode, sources, groups, security, tools, execution, bus, gateway, documents, approval, dispatch, null,
                plugins);
    }

    /**
     * The {@code plugins} section: each plugin's configuration by plugin id. A plugin given one here
     * gets it instead of its own {@code plugin.json} {@code config}.
     *
     * @param configs plugin id to its config (YAML values: mappings, lists, scalars), deeply unmodifiable
     */
    public record Plugins(Map<String, Map<String, Object>> configs) {
        public static final Plugins NONE = new Plugins(Map.of());

        @SuppressWarnings("unchecked")
        public Plugins {
            Map<String, Map<String, Object>> copy = new java.util.LinkedHashMap<>();
            configs.forEach((id, c) -> copy.put(Objects.requireNonNull(id, "plugin id"),
                    (Map<String, Object>) PluginsSection.freeze(Objects.requireNonNull(c, "config"))));
            configs = java.util.Collections.unmodifiableMap(copy);
        }

        /** The config of a plugin, or {@code null} when this section gives it none. */
        public Map<String, Object> config(String pluginId) {
            return configs.get(pluginId);
        }
    }

    /** The config of an empty file. */
    public static Config defaults() {
        return new Config(SourceMode.HYBRID, Sources.DEFAULTS, List.of(), PolicyConfig.Security.DEFAULTS,
                Tools.DEFAULTS, ExecutionSettings.defaults(), Bus.defaults("in-memory"), Gateway.DEFAULTS,
                Documents.DEFAULTS, ApprovalSettings.builder()
                        .dangerousTools(PolicyConfig.Security.DEFAULTS.dangerousTools()).build(), Dispatch.DEFAULTS);
    }

    /** This config with other approval settings. */
    public Config withApproval(ApprovalSettings next) {
        return new Config(mode, sources, groups, security, tools, execution, bus, gateway, documents, next, dispatch,
                limits, plugins, rules);
    }

    /** This config with other limits. */
    public Config withLimits(dev.toolbus.executor.limits.Limits next) {
        return new Config(mode, sources, groups, security, tools, execution, bus, gateway, documents, approval, dispatch,
                next, plugins, rules);
    }

    /** This config with other rules. */
    public Config withRules(dev.toolbus.rules.RuleSet next) {
        return new Config(mode, sources, groups, security, tools, execution, bus, gateway, documents, approval, dispatch,
                limits, plugins, next);
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

    /**
     * Tool sources.
     *
     * @param builtin core and in-process Java plugin tools
     * @param custom stdio plugins
     * @param mcp MCP servers
     */
    public record Sources(Builtin builtin, Custom custom, Mcp mcp) {
        public static final Sources DEFAULTS = new Sources(Builtin.DEFAULTS, Custom.DEFAULTS, Mcp.DEFAULTS);
    }

    /**
     * @param enabled whether core and Java plugin tools are offered
     * @param disabledTools tools disabled everywhere
     */
    public record Builtin(boolean enabled, List<String> disabledTools) {
        public static final Builtin DEFAULTS = new Builtin(true, List.of());

        public Builtin {
            disabledTools = List.copyOf(disabledTools);
        }
    }

    /**
     * @param enabled whether stdio plugin tools are offered
     * @param pluginDirs directories of stdio plugins (read by the stdio plugin source)
     * @param autoReload whether plugin directories are watched (for the stdio plugin source)
     * @param disabledTools tools disabled everywhere
     */
    public record Custom(boolean enabled, List<String> pluginDirs, boolean autoReload, List<String> disabledTools) {
        public static final Custom DEFAULTS = new Custom(true, List.of("plugins"), true, List.of());

        public Custom {
            pluginDirs = List.copyOf(pluginDirs);
            disabledTools = List.copyOf(disabledTools);
        }
    }

    /**
     * @param enabled whether MCP tools are offered
     * @param serversFile the MCP servers file (read by the MCP source)
     * @param servers servers to start (empty: all in the file)
     * @param disabledServers servers not to start
     * @param disabledTools tools disabled everywhere
     */
    public record Mcp(boolean enabled, String serversFile, List<String> servers, List<String> disabledServers,
                      List<String> disabledTools) {
        public static final Mcp DEFAULTS = new Mcp(true, "mcp-servers.json", List.of(), List.of(), List.of());

        public Mcp {
            Objects.requireNonNull(serversFile, "serversFile");
            servers = List.copyOf(servers);
            disabledServers = List.copyOf(disabledServers);
            disabledTools = List.copyOf(disabledTools);
        }
    }

    /**
     * The allow/deny layers.
     *
     * @param allow global allow list (empty: everything)
     * @param alsoAllow added to allow lists; enables optional tools
     * @param deny global deny list, always wins
     * @param profile the global profile, or {@code null}
     * @param profiles named profiles
     * @param byProvider layers by {@code provider/model} or {@code provider}
     * @param agents layers by agent id
     * @param search {@code tool_search} and discovery of deferred tools
     */
    public record Tools(List<String> allow, List<String> alsoAllow, List<String> deny, String profile,
                        Map<String, PolicyConfig.Rules> profiles, Map<String, PolicyConfig.Rules> byProvider,
                        Map<String, PolicyConfig.AgentRules> agents, PolicyConfig.Search search) {
        public static final Tools DEFAULTS = new Tools(List.of(), List.of(), List.of(), null, Map.of(), Map.of(),
                Map.of(), PolicyConfig.Search.DEFAULTS);

        public Tools {
            allow = List.copyOf(allow);
            alsoAllow = List.copyOf(alsoAllow);
            deny = List.copyOf(deny);
            profiles = Map.copyOf(profiles);
            byProvider = Map.copyOf(byProvider);
            agents = Map.copyOf(agents);
            Objects.requireNonNull(search, "search");
        }
    }

    /**
     * The bus. Names default by type (Redis keys use {@code :}, Kafka topics {@code .}).
     *
     * @param type in-memory, stdio, redis or kafka
     * @param url broker address (empty for in-memory and stdio)
     * @param calls the calls stream or topic
     * @param results the results stream template ({@code {stream_id}} is replaced) or topic
     * @param deadLetter where undecodable input goes
     * @param group the consumer group
     * @param consumer this instance's consumer name (empty: unique per process)
     * @param idempotency the executor's ledger of idempotent turns ({@code bus.idempotency})
     * @param kafka the Kafka bus's failover timing and client settings ({@code bus.kafka}; other buses ignore it)
     */
    public record Bus(String type, String url, String calls, String results, String deadLetter, String group,
                      String consumer, Idempotency idempotency, Kafka kafka) {
        public static final List<String> TYPES = List.of("in-memory", "stdio", "redis", "kafka");

        /** A bus with the default {@link Idempotency}. */
        public Bus(String type, String url, String calls, String results, String deadLetter, String group,
                   String consumer) {
            this(type, url, calls, results, deadLetter, group, consumer, Idempotency.DEFAULTS);
        }

        /** A bus with the default {@link Kafka} settings. */
        public Bus(String type, String url, String calls, String results, String deadLetter, String group,
                   String consumer, Idempotency idempotency) {
            this(type, url, calls, results, deadLetter, group, consumer, idempotency, Kafka.DEFAULTS);
        }

        public Bus {
            Objects.requireNonNull(type, "type");
            idempotency = Objects.requireNonNullElse(idempotency, Idempotency.DEFAULTS);
            kafka = Objects.requireNonNullElse(kafka, Kafka.DEFAULTS);
            url = Objects.requireNonNullElse(url, "");
            calls = Objects.requireNonNullElse(calls, "");
            results = Objects.requireNonNullElse(results, "");
            deadLetter = Objects.requireNonNullElse(deadLetter, "");
            group = Objects.requireNonNullElse(group, "");
            consumer = Objects.requireNonNullElse(consumer, "");
        }

        /** The defaults of a bus type. */
        public static Bus defaults(String type) {
            return switch (type) {
                case "redis" -> new Bus(type, "redis://127.0.0.1:6379", "toolbus:calls", "toolbus:results:{stream_id}",
                        "toolbus:dead", "toolbus", "");
                case "kafka" -> new Bus(type, "127.0.0.1:9092", "toolbus.calls", "toolbus.results", "toolbus.dead",
                        "toolbus", "");
                default -> new Bus(type, "", "", "", "", "", "");
            };
        }
    }

    /**
     * The Kafka bus's failover timing and kafka-clients settings ({@code bus.kafka}). How soon a dead
     * instance's partitions, with their turns, move to another is the consumer's session timeout.
     *
     * @param sessionTimeoutMs {@code session.timeout.ms} of the consumer (0: Kafka's default, 45 s)
     * @param heartbeatIntervalMs {@code heartbeat.interval.ms} (0: a third of the session timeout, at most 3 s)
     * @param consumer kafka-clients consumer settings, by their Kafka names
     * @param producer kafka-clients producer settings
     * @param admin kafka-clients admin client settings (topic creation)
     * @param turnState whether the turn state (call journal, approvals, grants, cut results) is kept in the
     *     state topic (false: in the executor's memory)
     * @param stateTopic the state topic (empty: the calls topic's name with {@code .state} for {@code .calls})
     */
    public record Kafka(long sessionTimeoutMs, long heartbeatIntervalMs, Map<String, String> consumer,
                        Map<String, String> producer, Map<String, String> admin, boolean turnState, String stateTopic) {
        /** Kafka's timing, no client settings, the turn state in its default topic. */
        public static final Kafka DEFAULTS = new Kafka(0, 0, Map.of(), Map.of(), Map.of(), true, "");

        public Kafka {
            stateTopic = Objects.requireNonNullElse(stateTopic, "");
            consumer = Collections.unmodifiableMap(new LinkedHashMap<>(consumer));
            producer = Collections.unmodifiableMap(new LinkedHashMap<>(producer));
            admin = Collections.unmodifiableMap(new LinkedHashMap<>(admin));
        }
    }

    /**
     * Idempotent turns in the executor ({@code bus.idempotency}): a turn whose {@code (stream_id, turn_id)}
     * finished within the window is answered with its recorded events marked {@code replayed}, and one
     * that arrives while the same turn runs joins it. Serves the in-memory, stdio and gateway buses and
     * Kafka at least once; Redis and Kafka exactly once keep their own records ({@code docs/buses.md}).
     *
     * @param windowMs how long a finished turn is remembered (0: off)
     * @param maxBytes estimated bytes of all records together
     * @param maxEntries the most finished turns remembered
     * @param maxRecordedBytes a turn with larger events is remembered without them (not run again, nothing replayed)
     */
    public record Idempotency(long windowMs, long maxBytes, long maxEntries, long maxRecordedBytes) {
        /** 1 h, 64 MiB, 100,000 turns, 64 KiB. */
        public static final Idempotency DEFAULTS = new Idempotency(3_600_000, 64L * 1024 * 1024, 100_000, 64 * 1024);

        /** The executor's settings. */
        public dev.toolbus.executor.state.TurnLedgerSettings settings() {
            return dev.toolbus.executor.state.TurnLedgerSettings.builder().window(java.time.Duration.ofMillis(windowMs))
                    .maxBytes(maxBytes).maxEntries(maxEntries).maxRecordedBytes(maxRecordedBytes).build();
        }
    }

    /**
     * The gateway.
     *
     * @param enabled whether {@code serve} starts it
     * @param host the bind address
     * @param port the port (0: any free port)
     * @param token the bearer token with full scope (empty: none)
     * @param maxRequestBytes the largest request body or WebSocket frame
     * @param maxOutboundEvents events buffered per connection before a slow client is disconnected
     * @param tokens scoped tokens (besides {@code token})
     * @param onExcess {@code refuse} or {@code clamp}: a context claiming a permission above its token's
     * @param maxConnections the most connections open at once
     * @param headerTimeoutMs how long a connection may take to send a request head
     * @param bodyTimeoutMs how long a request body may take to arrive
     */
    public record Gateway(boolean enabled, String host, int port, String token, long maxRequestBytes,
                          int maxOutboundEvents, List<GatewayToken> tokens, String onExcess, int maxConnections,
                          long headerTimeoutMs, long bodyTimeoutMs) {
        public static final int DEFAULT_PORT = 8765;
        public static final long DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;
        public static final int DEFAULT_MAX_OUTBOUND_EVENTS = 1024;
        public static final int DEFAULT_MAX_CONNECTIONS = 1024;
        public static final long DEFAULT_HEADER_TIMEOUT_MS = 10_000;
        public static final long DEFAULT_BODY_TIMEOUT_MS = 30_000;
        public static final List<String> ON_EXCESS = List.of("refuse", "clamp");
        public static final Gateway DEFAULTS = new Gateway(true, "127.0.0.1", DEFAULT_PORT, "",
                DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_OUTBOUND_EVENTS);

        public Gateway {
            Objects.requireNonNull(host, "host");
            token = Objects.requireNonNullElse(token, "");
            tokens = tokens == null ? List.of() : List.copyOf(tokens);
            onExcess = onExcess == null ? "refuse" : onExcess;
        }

        /** The first release's fields; no scoped tokens, default limits. */
        public Gateway(boolean enabled, String host, int port, String token, long maxRequestBytes, int maxOutboundEvents) {
            this(enabled, host, port, token, maxRequestBytes, maxOutboundEvents, List.of(), "refuse",
                    DEFAULT_MAX_CONNECTIONS, DEFAULT_HEADER_TIMEOUT_MS, DEFAULT_BODY_TIMEOUT_MS);
        }

        /** Whether the bind address is a loopback address ({@code 127.*}, {@code ::1}, {@code localhost}). */
        public boolean loopback() {
            String h = host.strip().toLowerCase(java.util.Locale.ROOT);
            return h.equals("localhost") || h.startsWith("127.") || h.equals("::1") || h.equals("[::1]");
        }

        @Override
        public String toString() {
            return "Gateway[enabled=" + enabled + ", host=" + host + ", port=" + port + ", token="
                    + (token.isEmpty() ? "none" : "***") + ", tokens=" + tokens + ", onExcess=" + onExcess
                    + ", maxRequestBytes=" + maxRequestBytes + ", maxConnections=" + maxConnections + "]";
        }

        /** Whether any token is configured ({@code token} or {@code tokens}). */
        public boolean hasTokens() {
            return !token.isEmpty() || !tokens.isEmpty();
        }

        /**
         * The tokens as the servers take them: {@code token} with full scope (named {@code gateway.token}),
         * then each of {@code tokens}; {@link AccessTokens#NONE} when there are none.
         *
         * @param tokenOverride a full-scope token that replaces {@code token} (from {@code --token}), or
         *     {@code null}
         */
        public AccessTokens accessTokens(String tokenOverride) {
            AccessTokens.Builder b = AccessTokens.builder()
                    .onExcess(AccessTokens.OnExcess.parse(onExcess) == AccessTokens.OnExcess.CLAMP
                            ? AccessTokens.OnExcess.CLAMP : AccessTokens.OnExcess.REFUSE);
            java.util.Set<String> seen = new java.util.HashSet<>();
            int n = 0;
            if (tokenOverride != null && !tokenOverride.isBlank()) {
                seen.add(tokenOverride.strip());
                b.token(tokenOverride, TokenScope.builder("--token").build());
                n++;
            } else if (!token.isEmpty() && seen.add(token.strip())) {
                b.token(token, TokenScope.builder("gateway.token").build());
                n++;
            }
            for (GatewayToken t : tokens) {
                if (!t.token().isBlank() && seen.add(t.token().strip())) {
                    b.token(t.token(), t.scope());
                    n++;
                }
            }
            return n == 0 ? AccessTokens.NONE : b.build();
        }
    }

    /**
     * One scoped token of {@code gateway.tokens}.
     *
     * @param name a label for logs and errors
     * @param token the secret (usually {@code ${ENV}}); blank entries are dropped with a warning
     * @param maxPermission the highest permission a context may claim
     * @param agents agent globs (empty: any)
     * @param channels channel globs (empty: any)
     * @param streams stream globs (empty: any)
     * @param approvalOverride {@code approval: override}: its turns may loosen approval with
     *     {@code context.approval_mode}
     */
    public record GatewayToken(String name, String token, PermissionLevel maxPermission, List<String> agents,
                               List<String> channels, List<String> streams, boolean approvalOverride) {
        public GatewayToken {
            Objects.requireNonNull(name, "name");
            token = Objects.requireNonNullElse(token, "");
            Objects.requireNonNull(maxPermission, "maxPermission");
            agents = List.copyOf(agents);
            channels = List.copyOf(channels);
            streams = List.copyOf(streams);
        }

        /** A token without the approval override. */
        public GatewayToken(String name, String token, PermissionLevel maxPermission, List<String> agents,
                            List<String> channels, List<String> streams) {
            this(name, token, maxPermission, agents, channels, streams, false);
        }

        /** The scope of this token. */
        public TokenScope scope() {
            return TokenScope.builder(name).maxPermission(maxPermission).agents(agents).channels(channels)
                    .streams(streams).approvalOverride(approvalOverride).build();
        }

        @Override
        public String toString() {
            return "GatewayToken[" + name + ", ***, " + maxPermission.wireName() + ", agents " + agents + ", channels "
                    + channels + ", streams " + streams + "]";
        }
    }

    /**
     * Skill documents ({@code SKILL.md}, {@code *.skill.yaml}, {@code *.skill.json}).
     *
     * @param enabled whether they are scanned
     * @param mode auto, all or explicit
     * @param paths directories scanned
     * @param maxDepth directory depth
     * @param maxFileBytes the largest file read
     * @param maxPromptChars the most characters injected into a prompt
     * @param fileAutoActivate whether a skill file's own {@code autoActivate: true} counts
     *     ({@code autoActivate: false} turns it off)
     * @param autoActivate skill names the config auto-activates ({@code autoActivate: [names]})
     * @param triggers per skill name, more words that activate it in {@code auto} mode
     */
    public record Documents(boolean enabled, String mode, List<String> paths, int maxDepth, long maxFileBytes,
                            int maxPromptChars, boolean fileAutoActivate, List<String> autoActivate,
                            Map<String, List<String>> triggers) {
        public static final List<String> MODES = List.of("auto", "all", "explicit");
        public static final List<String> DEFAULT_PATHS =
                List.of("data/skills", ".cursor/skills", ".claude/skills", ".codex/skills");
        public static final Documents DEFAULTS = new Documents(true, "auto", DEFAULT_PATHS, 6, 65_536, 20_000);

        public Documents {
            Objects.requireNonNull(mode, "mode");
            paths = List.copyOf(paths);
            autoActivate = autoActivate == null ? List.of() : List.copyOf(autoActivate);
            Map<String, List<String>> t = new java.util.LinkedHashMap<>();
            if (triggers != null) {
                triggers.forEach((k, v) -> t.put(k, List.copyOf(v)));
            }
            triggers = java.util.Collections.unmodifiableMap(t);
        }

        /** Files' {@code autoActivate} honoured, no configured activations or triggers. */
        public Documents(boolean enabled, String mode, List<String> paths, int maxDepth, long maxFileBytes,
                         int maxPromptChars) {
            this(enabled, mode, paths, maxDepth, maxFileBytes, maxPromptChars, true, List.of(), Map.of());
        }

        /**
         * Whether the settings read at scan time (enabled, paths, depth, sizes) differ; mode, activation
         * and triggers apply at the next {@code list_skills} without a restart.
         */
        public boolean scanDiffers(Documents o) {
            return enabled != o.enabled || !paths.equals(o.paths) || maxDepth != o.maxDepth
                    || maxFileBytes != o.maxFileBytes || maxPromptChars != o.maxPromptChars;
        }
    }

    /**
     * {@code dispatch}: a small model at an OpenAI-compatible chat-completions endpoint narrows
     * {@code list_tools} answers that carry a conversation {@code text} to the tool groups it needs.
     *
     * @param enabled off by default
     * @param useSummary offer groups by their descriptions (true) or by their tools' descriptions
     * @param maxGroups at most this many groups, 1..20
     * @param baseUrl the endpoint's base URL ({@code /chat/completions} is appended)
     * @param model the model name
     * @param apiKey sent as a bearer token; masked in the effective config, never logged
     * @param timeoutMs how long one decision may take
     * @param cacheTtlMs how long a decision is reused for the same stream and text; 0: not cached
     */
    public record Dispatch(boolean enabled, boolean useSummary, int maxGroups, String baseUrl, String model,
                           String apiKey, long timeoutMs, long cacheTtlMs) {
        public static final Dispatch DEFAULTS = new Dispatch(false, true, 3, "", "", "", 10_000, 30_000);

        public Dispatch {
            baseUrl = baseUrl == null ? "" : baseUrl.strip();
            model = model == null ? "" : model.strip();
            apiKey = apiKey == null ? "" : apiKey.strip();
        }
    }
}
