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
}
