package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.policy.SourceMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConfigLoaderTest {

    private static final Map<String, String> ENV = Map.of("TOKEN", "s3cret", "EMPTY", "", "PORT", "9001");

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, ENV::get);
    }

    @Test
    void sampleFile_loadsWithoutWarnings() {
        ConfigLoader.Loaded l = ConfigLoader.load(Path.of("../docs/examples/toolbus.yaml"), Map.of("TOOLBUS_TOKEN", "t")::get);
        assertThat(l.warnings()).isEmpty();
        Config c = l.config();
        assertThat(c.groups()).extracting(g -> g.name()).containsExactly("basic", "admin", "shell");
        assertThat(c.groups().get(2).enabled()).isFalse();
        assertThat(c.tools().alsoAllow()).containsExactly("workflow_tool");
        assertThat(c.tools().byProvider()).containsKey("openai/gpt-5.2");
        assertThat(c.tools().agents().get("helper").rules().profile()).isEqualTo("chat");
        assertThat(c.gateway().token()).isEqualTo("t");
        assertThat(c.policy().sources().disabledTools()).containsExactly("delete_repository");
    }

    @Test
    void emptyFile_isTheDefaults() {
        assertThat(parse("").config()).isEqualTo(Config.defaults());
        assertThat(parse("").warnings()).isEmpty();
        assertThat(parse("# only a comment\n").config()).isEqualTo(Config.defaults());
    }

    @ParameterizedTest(name = "timeout {0} → {1} ms")
    @CsvSource(delimiter = '|', value = {
            "'abc'   | 30000 | not a number",
            ".nan    | 30000 | not a number",
            "        | 30000 | not a number",
            "null    | 30000 | not a number",
            "500     | 1000  | below 1000",
            "'2500'  | 2500  | ''",
            "45000.0 | 45000 | ''"})
    void timeout_fallsBack(String value, long expected, String warning) {
        ConfigLoader.Loaded l = parse("execution:\n  timeout: " + (value == null ? "" : value) + "\n");
        assertThat(l.config().execution().timeout()).isEqualTo(Duration.ofMillis(expected));
        if (warning.isEmpty()) {
            assertThat(l.warnings()).isEmpty();
        } else {
            assertThat(l.warnings()).singleElement().asString().startsWith("execution.").contains(warning);
        }
    }

    @ParameterizedTest(name = "maxParallel {0} → {1}")
    @CsvSource({"2.5, 5", "0, 1", "-3, 1", "50, 20", "'x', 5", "7, 7"})
    void maxParallel_fallsBack(String value, int expected) {
        assertThat(parse("execution: {maxParallel: " + value + "}").config().execution().maxParallel()).isEqualTo(expected);
    }

    @Test
    void execution_allKeys_andUnknownKey() {
        ConfigLoader.Loaded l = parse("""
                execution:
                  timeout: 5000
                  maxParallel: 8
                  retryOnError: true
                  maxRetries: 50
                  cacheResults: "false"
                  cacheTTL: -1
                  speed: fast
                """);
        var e = l.config().execution();
        assertThat(e.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(e.maxParallel()).isEqualTo(8);
        assertThat(e.retryOnError()).isTrue();
        assertThat(e.maxRetries()).isEqualTo(10);
        assertThat(e.cacheResults()).isFalse();
        assertThat(e.cacheTtl()).isZero();
        assertThat(l.warnings()).hasSize(3).anySatisfy(w -> assertThat(w).contains("execution.speed"));
    }

    @Test
    void unknownKeys_areWarnedAboutAtEveryLevel() {
        ConfigLoader.Loaded l = parse("""
                colour: blue
                sources:
                  builtin: {enabled: true, categories: [a]}
                  other: {}
                groups:
                  - {name: g, tools: [a], colour: red}
                security: {allowDangerus: true}
                tools:
                  byProvider:
                    openai: {allow: [read], allwo: [x]}
                  agents:
                    main: {deny: [exec], extra: 1}
                  search: {fast: true}
                bus: {type: redis, host: x}
                gateway: {prot: 1}
                documents: {depth: 3}
                """);
        assertThat(l.warnings()).extracting(w -> w.substring(0, w.indexOf(':')))
                .containsExactlyInAnyOrder("colour", "sources.builtin.categories", "sources.other", "groups[0].colour",
                        "security.allowDangerus", "tools.byProvider.openai.allwo", "tools.agents.main.extra",
                        "tools.search.fast", "bus.host", "gateway.prot", "documents.depth");
        assertThat(l.warnings()).allSatisfy(w -> assertThat(w).endsWith("is not a known setting; ignored"));
        assertThat(l.config().security().allowDangerous()).isFalse();
    }

    @Test
    void wrongTypes_fallBackWithAWarning_andNeverThrow() {
        ConfigLoader.Loaded l = parse("""
                mode: everything
                sources: yes
                groups: notalist
                security:
                  allowDangerous: maybe
                  dangerousTools: {a: 1}
                tools:
                  deny: exec
                  allow: [read, {x: 1}, 7]
                gateway: {port: 70000, maxRequestBytes: 10}
                documents: {paths: data, maxDepth: -1, maxFileBytes: 10, maxPromptChars: 5, mode: some}
                bus: {type: rabbit}
                """);
        Config c = l.config();
        assertThat(c.mode()).isEqualTo(SourceMode.HYBRID);
        assertThat(c.sources()).isEqualTo(SourcesConfig.DEFAULTS);
        assertThat(c.groups()).isEmpty();
        assertThat(c.security().allowDangerous()).isFalse();
        assertThat(c.security().dangerousTools()).isEqualTo(List.of("kick_member", "mute_member", "recall_message",
                "set_group_admin", "write_file"));
        assertThat(c.tools().deny()).containsExactly("exec");
        assertThat(c.tools().allow()).containsExactly("read", "7");
        assertThat(c.gateway().port()).isEqualTo(65_535);
        assertThat(c.gateway().maxRequestBytes()).isEqualTo(1024);
        assertThat(c.documents().paths()).isEqualTo(DocumentsConfig.DEFAULT_PATHS);
        assertThat(c.documents().maxDepth()).isEqualTo(6);
        assertThat(c.documents().maxFileBytes()).isEqualTo(1024);
        assertThat(c.documents().maxPromptChars()).isEqualTo(1000);
        assertThat(c.documents().mode()).isEqualTo("auto");
        assertThat(c.bus().type()).isEqualTo("in-memory");
        assertThat(l.warnings()).hasSize(15);
        assertThat(String.join("\n", l.warnings())).contains("mode: 'everything' is not hybrid",
                "tools.deny: should be a list; read as [exec]", "tools.allow[1]", "bus.type: 'rabbit'");
    }

    @Test
    void groups_validation() {
        ConfigLoader.Loaded l = parse("""
                groups:
                  - {tools: [a]}
                  - {name: admin, tools: mute_member, requiredPermission: root, index: x}
                  - {name: admin, tools: [b]}
                  - just a string
                  - {name: nest, tools: [group:admin]}
                """);
        assertThat(l.config().groups()).extracting(g -> g.name()).containsExactly("#0", "admin", "admin", "nest");
        assertThat(l.config().groups().get(1).tools()).containsExactly("mute_member");
        assertThat(String.join("\n", l.warnings())).contains("groups[0]: has no name",
                "groups[1].tools: should be a list", "groups.admin.requiredPermission 'root'", "groups[1].index",
                "'admin' is defined twice", "groups[3]: must be a mapping", "groups.nest.tools: 'admin' refers to a group");
    }

    @Test
    void rulesProblems_areWarnedAbout() {
        ConfigLoader.Loaded l = parse("""
                tools:
                  profile: codng
                  deny: [group:nope]
                  profiles:
                    p: {allow: [read], profile: other}
                security: {dangerousRequiredPermission: sudo}
                """);
        assertThat(String.join("\n", l.warnings())).contains("tools.profile 'codng'", "group:nope",
                "tools.profiles.p.profile: a profile cannot select another profile", "'sudo'");
    }

    @Test
    void environmentReferences() {
        ConfigLoader.Loaded l = parse("""
                gateway:
                  token: ${TOKEN}
                  port: ${PORT:-8000}
                  host: ${HOST:-0.0.0.0}
                bus:
                  type: redis
                  url: redis://:${MISSING}@h:6379
                  consumer: ${EMPTY:-fallback}
                  group: $${literal}
                """);
        Config c = l.config();
        assertThat(c.gateway().token()).isEqualTo("s3cret");
        assertThat(c.gateway().port()).isEqualTo(9001);
        assertThat(c.gateway().host()).isEqualTo("0.0.0.0");
        assertThat(c.bus().url()).isEqualTo("redis://:@h:6379");
        assertThat(c.bus().consumer()).isEqualTo("fallback");
        assertThat(c.bus().group()).isEqualTo("${literal}");
        assertThat(l.warnings()).singleElement().asString().contains("bus.url", "MISSING is not set");
    }

    @Test
    void gatewayWithoutTokenOffLoopback_isWarnedAbout() {
        assertThat(parse("gateway: {host: 0.0.0.0}").warnings()).singleElement().asString()
                .contains("gateway.token", "refuses to start");
        assertThat(parse("gateway: {host: 0.0.0.0, token: x}").warnings()).isEmpty();
        assertThat(parse("gateway: {host: localhost}").warnings()).isEmpty();
    }

    @Test
    void busDefaults_dependOnType() {
        BusConfig redis = parse("bus: {type: REDIS}").config().bus();
        assertThat(redis).isEqualTo(BusConfig.defaults("redis"));
        assertThat(redis.results()).isEqualTo("toolbus:results:{stream_id}");
        BusConfig kafka = parse("bus: {type: kafka, url: 'k1:9092,k2:9092', calls: my.calls}").config().bus();
        assertThat(kafka.url()).isEqualTo("k1:9092,k2:9092");
        assertThat(kafka.calls()).isEqualTo("my.calls");
        assertThat(kafka.results()).isEqualTo("toolbus.results");
    }

    @Test
    void disabledTools_areMergedAcrossSources() {
        Config c = parse("""
                sources:
                  builtin: {disabledTools: [a, b]}
                  custom: {disabledTools: [b, c], path: my/tools}
                  mcp: {disabledTools: [d], enabled: false}
                mode: skills-only
                """).config();
        assertThat(c.policy().sources().disabledTools()).containsExactly("a", "b", "c", "d");
        assertThat(c.policy().sources().mcpEnabled()).isFalse();
        assertThat(c.sources().custom().pluginDirs()).containsExactly("my/tools");
        assertThat(c.policy().mode()).isEqualTo(SourceMode.SKILLS_ONLY);
    }

    @Test
    void chatAiLayout_underSkills_isRead() {
        ConfigLoader.Loaded l = parse("""
                skills:
                  enabled: true
                  mode: mcp-only
                  dispatch: {enabled: false}
                  execution: {timeout: 2000}
                """);
        assertThat(l.config().mode()).isEqualTo(SourceMode.MCP_ONLY);
        assertThat(l.config().execution().timeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(l.warnings()).hasSize(2); // the layout notice and skills.enabled; dispatch is a real section now
    }

    @Test
    void rootNotAMapping_isTheDefaultsWithAWarning() {
        ConfigLoader.Loaded l = parse("- a\n- b\n");
        assertThat(l.config()).isEqualTo(Config.defaults());
        assertThat(l.warnings()).singleElement().asString().contains("must hold a mapping");
    }

    @Test
    void invalidYaml_andUnreadableFile_areErrors(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "tools:\n  allow: [read\n");
        assertThatThrownBy(() -> ConfigLoader.load(bad)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("bad.yaml").hasMessageContaining("invalid YAML").hasMessageContaining("line");
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("missing.yaml"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("cannot read");
    }

    @Test
    void effectiveYaml_roundTrips_andMasksSecrets() {
        ConfigLoader.Loaded l = ConfigLoader.load(Path.of("../docs/examples/toolbus.yaml"), Map.<String, String>of()::get);
        String yaml = ConfigLoader.effectiveYaml(l.config());
        assertThat(ConfigLoader.parse(yaml, ENV::get).config()).isEqualTo(l.config());
        assertThat(ConfigLoader.parse(yaml, ENV::get).warnings()).isEmpty();
        assertThat(ConfigLoader.effectiveYaml(Config.defaults())).contains("timeout: 30000", "maxParallel: 5",
                "mode: hybrid", "type: in-memory");
        Config secret = parse("gateway: {token: abc}\nbus: {type: redis, url: 'redis://user:pw@h:6379/0'}").config();
        String masked = ConfigLoader.effectiveYaml(secret);
        assertThat(masked).contains("token: '***'", "redis://user:***@h:6379/0").doesNotContain("abc", "pw@");
    }
}
