package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.limits.LimitRule;
import dev.toolbus.executor.limits.Limits;
import dev.toolbus.registry.ToolRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LimitsSectionTest {

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, Map.<String, String>of()::get);
    }

    /** The first yaml block after a heading of a docs page. */
    private static String yamlAfter(String page, String heading) throws java.io.IOException {
        String md = java.nio.file.Files.readString(java.nio.file.Path.of("..", "docs", page));
        int at = md.indexOf(heading);
        assertThat(at).as(heading).isPositive();
        int start = md.indexOf("```yaml\n", at) + "```yaml\n".length();
        return md.substring(start, md.indexOf("```", start));
    }

    @Test
    void theDocsExamplesLoadWithoutWarnings() throws Exception {
        ConfigLoader.Loaded conf = parse(yamlAfter("configuration.md", "## `limits`"));
        assertThat(conf.warnings()).isEmpty();
        assertThat(conf.config().limits().rules()).extracting(LimitRule::name)
                .containsExactly("search-per-user", "one-browser", "mcp-github", "per-turn");
        assertThat(conf.config().limits().rules().get(2).shared()).isTrue();
        ConfigLoader.Loaded ops = parse(yamlAfter("operations.md", "## Rate, concurrency and per-turn limits"));
        assertThat(ops.warnings()).isEmpty();
        assertThat(ops.config().limits().rules()).hasSize(3).allSatisfy(r -> assertThat(r.shared())
                .isEqualTo(r.hasRate()));
    }

    @Test
    void absentSectionIsNoLimits() {
        ConfigLoader.Loaded l = parse("mode: hybrid\n");
        assertThat(l.warnings()).isEmpty();
        assertThat(l.config().limits()).isSameAs(Limits.NONE);
    }

    @Test
    void everyKeyIsRead() {
        ConfigLoader.Loaded l = parse("""
                bus: {type: redis, url: "redis://127.0.0.1:6390"}
                limits:
                  store: redis
                  maxKeys: 2000
                  rules:
                    - name: search-per-user
                      tools: [web_search, "web_*"]
                      users: ["*"]
                      rate: 10
                      periodMs: 60000
                      burst: 15
                      per: user
                    - name: one-browser
                      plugins: [browser]
                      sources: ["mcp:playwright", stdio]
                      concurrency: 1
                    - name: per-turn
                      streams: ["qq:*"]
                      agents: [helper]
                      maxCallsPerTool: 3
                      maxCallsPerTurn: 20
                """);
        assertThat(l.warnings()).isEmpty();
        Limits lim = l.config().limits();
        assertThat(lim.store()).isEqualTo("redis");
        assertThat(lim.maxKeys()).isEqualTo(2000);
        assertThat(lim.rules()).hasSize(3);
        LimitRule r = lim.rules().get(0);
        assertThat(r.tools()).containsExactly("web_search", "web_*");
        assertThat(r.rate()).isEqualTo(10);
        assertThat(r.periodMs()).isEqualTo(60_000);
        assertThat(r.burst()).isEqualTo(15);
        assertThat(r.per()).isEqualTo(LimitRule.Per.USER);
        assertThat(r.shared()).as("store: redis shares the buckets").isTrue();
        assertThat(lim.rules().get(1).concurrency()).isEqualTo(1);
        assertThat(lim.rules().get(1).sources()).containsExactly("mcp:playwright", "stdio");
        assertThat(lim.rules().get(2).maxCallsPerTurn()).isEqualTo(20);
        assertThat(lim.rules().get(2).agents()).containsExactly("helper");
    }

    @Test
    void nonsenseValuesFallBackWithWarningsPrefixedByTheSection() {
        ConfigLoader.Loaded l = parse("""
                limits:
                  store: zookeeper
                  maxKeys: lots
                  rules:
                    - {name: a, rate: -1, periodMs: 0, burst: .nan}
                    - {name: b, concurrency: 0, maxCallsPerTool: -4}
                    - {name: c}
                    - 42
                """);
        Limits lim = l.config().limits();
        assertThat(lim.store()).isEqualTo("memory");
        assertThat(lim.maxKeys()).isEqualTo(Limits.DEFAULT_MAX_KEYS);
        assertThat(lim.rules()).extracting(LimitRule::name).containsExactly("a", "b");
        assertThat(lim.rules().get(0).rate()).isEqualTo(1);
        assertThat(lim.rules().get(0).periodMs()).isEqualTo(1);
        assertThat(lim.rules().get(0).burst()).isEqualTo(1);
        assertThat(lim.rules().get(1).concurrency()).isEqualTo(1);
        assertThat(lim.rules().get(1).maxCallsPerTool()).isEqualTo(1);
        assertThat(l.warnings()).containsExactly(
                "limits.store: 'zookeeper' is not memory or redis; using memory (each instance counts alone)",
                "limits.maxKeys: 'lots' is not an integer; using 10000",
                "limits.rules[0] (a): rate -1 is below 1; using 1",
                "limits.rules[0] (a): periodMs 0 is below 1; using 1",
                "limits.rules[0] (a): burst '.nan' is not an integer; using the rate",
                "limits.rules[1] (b): concurrency 0 is below 1; using 1",
                "limits.rules[1] (b): maxCallsPerTool -4 is below 1; using 1",
                "limits.rules[2] (c): has no limit (rate, concurrency, maxCallsPerTool or maxCallsPerTurn); the rule is"
                        + " ignored",
                "limits.rules[3]: must be a mapping, got 42; the rule is ignored");
        assertThat(lim.warnings()).hasSize(9);
        assertThat(parse("limits: [a]\n").warnings()).containsExactly("limits: must be a mapping, got a list; no limits");
    }

    @Test
    void effectiveYamlRoundTripsAndMasksTheRedisPassword() {
        ConfigLoader.Loaded l = parse("""
                limits:
                  redisUrl: "redis://:s3cret@127.0.0.1:6379"
                  rules:
                    - {name: r, tools: [echo], rate: 3, per: stream, concurrency: 2, maxCallsPerTurn: 5}
                """);
        String yaml = ConfigLoader.effectiveYaml(l.config());
        assertThat(yaml).contains("limits:", "store: memory", "name: r", "rate: 3", "periodMs: 1000", "burst: 3",
                "per: stream").doesNotContain("s3cret");
        ConfigLoader.Loaded again = parse(yaml.replace(ConfigLoader.maskUrl("redis://:s3cret@127.0.0.1:6379"),
                "redis://:s3cret@127.0.0.1:6379"));
        assertThat(again.warnings()).isEmpty();
        assertThat(again.config().limits()).isEqualTo(l.config().limits());
        assertThat(parse(ConfigLoader.effectiveYaml(Config.defaults())).config()).isEqualTo(Config.defaults());
    }

    @Test
    void reloadAppliesNewLimitsButABrokenSectionKeepsTheLastGoodOnes() {
        Config first = parse("limits: {rules: [{name: r, maxCallsPerTool: 2}]}\n").config();
        LiveConfig live = LiveConfig.create(first, ToolRegistry.create());
        assertThat(live.limits().get().rules().get(0).maxCallsPerTool()).isEqualTo(2);
        LiveConfig.Reload reload = live.apply(parse("limits: {rules: [{name: r, maxCallsPerTool: 5}]}\n").config());
        assertThat(reload.restartNeeded()).isEmpty();
        assertThat(live.limits().get().rules().get(0).maxCallsPerTool()).isEqualTo(5);
        live.apply(parse("limits: {rules: [{name: r, maxCallsPerTool: many}]}\ntools: {deny: [y]}\n").config());
        assertThat(live.limits().get().rules().get(0).maxCallsPerTool()).as("fail closed").isEqualTo(5);
        assertThat(live.policy().config().tools().deny()).as("the rest applies").containsExactly("y");
        live.apply(parse("limits: 7\n").config());
        assertThat(live.limits().get().rules()).hasSize(1);
        assertThat(live.apply(parse("limits: {store: redis, rules: [{name: r, rate: 1}]}\n").config()).restartNeeded())
                .anySatisfy(s -> assertThat(s).startsWith("limits.store"));
        live.apply(parse("").config());
        assertThat(live.limits().get().isEmpty()).as("removing the section is a valid edit").isTrue();
        assertThat(List.of(live.current().limits())).allMatch(x -> x.warnings().isEmpty());
    }
}
