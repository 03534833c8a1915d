package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.limits.Limits;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link ConfigLoader#fromProperties}: a {@code toolbus.yaml} with every section, its keys respelt as
 * Spring Boot properties and environment variables spell them, reads to the same {@link Config} as the
 * file, with no warning; what is not a setting is warned about as in a file.
 */
class RelaxedKeysTest {

    /** Every section and every key; names the user chooses are lower case, so respelling keeps them. */
    static final String FULL = """
            mode: hybrid
            sources:
              builtin: {enabled: true, disabledTools: [old_tool]}
              custom: {enabled: true, pluginDirs: [plugins, more-plugins], autoReload: false, disabledTools: [x1]}
              mcp: {enabled: true, serversFile: servers.json, servers: [fs], disabledServers: [off1], disabledTools: [rm]}
            groups:
              - {name: basic, description: Basics, tools: [echo, add], enabled: true}
              - {name: admin, description: Admin, tools: [wipe], requiredPermission: admin}
            security: {dangerousTools: [wipe, kick], allowDangerous: false, dangerousRequiredPermission: owner}
            tools:
              allow: []
              alsoAllow: [workflow]
              deny: [web_fetch]
              profile: full
              profiles:
                chat: {allow: ['group:basic'], deny: [add]}
              byProvider:
                openai/gpt-5.2: {deny: ['group:admin']}
              agents:
                helper: {profile: chat, byProvider: {anthropic: {deny: [echo]}}}
              search: {requireDiscovery: false, discoveryTtl: 120000, maxStreams: 500, maxResults: 7}
            execution:
              timeout: 15000
              maxParallel: 6
              retryOnError: true
              maxRetries: 3
              cacheResults: false
              cacheTTL: 5000
              cacheMaxEntries: 100
              locale: zh
              maxMediaBytes: 2000000
              maxQueuedCalls: 500
              progressIntervalMs: 50
              inputTimeoutMs: 9000
              cacheMaxBytes: 1000000
              cacheMaxKeyBytes: 2048
              cacheMaxResultBytes: 4096
              maxCallsPerTurn: 12
              maxResultChars: 3000
              maxResultCharsByTool: {web_fetch: 9000}
              resultStoreTtlMs: 60000
              resultStoreMaxBytes: 1000000
              resultStoreMaxEntries: 50
              cacheTools: [echo, 'get_*']
            bus:
              type: redis
              url: redis://127.0.0.1:6390
              calls: c:calls
              results: 'c:results:{stream_id}'
              deadLetter: c:dead
              group: g1
              consumer: c1
              idempotency: {windowMs: 1000, maxBytes: 2048, maxEntries: 10, maxRecordedBytes: 512}
            gateway:
              enabled: true
              host: 127.0.0.1
              port: 0
              token: full-secret
              maxRequestBytes: 4096
              maxOutboundEvents: 64
              tokens:
                - {name: member, token: m-secret, maxPermission: member, agents: [helper], channels: [web], streams: ['web:*']}
              onExcess: clamp
              maxConnections: 10
              headerTimeout: 2000
              bodyTimeout: 3000
            documents:
              enabled: true
              mode: explicit
              paths: [skills]
              maxDepth: 3
              maxFileBytes: 4096
              maxPromptChars: 1000
              autoActivate: [pdf]
              triggers: {pdf: [form, invoice]}
            approval:
              mode: auto
              timeoutMs: 5000
              low: ['get_*']
              medium: [echo]
              high: [wipe]
              bypass: [add]
              sessionGrants: false
              sessionMaxRisk: low
              agents: {helper: {mode: confirm_all}}
            dispatch:
              enabled: true
              useSummary: false
              maxGroups: 2
              model: {baseUrl: 'http://127.0.0.1:9/v1', name: small, apiKey: k, timeoutMs: 500}
              cacheTtlMs: 100
            limits:
              store: memory
              redisUrl: redis://127.0.0.1:6391
              maxKeys: 99
              rules:
                - {name: two, tools: [echo, add], maxCallsPerTool: 2}
                - {name: rate, plugins: [notes], users: [u1], streams: ['s*'], agents: [helper], sources: [plugin], rate: 3, periodMs: 1000, burst: 4, per: user, shared: false}
                - {name: one, tools: [wipe], concurrency: 1, maxCallsPerTurn: 5}
            plugins:
              notes: {config: {folder: /tmp/notes, depth: 2}}
            """;

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static Map<String, Object> tree(String yaml) throws Exception {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = YAML.readValue(yaml, Map.class);
        return m;
    }

    /** Every key respelt by {@code spell}; scalars and lists kept, or turned into strings as properties are. */
    @SuppressWarnings("unchecked")
    private static Object respell(Object v, UnaryOperator<String> spell, boolean asStrings) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) m).forEach((k, x) -> out.put(spell.apply(k), respell(x, spell, asStrings)));
            return out;
        }
        if (v instanceof List<?> l) {
            if (asStrings && !l.isEmpty() && l.stream().allMatch(x -> x instanceof String)) {
                return String.join(",", (List<String>) l); // a comma list, as a property value writes one
            }
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(respell(x, spell, asStrings)));
            return out.isEmpty() && asStrings ? "" : out;
        }
        return asStrings && v != null ? String.valueOf(v) : v;
    }

    private static String kebab(String key) {
        return key.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    @SuppressWarnings("unchecked")
    private static ConfigLoader.Loaded relaxed(Map<String, Object> file, UnaryOperator<String> spell, boolean asStrings) {
        return ConfigLoader.fromProperties((Map<String, Object>) respell(file, spell, asStrings));
    }

    @Test
    void everySectionSpeltInKebabCase_readsAsTheFile() throws Exception {
        ConfigLoader.Loaded file = ConfigLoader.parse(FULL, n -> null);
        assertThat(file.warnings()).isEmpty();
        ConfigLoader.Loaded props = relaxed(tree(FULL), RelaxedKeysTest::kebab, false);
        assertThat(props.warnings()).isEmpty();
        assertThat(props.config()).isEqualTo(file.config());
        assertThat(props.config().limits().rules()).hasSize(3);
        assertThat(props.config().gateway().tokens()).hasSize(1);
        assertThat(props.config().execution().maxParallel()).isEqualTo(6);
    }

    @Test
    void propertyStrings_commaLists_andEnvironmentSpellings_readAsTheFile() throws Exception {
        Config file = ConfigLoader.parse(FULL, n -> null).config();
        ConfigLoader.Loaded strings = relaxed(tree(FULL), RelaxedKeysTest::kebab, true);
        assertThat(strings.warnings()).isEmpty();
        // a plugin's own config is handed over as written: property values are strings
        assertThat(strings.config().plugins().config("notes")).containsEntry("depth", "2");
        assertThat(withoutPlugins(strings.config())).isEqualTo(withoutPlugins(file));
        // TOOLBUS_EXECUTION_MAXPARALLEL: Spring lower-cases the names of environment variables
        ConfigLoader.Loaded env = relaxed(tree(FULL), k -> k.toLowerCase(Locale.ROOT), true);
        assertThat(env.warnings()).isEmpty();
        assertThat(withoutPlugins(env.config())).isEqualTo(withoutPlugins(file));
        ConfigLoader.Loaded snake = relaxed(tree(FULL),
                k -> k.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT), false);
        assertThat(snake.warnings()).isEmpty();
        assertThat(snake.config()).isEqualTo(file);
    }

    private static Config withoutPlugins(Config c) {
        return new Config(c.mode(), c.sources(), c.groups(), c.security(), c.tools(), c.execution(), c.bus(),
                c.gateway(), c.documents(), c.approval(), c.dispatch(), c.limits(), Config.Plugins.NONE);
    }

    @Test
    void anUnknownKey_isWarnedAboutWithItsPath_andABadValueFallsBackAsInAFile() {
        ConfigLoader.Loaded l = ConfigLoader.fromProperties(Map.of(
                "execution", Map.of("max-parallel", "50", "no-such-key", "1"),
                "approval", Map.of("mode", "sometimes", "tim-out-ms", "5"),
                "gateway", Map.of("tokens", List.of(Map.of("name", "m", "token", "t", "max-perm", "owner"))),
                "nonsense", Map.of("a", "b")));
        assertThat(l.warnings()).anyMatch(w -> w.startsWith("nonsense: is not a known setting"))
                .anyMatch(w -> w.contains("execution.no-such-key is not a known setting"))
                .anyMatch(w -> w.startsWith("approval.tim-out-ms: is not a known setting"))
                .anyMatch(w -> w.startsWith("approval.mode"))
                .anyMatch(w -> w.startsWith("gateway.tokens[0].max-perm: is not a known setting"))
                .anyMatch(w -> w.contains("maxParallel"));
        ConfigLoader.Loaded file = ConfigLoader.parse("execution: {maxParallel: 50}\n", n -> null);
        assertThat(l.config().execution().maxParallel()).isEqualTo(file.config().execution().maxParallel());
    }

    @Test
    void blankStrings_readAsEmptySections_andAFileKeepsItsExactKeys() {
        ConfigLoader.Loaded l = ConfigLoader.fromProperties(Map.of("tools", Map.of("deny", "", "profiles", "")));
        assertThat(l.warnings()).isEmpty();
        assertThat(l.config().tools().deny()).isEmpty();
        // a toolbus.yaml is not relaxed: its keys are exact
        ConfigLoader.Loaded file = ConfigLoader.parse("execution: {max-parallel: 3}\n", n -> null);
        assertThat(file.warnings()).anyMatch(w -> w.contains("max-parallel"));
        assertThat(file.config().execution().maxParallel()).isEqualTo(ExecutionSettings.DEFAULT_MAX_PARALLEL);
    }

    @Test
    void theRelaxedKeyListsOfExecutionAndLimits_areTheKeysTheirReadersKnow() {
        for (String k : ExecutionSection.KEYS) {
            List<String> warnings = new java.util.ArrayList<>();
            ExecutionSection.read(Map.of(k, "1"), warnings);
            assertThat(warnings).as(k).noneMatch(w -> w.contains("not a known setting"));
        }
        for (String k : LimitsSection.KEYS) {
            assertThat(LimitsSection.read(Map.of(k, "1")).warnings()).as(k).noneMatch(w -> w.contains("not a known setting"));
        }
        for (String k : LimitsSection.RULE_KEYS) {
            Map<String, Object> rule = new LinkedHashMap<>(Map.of("name", "r", "maxCallsPerTurn", 1));
            rule.put(k, k.equals("name") ? "r" : "1");
            assertThat(LimitsSection.read(Map.of("rules", List.of(rule))).warnings()).as(k)
                    .noneMatch(w -> w.contains("not a known setting"));
        }
        // and every execution key a file prints is one of them
        String effective = ConfigLoader.effectiveYaml(Config.defaults());
        String execution = effective.substring(effective.indexOf("execution:"), effective.indexOf("\nbus:"));
        for (String line : execution.lines().skip(1).toList()) {
            if (line.startsWith("  ") && !line.startsWith("   ") && line.contains(":")) {
                assertThat(ExecutionSection.KEYS).contains(line.strip().substring(0, line.strip().indexOf(':')));
            }
        }
    }
}
