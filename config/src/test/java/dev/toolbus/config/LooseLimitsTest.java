package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.limits.LimitRule;
import dev.toolbus.executor.limits.Limits;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The lenient reading of the limits mapping: nonsense values fall back with a warning each. */
class LooseLimitsTest {

    @Test
    void aRuleFromAMapKeepsEveryKey() {
        Limits l = LimitsSection.read(Map.of("store", "redis", "maxKeys", 500, "rules", List.of(
                Map.ofEntries(Map.entry("name", "search"), Map.entry("tools", List.of("web_*")),
                        Map.entry("plugins", "weather"), Map.entry("sources", List.of("mcp:gh")),
                        Map.entry("users", List.of("u*")), Map.entry("rate", 10), Map.entry("periodMs", 60000),
                        Map.entry("burst", 20), Map.entry("per", "user"), Map.entry("concurrency", 2),
                        Map.entry("maxCallsPerTool", 3), Map.entry("maxCallsPerTurn", 8)))));
        assertThat(l.warnings()).isEmpty();
        LimitRule r = l.rules().get(0);
        assertThat(r).isEqualTo(LimitRule.builder("search").tools(List.of("web_*")).plugins(List.of("weather"))
                .sources(List.of("mcp:gh")).users(List.of("u*")).rate(10).periodMs(60000).burst(20)
                .per(LimitRule.Per.USER).shared(true).concurrency(2).maxCallsPerTool(3).maxCallsPerTurn(8).build());
        assertThat(l.store()).isEqualTo("redis");
        assertThat(l.maxKeys()).isEqualTo(500);
        assertThat(LimitsSection.read(LimitsSection.toMap(l))).isEqualTo(l);
    }

    @Test
    void nonsenseValuesFallBackWithWarnings() {
        Limits l = LimitsSection.read(Map.of("store", "etcd", "maxKeys", -3, "colour", "red", "rules", List.of(
                Map.of("rate", -5, "periodMs", "soon", "burst", 0, "per", "planet", "shared", "maybe"),
                Map.of("name", "x", "concurrency", "lots", "maxCallsPerTool", 0, "maxCallsPerTurn", 1e9),
                Map.of("name", "x", "tools", Map.of("a", 1), "maxCallsPerTool", 2),
                Map.of("name", "empty"),
                "not a rule",
                Map.of("name", "bad name!", "rate", 1.5))));
        assertThat(l.store()).isEqualTo("memory");
        assertThat(l.maxKeys()).isEqualTo(1);
        assertThat(l.rules()).extracting(LimitRule::name).containsExactly("rule-1", "x", "x-3");
        LimitRule first = l.rules().get(0);
        assertThat(first.rate()).isEqualTo(1);
        assertThat(first.periodMs()).isEqualTo(LimitRule.DEFAULT_PERIOD_MS);
        assertThat(first.burst()).isEqualTo(1);
        assertThat(first.per()).isEqualTo(LimitRule.Per.NONE);
        assertThat(first.shared()).isFalse();
        LimitRule second = l.rules().get(1);
        assertThat(second.concurrency()).isZero();
        assertThat(second.maxCallsPerTool()).isEqualTo(1);
        assertThat(second.maxCallsPerTurn()).isEqualTo(LimitRule.MAX_PER_TURN);
        assertThat(l.rules().get(2).tools()).isEmpty();
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).startsWith("store: 'etcd' is not memory or redis"))
                .anySatisfy(w -> assertThat(w).isEqualTo("maxKeys: -3 is below 1; using 1"))
                .anySatisfy(w -> assertThat(w).isEqualTo("colour: is not a known setting; ignored"))
                .anySatisfy(w -> assertThat(w).isEqualTo("rules[0]: rate -5 is below 1; using 1"))
                .anySatisfy(w -> assertThat(w).isEqualTo("rules[0]: periodMs 'soon' is not an integer; using 1000"))
                .anySatisfy(w -> assertThat(w).isEqualTo("rules[0]: burst 0 is below 1; using 1"))
                .anySatisfy(w -> assertThat(w).contains("per 'planet' is not user, stream or agent"))
                .anySatisfy(w -> assertThat(w).contains("shared 'maybe' is not true or false"))
                .anySatisfy(w -> assertThat(w).isEqualTo(
                        "rules[1] (x): concurrency 'lots' is not an integer; that limit is dropped"))
                .anySatisfy(w -> assertThat(w).contains("maxCallsPerTurn 1000000000 is above 100000"))
                .anySatisfy(w -> assertThat(w).contains("rules[2] (x): name: 'x' is used by an earlier rule"))
                .anySatisfy(w -> assertThat(w).contains("tools: must be a list, got a mapping; this rule matches every tool"))
                .anySatisfy(w -> assertThat(w).isEqualTo("rules[3] (empty): has no limit (rate, concurrency, "
                        + "maxCallsPerTool or maxCallsPerTurn); the rule is ignored"))
                .anySatisfy(w -> assertThat(w).isEqualTo("rules[4]: must be a mapping, got 'not a rule'; the rule is ignored"))
                .anySatisfy(w -> assertThat(w).contains("name: 'bad name!' must be 1-64"))
                .anySatisfy(w -> assertThat(w).contains("rate '1.5' is not an integer; that limit is dropped"));
    }
}
