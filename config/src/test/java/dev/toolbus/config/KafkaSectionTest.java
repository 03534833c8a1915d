package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code bus.kafka}: the failover timing and kafka-clients settings of the Kafka bus. */
class KafkaSectionTest {

    @Test
    void absent_meansKafkasOwnTiming_andNoClientSettings() {
        Config c = ConfigLoader.parse("bus: {type: kafka}", k -> null).config();
        assertThat(c.bus().kafka()).isEqualTo(KafkaConfig.DEFAULTS);
        assertThat(c.bus().kafka().hangingTransactionSweepMs()).as("the bus's default").isEqualTo(KafkaConfig.BUS_DEFAULT);
        assertThat(ConfigLoader.effectiveYaml(c)).contains("sessionTimeoutMs: 0").doesNotContain("hangingTransactionSweepMs");
    }

    @Test
    void reads_theTiming_andClientSettings_flatOrNested_asKafkaNames() {
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                bus:
                  type: kafka
                  kafka:
                    sessionTimeoutMs: 10000
                    heartbeatIntervalMs: 2000
                    hangingTransactionSweepMs: 5000
                    consumer:
                      max.poll.interval.ms: 600000
                      fetch: {max: {wait: {ms: 50}}}
                    producer: {linger.ms: 5, compression.type: lz4}
                    admin: {request.timeout.ms: 9000, bootstrap.controllers: [a:1, b:2]}
                """, k -> null);
        assertThat(l.warnings()).isEmpty();
        KafkaConfig k = l.config().bus().kafka();
        assertThat(k.sessionTimeoutMs()).isEqualTo(10_000);
        assertThat(k.heartbeatIntervalMs()).isEqualTo(2_000);
        assertThat(k.hangingTransactionSweepMs()).isEqualTo(5_000);
        assertThat(k.consumer()).containsExactly(Map.entry("max.poll.interval.ms", "600000"),
                Map.entry("fetch.max.wait.ms", "50"));
        assertThat(k.producer()).containsExactly(Map.entry("linger.ms", "5"), Map.entry("compression.type", "lz4"));
        assertThat(k.admin()).containsEntry("request.timeout.ms", "9000").containsEntry("bootstrap.controllers", "a:1,b:2");
        assertThat(k.turnState()).isTrue();
        assertThat(k.stateTopic()).isEmpty();
        KafkaConfig off = ConfigLoader.parse("bus: {type: kafka, kafka: {turnState: false, stateTopic: ' x.state '}}",
                x -> null).config().bus().kafka();
        assertThat(off.turnState()).isFalse();
        assertThat(off.stateTopic()).isEqualTo("x.state");
        assertThat(ConfigLoader.effectiveYaml(l.config())).contains("sessionTimeoutMs: 10000")
                .contains("max.poll.interval.ms: 600000");
        assertThat(ConfigLoader.parse(ConfigLoader.effectiveYaml(l.config()), x -> null).config().bus().kafka()).isEqualTo(k);
        ConfigLoader.Loaded noSweep = ConfigLoader.parse("bus: {type: kafka, kafka: {hangingTransactionSweepMs: 0}}",
                x -> null);
        assertThat(noSweep.warnings()).isEmpty();
        assertThat(noSweep.config().bus().kafka().hangingTransactionSweepMs()).as("off").isZero();
        assertThat(ConfigLoader.effectiveYaml(noSweep.config())).contains("hangingTransactionSweepMs: 0");
        assertThat(ConfigLoader.parse(ConfigLoader.effectiveYaml(noSweep.config()), x -> null).config().bus().kafka())
                .isEqualTo(noSweep.config().bus().kafka());
    }

    @Test
    void outOfRangeTiming_isClamped_aHeartbeatNotBelowTheSession_fallsBack_withWarnings() {
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                bus: {type: kafka, kafka: {sessionTimeoutMs: 10, heartbeatIntervalMs: 5000, hangingTransactionSweepMs: 10,
                                           producer: oops}}
                """, k -> null);
        KafkaConfig k = l.config().bus().kafka();
        assertThat(k.sessionTimeoutMs()).isEqualTo(1_000);
        assertThat(k.heartbeatIntervalMs()).isZero();
        assertThat(k.hangingTransactionSweepMs()).isEqualTo(1_000);
        assertThat(k.producer()).isEmpty();
        assertThat(l.warnings()).anySatisfy(w -> assertThat(w).contains("bus.kafka.sessionTimeoutMs").contains("below 1000"))
                .anySatisfy(w -> assertThat(w).contains("bus.kafka.heartbeatIntervalMs").contains("not below sessionTimeoutMs"))
                .anySatisfy(w -> assertThat(w).contains("bus.kafka.hangingTransactionSweepMs").contains("below 1000"))
                .anySatisfy(w -> assertThat(w).contains("bus.kafka.producer").contains("must be a mapping"));
        Map.of("-5", "-5 is negative", "soon", "'soon' is not an integer", "~", "is empty").forEach((v, why) -> {
            ConfigLoader.Loaded sweep = ConfigLoader.parse("bus: {type: kafka, kafka: {hangingTransactionSweepMs: " + v
                    + "}}", x -> null);
            assertThat(sweep.config().bus().kafka().hangingTransactionSweepMs()).as(v + ": the bus's default, not off")
                    .isEqualTo(KafkaConfig.BUS_DEFAULT);
            assertThat(sweep.warnings()).containsExactly("bus.kafka.hangingTransactionSweepMs: " + why
                    + "; using the bus's default");
        });
        assertThat(ConfigLoader.parse("bus: {type: kafka, kafka: {hangingTransactionSweepMs: 99999999}}", x -> null)
                .config().bus().kafka().hangingTransactionSweepMs()).isEqualTo(30 * 60_000L);
        ConfigLoader.Loaded bad = ConfigLoader.parse("bus: {kafka: {sessionTimeoutMs: soon, retries: 3}}", x -> null);
        assertThat(bad.config().bus().kafka().sessionTimeoutMs()).isZero();
        assertThat(bad.warnings()).anySatisfy(w -> assertThat(w).contains("bus.kafka.sessionTimeoutMs"))
                .anySatisfy(w -> assertThat(w).contains("bus.kafka.retries").contains("not a known setting"));
    }

    @Test
    void secretClientSettings_areMaskedInTheEffectiveConfig() {
        ConfigLoader.Loaded l = ConfigLoader.parse("""
                bus:
                  type: kafka
                  kafka:
                    consumer: {sasl.jaas.config: 'PlainLoginModule required password="hunter2";', security.protocol: SASL_SSL}
                    producer: {ssl.keystore.password: hunter2, ssl.key.password: hunter2}
                """, k -> null);
        assertThat(l.config().bus().kafka().consumer()).containsEntry("security.protocol", "SASL_SSL");
        String yaml = ConfigLoader.effectiveYaml(l.config());
        assertThat(yaml).doesNotContain("hunter2").contains("sasl.jaas.config: '***'").contains("security.protocol: SASL_SSL");
    }

    @Test
    void theBuilderRefusesWhatTheFileWouldClampOrWarnAbout() {
        assertThatThrownBy(() -> KafkaConfig.builder().sessionTimeoutMs(500).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bus.kafka.sessionTimeoutMs");
        assertThatThrownBy(() -> KafkaConfig.builder().sessionTimeoutMs(6_000).heartbeatIntervalMs(6_000).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bus.kafka.heartbeatIntervalMs");
        for (long bad : new long[] {500, -2, 30 * 60_000L + 1}) {
            assertThatThrownBy(() -> KafkaConfig.builder().hangingTransactionSweepMs(bad).build()).as("" + bad)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bus.kafka.hangingTransactionSweepMs");
        }
        assertThat(KafkaConfig.builder().hangingTransactionSweepMs(0).build().hangingTransactionSweepMs()).isZero();
        assertThat(KafkaConfig.builder().hangingTransactionSweepMs(0).build()).isNotEqualTo(KafkaConfig.DEFAULTS);
        assertThat(KafkaConfig.builder().hangingTransactionSweepMs(KafkaConfig.BUS_DEFAULT).build())
                .isEqualTo(KafkaConfig.DEFAULTS);
        assertThatThrownBy(() -> KafkaConfig.builder().consumer(Map.of(" ", "x")).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bus.kafka.consumer");
        KafkaConfig k = KafkaConfig.builder().sessionTimeoutMs(10_000).producer(Map.of("linger.ms", "5"))
                .turnState(false).hangingTransactionSweepMs(0).build();
        assertThat(BusConfig.builder("kafka").kafka(k).build().kafka()).isEqualTo(k);
        assertThat(k.toBuilder().build()).isEqualTo(k);
        assertThat(KafkaConfig.builder().consumer(Map.of("sasl.jaas.config", "hunter2")).build().toString())
                .doesNotContain("hunter2").contains("sasl.jaas.config");
    }
}
