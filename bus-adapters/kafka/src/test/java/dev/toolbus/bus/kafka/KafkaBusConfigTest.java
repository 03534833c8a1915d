package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class KafkaBusConfigTest {

    @Test
    void defaults_matchTheDesign() {
        KafkaBusConfig c = KafkaBusConfig.defaults();
        assertThat(c.callsTopic()).isEqualTo("toolbus.calls");
        assertThat(c.resultsTopic()).isEqualTo("toolbus.results");
        assertThat(c.deadLetterTopic()).isEqualTo("toolbus.dead");
        assertThat(c.groupId()).isEqualTo("toolbus");
        assertThat(c.createTopics()).isTrue();
        assertThat(c.clientId()).startsWith("toolbus-");
    }

    @Test
    void bootstrapServers_acceptsAKafkaUri() {
        assertThat(KafkaBusConfig.builder().bootstrapServers("kafka://10.0.0.1:9092,h2:9093").build().bootstrapServers())
                .isEqualTo("10.0.0.1:9092,h2:9093");
        assertThatThrownBy(() -> KafkaBusConfig.builder().bootstrapServers("kafka://nohost"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bootstrapServers");
    }

    @Test
    void setters_rejectBadValuesNamingTheSetting() {
        var b = KafkaBusConfig.builder();
        assertThatThrownBy(() -> b.maxBufferedRecords(0)).hasMessageContaining("maxBufferedRecords");
        assertThatThrownBy(() -> b.pollTimeout(Duration.ZERO)).hasMessageContaining("pollTimeout");
        assertThatThrownBy(() -> b.topicPartitions(0)).hasMessageContaining("topicPartitions");
        assertThatThrownBy(() -> b.maxEventBytes(1)).hasMessageContaining("maxEventBytes");
        assertThatThrownBy(() -> b.groupId("")).hasMessageContaining("groupId");
    }

    @Test
    void build_rejectsTheSameTopicForCallsAndResults() {
        assertThatThrownBy(() -> KafkaBusConfig.builder().callsTopic("a").resultsTopic("a").build())
                .hasMessageContaining("resultsTopic");
    }

    @Test
    void settingsAreBuiltOnlyByTheBuilder_andCrossFieldRulesAreCheckedAtBuild() {
        assertThat(KafkaBusConfig.class.getConstructors()).isEmpty();
        assertThat(KafkaBusConfig.class.isRecord()).isFalse();
        assertThatThrownBy(() -> KafkaBusConfig.builder().turnLedgerTopic("toolbus.results").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("turnLedgerTopic");
        assertThat(KafkaBusConfig.builder().callsTopic("a.calls").build().turnLedgerTopic()).isEqualTo("a.turns");
        KafkaBusConfig c = KafkaBusConfig.builder().clientId("c1").build();
        assertThat(c).isNotEqualTo(c.toBuilder().delivery(KafkaDelivery.AT_LEAST_ONCE).build());
        assertThat(c.toString()).contains("clientId=c1");
    }

    @Test
    void toBuilder_roundTrips() {
        KafkaBusConfig c = KafkaBusConfig.builder().clientId("c1").consumerProperty("session.timeout.ms", "6000").build();
        assertThat(c.toBuilder().build()).isEqualTo(c);
    }

    @Test
    void delivery_isExactlyOnceByDefault_andTheUriQueryCanChooseAtLeastOnce() {
        assertThat(KafkaBusConfig.defaults().delivery()).isEqualTo(KafkaDelivery.EXACTLY_ONCE);
        KafkaBus alo = KafkaBus.fromUri("kafka://127.0.0.1:9?delivery=at-least-once");
        try {
            assertThat(alo.config().delivery()).isEqualTo(KafkaDelivery.AT_LEAST_ONCE);
            assertThat(alo.config().bootstrapServers()).isEqualTo("127.0.0.1:9");
        } finally {
            alo.closeGracefully().block();
        }
        assertThatThrownBy(() -> KafkaBus.fromUri("kafka://127.0.0.1:9?delivery=maybe"))
                .hasMessageContaining("delivery=exactly-once|at-least-once");
        assertThatThrownBy(() -> KafkaBusConfig.builder().transactionInterval(Duration.ZERO))
                .hasMessageContaining("transactionInterval");
    }

    @Test
    void failover_sessionTimeoutAndHeartbeat_reachTheConsumer_theHeartbeatDefaultingToAThirdAtMostThreeSeconds() {
        assertThat(KafkaBusConfig.defaults().sessionTimeout()).isNull();
        assertThat(KafkaBusConfig.defaults().heartbeatInterval()).isNull();
        assertThat(PollLoop.consumerProperties(KafkaBusConfig.defaults())).doesNotContainKey("session.timeout.ms")
                .doesNotContainKey("heartbeat.interval.ms");

        KafkaBusConfig fast = KafkaBusConfig.builder().sessionTimeout(Duration.ofSeconds(6)).build();
        assertThat(fast.heartbeatInterval()).isEqualTo(Duration.ofSeconds(2));
        assertThat(PollLoop.consumerProperties(fast)).containsEntry("session.timeout.ms", "6000")
                .containsEntry("heartbeat.interval.ms", "2000");
        assertThat(KafkaBusConfig.builder().sessionTimeout(Duration.ofSeconds(60)).build().heartbeatInterval())
                .isEqualTo(Duration.ofSeconds(3));
        KafkaBusConfig set = KafkaBusConfig.builder().sessionTimeout(Duration.ofSeconds(10))
                .heartbeatInterval(Duration.ofMillis(500)).build();
        assertThat(PollLoop.consumerProperties(set)).containsEntry("heartbeat.interval.ms", "500");
        assertThat(set.toBuilder().build()).isEqualTo(set);

        assertThatThrownBy(() -> KafkaBusConfig.builder().sessionTimeout(Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sessionTimeout");
        assertThatThrownBy(() -> KafkaBusConfig.builder().heartbeatInterval(Duration.ofMillis(99)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("heartbeatInterval");
        assertThatThrownBy(() -> KafkaBusConfig.builder().sessionTimeout(Duration.ofSeconds(6))
                .heartbeatInterval(Duration.ofSeconds(6)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("shorter than sessionTimeout");
    }

    @Test
    void clientProperties_overrideTheBuses_butNotTheSettingsItsGuaranteesRestOn() {
        KafkaBusConfig c = KafkaBusConfig.builder().sessionTimeout(Duration.ofSeconds(6))
                .consumerProperty("max.poll.interval.ms", "600000").consumerProperty("session.timeout.ms", "7000")
                .producerProperty("linger.ms", "5").adminProperty("request.timeout.ms", "9000").build();
        assertThat(PollLoop.consumerProperties(c)).containsEntry("max.poll.interval.ms", "600000")
                .containsEntry("session.timeout.ms", "7000").containsEntry("isolation.level", "read_committed");
        assertThat(c.producerProperties()).containsEntry("linger.ms", "5");
        assertThat(c.adminProperties()).containsEntry("request.timeout.ms", "9000");
        assertThat(c.toBuilder().build()).isEqualTo(c);

        for (String reserved : KafkaBusConfig.RESERVED_CONSUMER_PROPERTIES.keySet()) {
            assertThatThrownBy(() -> KafkaBusConfig.builder().consumerProperty(reserved, "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(reserved);
        }
        assertThatThrownBy(() -> KafkaBusConfig.builder().consumerProperty("enable.auto.commit", "true"))
                .hasMessageContaining("offsets are committed when a turn's events are durable");
        for (String reserved : KafkaBusConfig.RESERVED_PRODUCER_PROPERTIES.keySet()) {
            assertThatThrownBy(() -> KafkaBusConfig.builder().producerProperty(reserved, "x"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(reserved);
        }
    }
}
