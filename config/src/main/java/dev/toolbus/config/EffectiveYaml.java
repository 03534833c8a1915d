package dev.toolbus.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.policy.PolicyConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The effective config as YAML, for {@code check-config}: every key present, secrets masked. */
final class EffectiveYaml {

    private static final YAMLMapper YAML = YAMLMapper.builder(YAMLFactory.builder()
                    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
                    .build())
            .build();

    private EffectiveYaml() {
    }

    /** The config as YAML. */
    static String of(Config c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", c.mode().wireName());
        Map<String, Object> sources = new LinkedHashMap<>();
        sources.put("builtin", map("enabled", c.sources().builtin().enabled(),
                "disabledTools", c.sources().builtin().disabledTools()));
        sources.put("custom", map("enabled", c.sources().custom().enabled(), "pluginDirs", c.sources().custom().pluginDirs(),
                "autoReload", c.sources().custom().autoReload(), "disabledTools", c.sources().custom().disabledTools()));
        sources.put("mcp", map("enabled", c.sources().mcp().enabled(), "serversFile", c.sources().mcp().serversFile(),
                "servers", c.sources().mcp().servers(), "disabledServers", c.sources().mcp().disabledServers(),
                "disabledTools", c.sources().mcp().disabledTools()));
        m.put("sources", sources);
        List<Object> groups = new ArrayList<>();
        for (PolicyConfig.Group g : c.groups()) {
            groups.add(map("name", g.name(), "description", g.description(), "tools", g.tools(), "enabled", g.enabled(),
                    "requiredPermission", g.requiredPermission()));
        }
        m.put("groups", groups);
        m.put("security", map("dangerousTools", c.security().dangerousTools(),
                "allowDangerous", c.security().allowDangerous(),
                "dangerousRequiredPermission", c.security().dangerousRequiredPermission()));
        Map<String, Object> tools = new LinkedHashMap<>(rules(PolicyConfig.Rules.builder().allow(c.tools().allow())
                .alsoAllow(c.tools().alsoAllow()).deny(c.tools().deny()).profile(c.tools().profile()).build(), true));
        Map<String, Object> profiles = new TreeMap<>();
        c.tools().profiles().forEach((k, v) -> profiles.put(k, rules(v, false)));
        tools.put("profiles", profiles);
        Map<String, Object> byProvider = new TreeMap<>();
        c.tools().byProvider().forEach((k, v) -> byProvider.put(k, rules(v, true)));
        tools.put("byProvider", byProvider);
        Map<String, Object> agents = new TreeMap<>();
        c.tools().agents().forEach((id, a) -> {
            Map<String, Object> am = new LinkedHashMap<>(rules(a.rules(), true));
            Map<String, Object> ab = new TreeMap<>();
            a.byProvider().forEach((k, v) -> ab.put(k, rules(v, true)));
            am.put("byProvider", ab);
            agents.put(id, am);
        });
        tools.put("agents", agents);
        PolicyConfig.Search s = c.tools().search();
        tools.put("search", map("requireDiscovery", s.requireDiscovery(), "discoveryTtl", s.discoveryTtl().toMillis(),
                "maxStreams", s.maxStreams(), "maxResults", s.maxResults()));
        if (!c.rules().callerOverrides().isEmpty()) {
            Map<String, Object> callers = new LinkedHashMap<>();
            c.rules().callerOverrides().forEach((k, v) -> callers.put(k,
                    v.stream().map(dev.toolbus.protocol.CallerType::wireName).toList()));
            tools.put(RulesSection.CALLERS_KEY, callers);
        }
        m.put("tools", tools);
        m.put(RulesSection.KEY, RulesSection.effective(c.rules()));
        ExecutionSettings e = c.execution();
        Map<String, Object> ex = map("timeout", e.timeout().toMillis(), "maxParallel", e.maxParallel(),
                "retryOnError", e.retryOnError(), "maxRetries", e.maxRetries(), "cacheResults", e.cacheResults(),
                "cacheTTL", e.cacheTtl().toMillis());
        ex.putAll(map("cacheMaxEntries", e.cacheMaxEntries(), "locale", e.locale().name().toLowerCase(Locale.ROOT),
                "maxMediaBytes", e.maxMediaBytes(), "maxQueuedCalls", e.maxQueuedCalls()));
        ex.putAll(map("progressIntervalMs", e.progressInterval().toMillis(), "inputTimeoutMs",
                e.inputTimeout().toMillis()));
        ex.putAll(map("cacheMaxBytes", e.cacheMaxBytes(), "cacheMaxKeyBytes", e.cacheMaxKeyBytes(),
                "cacheMaxResultBytes", e.cacheMaxResultBytes(), "maxCallsPerTurn", e.maxCallsPerTurn()));
        ex.putAll(map("maxResultChars", e.results().maxChars(), "maxResultCharsByTool",
                new LinkedHashMap<>(e.results().byTool()), "resultStoreTtlMs", e.results().storeTtl().toMillis(),
                "resultStoreMaxBytes", e.results().storeMaxBytes(), "resultStoreMaxEntries",
                e.results().storeMaxEntries()));
        ex.put("cacheTools", e.cacheTools());
        m.put("execution", ex);
        BusConfig b = c.bus();
        Map<String, Object> bus = map("type", b.type(), "url", maskUrl(b.url()), "calls", b.calls(), "results", b.results());
        bus.putAll(map("deadLetter", b.deadLetter(), "group", b.group(), "consumer", b.consumer()));
        bus.put("idempotency", IdempotencySection.effective(b.idempotency()));
        bus.put("redis", RedisSection.effective(b.redis()));
        bus.put("kafka", KafkaSection.effective(b.kafka()));
        m.put("bus", bus);
        GatewayConfig g = c.gateway();
        Map<String, Object> gw = map("enabled", g.enabled(), "host", g.host(), "port", g.port(),
                "token", g.token().isEmpty() ? "" : "***");
        gw.putAll(map("maxRequestBytes", g.maxRequestBytes(), "maxOutboundEvents", g.maxOutboundEvents()));
        List<Object> scoped = new ArrayList<>();
        for (GatewayToken t : g.tokens()) {
            Map<String, Object> entry = map("name", t.name(), "token", "***", "maxPermission", t.maxPermission().wireName(),
                    "agents", t.agents(), "channels", t.channels(), "streams", t.streams());
            if (t.approvalOverride()) {
                entry.put("approval", "override");
            }
            scoped.add(entry);
        }
        gw.putAll(map("tokens", scoped, "onExcess", g.onExcess(), "maxConnections", g.maxConnections(),
                "headerTimeout", g.headerTimeoutMs(), "bodyTimeout", g.bodyTimeoutMs()));
        gw.putAll(map("maxAnswerBytes", g.maxAnswerBytes(), "maxAnswerBytesTotal", g.maxAnswerBytesTotal()));
        m.put("gateway", gw);
        DocumentsConfig d = c.documents();
        Map<String, Object> docs = map("enabled", d.enabled(), "mode", d.mode(), "paths", d.paths(),
                "maxDepth", d.maxDepth());
        docs.putAll(map("maxFileBytes", d.maxFileBytes(), "maxPromptChars", d.maxPromptChars()));
        docs.put("autoActivate", d.autoActivate().isEmpty() ? (Object) d.fileAutoActivate() : d.autoActivate());
        docs.put("triggers", d.triggers());
        m.put("documents", docs);
        m.put(ApprovalSection.KEY, ApprovalSection.effective(c.approval()));
        m.put("dispatch", DispatchSection.effective(c.dispatch()));
        m.put(LimitsSection.KEY, LimitsSection.effective(c.limits()));
        m.put("plugins", PluginsSection.effective(c.plugins()));
        try {
            return YAML.writeValueAsString(m);
        } catch (JsonProcessingException ex2) {
            throw new IllegalStateException(ex2);
        }
    }

    private static Map<String, Object> rules(PolicyConfig.Rules r, boolean withProfile) {
        Map<String, Object> m = map("allow", r.allow());
        if (r.alsoAllowGiven()) {
            // only a written one: a printed `alsoAllow: []` would stop an agent inheriting tools.alsoAllow
            m.put("alsoAllow", r.alsoAllow());
        }
        m.put("deny", r.deny());
        if (withProfile) {
            m.put("profile", r.profile() == null ? "" : r.profile());
        }
        return m;
    }

    private static Map<String, Object> map(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1] == null ? "" : kv[i + 1]);
        }
        return m;
    }

    static String maskUrl(String url) {
        return url.replaceAll("(://[^:/@]*:)[^@/]+@", "$1***@");
    }
}
