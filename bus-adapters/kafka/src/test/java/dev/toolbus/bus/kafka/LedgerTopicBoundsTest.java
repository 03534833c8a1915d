package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** The Kafka bus's in-memory ledger of finished turns: bounded by its window (time) and by bytes. */
class LedgerTopicBoundsTest {

    private long now = 1_000_000;
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(now);
        }
    };

    private static KafkaBusConfig.Builder config() {
        return KafkaBusConfig.builder().bootstrapServers("127.0.0.1:9").resultsTopic("r");
    }

    private static byte[] event(String turn) {
        return ("{\"type\":\"turn_completed\",\"turn_id\":\"" + turn + "\"}\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aFinishedTurnIsFoundWithinTheWindowAndForgottenAfterIt() {
        LedgerTopic ledger = new LedgerTopic(config().turnLedgerWindow(Duration.ofMinutes(10)).build(), clock);
        ledger.put("s\u0000t1", event("t1"), now);
        now += Duration.ofMinutes(10).toMillis();
        assertThat(ledger.find("s\u0000t1")).hasSize(1);
        now += 1;
        assertThat(ledger.find("s\u0000t1")).isNull();
    }

    @Test
    void anOlderRecordRestoredAfterAYoungerOneStillExpiresOnTime() {
        LedgerTopic ledger = new LedgerTopic(config().turnLedgerWindow(Duration.ofMinutes(10)).build(), clock);
        ledger.put("s\u0000young", event("young"), now);
        ledger.put("s\u0000old", event("old"), now - Duration.ofMinutes(9).toMillis()); // restored from the topic
        now += Duration.ofMinutes(2).toMillis();
        assertThat(ledger.find("s\u0000old")).isNull();
        assertThat(ledger.find("s\u0000young")).hasSize(1);
    }

    @Test
    void theOldestTurnsAreEvictedOnceTheBytesAreFull() {
        // each entry weighs its value, its key (2 bytes a char) and 64 bytes: about 150 bytes here
        LedgerTopic ledger = new LedgerTopic(config().turnLedgerMaxBytes(1_000).build(), clock);
        for (int i = 0; i < 100; i++) {
            ledger.put("s\u0000t" + i, event("t" + i), now);
        }
        assertThat(ledger.find("s\u0000t99")).hasSize(1);
        assertThat(ledger.find("s\u0000t0")).isNull();
        int kept = 0;
        for (int i = 0; i < 100; i++) {
            kept += ledger.find("s\u0000t" + i) == null ? 0 : 1;
        }
        assertThat(kept).isBetween(1, 10);
    }

    @Test
    void eventsAboveMaxRecordedBytesAreRecordedAsAnEmptyValue() {
        LedgerTopic ledger = new LedgerTopic(config().maxRecordedBytes(10).build(), clock);
        ProducerRecord<String, byte[]> small = ledger.record(0, "k", List.of(new ProducerRecord<>("r", "s", "{}".getBytes(StandardCharsets.UTF_8))));
        ProducerRecord<String, byte[]> large = ledger.record(0, "k", List.of(new ProducerRecord<>("r", "s", event("t1"))));
        assertThat(new String(small.value(), StandardCharsets.UTF_8)).isEqualTo("{}\n");
        assertThat(large.value()).isEmpty();
    }
}
