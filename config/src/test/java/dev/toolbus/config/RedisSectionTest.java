package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisSectionTest {

    @Test
    void defaults_areTheRedisBusOwn() {
        Config c = ConfigLoader.parse("bus: {type: redis}", k -> null).config();
        assertThat(c.bus().redis()).isEqualTo(RedisFailoverConfig.DEFAULTS);
        assertThat(c.bus().redis().claimMinIdleMs()).isEqualTo(30_000);
        assertThat(c.bus().redis().claimIntervalMs()).isEqualTo(5_000);
    }

    @Test
    void reads_theFailoverTimes_andPrintsThemInTheEffectiveConfig() {
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                bus:
                  type: redis
                  redis: {claimMinIdleMs: 4000, claimIntervalMs: 1000, claimBatch: 20}
                """, k -> null);
        assertThat(l.warnings()).isEmpty();
        assertThat(l.config().bus().redis()).isEqualTo(RedisFailoverConfig.builder().claimMinIdleMs(4_000)
                .claimIntervalMs(1_000).claimBatch(20).build());
        assertThat(ConfigLoader.effectiveYaml(l.config())).contains("claimMinIdleMs: 4000").contains("claimIntervalMs: 1000");
    }

    @Test
    void anIntervalAboveHalfTheIdleTime_isLowered_soLiveLeasesNeverLapse() {
        ConfigLoader.Loaded l = ConfigLoader.parse("bus: {redis: {claimMinIdleMs: 3000, claimIntervalMs: 5000}}", k -> null);
        assertThat(l.config().bus().redis().claimIntervalMs()).isEqualTo(1_000);
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("bus.redis.claimIntervalMs"));
    }

    @Test
    void nonsense_fallsBackOrIsClamped_withWarnings() {
        ConfigLoader.Loaded l = ConfigLoader.parse("bus: {redis: {claimMinIdleMs: 5, claimBatch: lots, idle: 1}}",
                k -> null);
        RedisFailoverConfig r = l.config().bus().redis();
        assertThat(r.claimMinIdleMs()).isEqualTo(1_000);
        assertThat(r.claimBatch()).isEqualTo(RedisFailoverConfig.DEFAULTS.claimBatch());
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("bus.redis.claimMinIdleMs"));
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("bus.redis.claimBatch"));
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("idle"));
    }

    @Test
    void theBuilderRefusesWhatTheFileWouldOnlyWarnAbout() {
        assertThatThrownBy(() -> RedisFailoverConfig.builder().claimMinIdleMs(3_000).claimIntervalMs(5_000).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bus.redis.claimIntervalMs");
        assertThatThrownBy(() -> RedisFailoverConfig.builder().claimBatch(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bus.redis.claimBatch");
        assertThat(BusConfig.builder("redis").redis(RedisFailoverConfig.builder().claimMinIdleMs(10_000).build())
                .build().redis().claimMinIdleMs()).isEqualTo(10_000);
    }
}
