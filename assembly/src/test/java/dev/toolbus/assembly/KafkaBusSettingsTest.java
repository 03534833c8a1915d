package dev.toolbus.assembly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.bus.kafka.KafkaBusConfig;
import dev.toolbus.config.BusConfig;
import dev.toolbus.config.ConfigLoader;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code bus.kafka} of a toolbus.yaml (or the Spring properties) becomes the Kafka bus's settings. */
class KafkaBusSettingsTest {

    private static KafkaBusConfig settings(String yaml) {
        ConfigLoader.Loaded l = ConfigLoader.parse(yaml, n -> null);
        assertThat(l.warnings()).isEmpty();
        BusConfig b = l.config().bus();
        return Buses.Brokers.kafkaConfig("kafka://127.0.0.1:9092", new Buses.Names(b, b.idempotency(), "g1", "i1", "x1",
                1 << 20, b.redis()));
    }

    @Test
    void theFailoverTiming_andClientSettings_reachTheBus() {
        KafkaBusConfig c = settings("""
                bus:
                  type: kafka
                  calls: a.calls
                  kafka:
                    sessionTimeoutMs: 8000
                    consumer: {max.poll.interval.ms: 600000}
                    producer: {linger.ms: 5}
                    admin: {request.timeout.ms: 9000}
                """);
        assertThat(c.bootstrapServers()).isEqualTo("127.0.0.1:9092");
        assertThat(c.callsTopic()).isEqualTo("a.calls");
        assertThat(c.groupId()).isEqualTo("g1");
        assertThat(c.sessionTimeout()).isEqualTo(Duration.ofSeconds(8));
        assertThat(c.heartbeatInterval()).as("a third of the session").isEqualTo(Duration.ofMillis(2666));
        assertThat(c.consumerProperties()).containsEntry("max.poll.interval.ms", "600000");
        assertThat(c.producerProperties()).containsEntry("linger.ms", "5");
        assertThat(c.adminProperties()).containsEntry("request.timeout.ms", "9000");

        assertThat(c.turnState()).isTrue();
        assertThat(c.stateTopic()).isEqualTo("a.state");
        KafkaBusConfig plain = settings("bus: {type: kafka}");
        assertThat(plain.sessionTimeout()).isNull();
        KafkaBusConfig memory = settings("bus: {type: kafka, kafka: {turnState: false, stateTopic: x.state}}");
        assertThat(memory.turnState()).isFalse();
        assertThat(memory.stateTopic()).isEqualTo("x.state");
        assertThat(plain.heartbeatInterval()).isNull();
        assertThat(settings("bus: {type: kafka, kafka: {sessionTimeoutMs: 8000, heartbeatIntervalMs: 1000}}")
                .heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void theSweepForHangingTransactions_isTheBussDefaultUnlessSet_andZeroTurnsItOff() {
        assertThat(settings("bus: {type: kafka}").hangingTransactionSweep()).as("the bus's default")
                .isEqualTo(Duration.ofSeconds(20));
        assertThat(settings("bus: {type: kafka, kafka: {producer: {transaction.timeout.ms: 30000}}}")
                .hangingTransactionSweep()).as("twice the transaction timeout").isEqualTo(Duration.ofSeconds(60));
        assertThat(settings("bus: {type: kafka, kafka: {hangingTransactionSweepMs: 5000}}").hangingTransactionSweep())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(settings("bus: {type: kafka, kafka: {hangingTransactionSweepMs: 0}}").hangingTransactionSweep())
                .as("off").isZero();
    }

    @Test
    void aClientSettingTheBusOwns_stopsTheStart_namingIt() {
        assertThatThrownBy(() -> settings("bus: {type: kafka, kafka: {consumer: {isolation.level: read_uncommitted}}}"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("bus.kafka")
                .hasMessageContaining("isolation.level");
        assertThatThrownBy(() -> settings("bus: {type: kafka, kafka: {producer: {acks: '1'}}}"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("acks");
    }
}
