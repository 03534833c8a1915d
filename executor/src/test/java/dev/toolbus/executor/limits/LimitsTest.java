package dev.toolbus.executor.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The strict builders: out-of-range values, bad names, rules without a limit and twin names are refused. */
class LimitsTest {

    @Test
    void rulesFromTheBuilderDefaultToTheStoresSharing() {
        Limits l = Limits.builder().store("redis").rule(LimitRule.builder("a").rate(3))
                .rule(LimitRule.builder("b").rate(3).shared(false)).rule(LimitRule.builder("c").concurrency(2)).build();
        assertThat(l.rules()).extracting(LimitRule::shared).containsExactly(true, false, false);
        assertThat(l.anyShared()).isTrue();
        assertThat(Limits.NONE.isEmpty()).isTrue();
    }

    @Test
    void theBuildersRefuseWhatTheConfigReaderWouldHaveFixed() {
        assertThatThrownBy(() -> LimitRule.builder("r").rate(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rate must be 1..1000000, got -1");
        assertThatThrownBy(() -> LimitRule.builder("r").periodMs(0)).hasMessage("periodMs must be 1..86400000, got 0");
        assertThatThrownBy(() -> LimitRule.builder("r").concurrency(10_001)).hasMessage("concurrency must be 1..10000, got 10001");
        assertThatThrownBy(() -> LimitRule.builder("bad name!")).hasMessageContaining("1-64 letters");
        assertThatThrownBy(() -> LimitRule.builder("r").tools(List.of(" "))).hasMessageContaining("non-blank");
        assertThatThrownBy(() -> LimitRule.builder("r").build()).hasMessageContaining("rule r has no limit");
        assertThatThrownBy(() -> LimitRule.builder("r").concurrency(1).burst(2).build())
                .hasMessageContaining("burst without a rate");
        assertThatThrownBy(() -> Limits.builder().store("etcd")).hasMessage("store must be memory or redis, got 'etcd'");
        assertThatThrownBy(() -> Limits.builder().maxKeys(0)).hasMessage("maxKeys must be 1..1000000, got 0");
        LimitRule r = LimitRule.builder("r").rate(1).build();
        assertThatThrownBy(() -> Limits.builder().rule(r).rule(r).build())
                .hasMessageContaining("two limit rules are named r");
        assertThat(r.burst()).as("the burst defaults to the rate").isEqualTo(1);
        assertThat(r.toBuilder().build()).isEqualTo(r);
    }
}
