package dev.toolbus.bus.kafka;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Dead-letter records: the value (or its prefix), the reason, origin and client in headers. */
final class DeadLetters {

    private final KafkaBusConfig config;

    DeadLetters(KafkaBusConfig config) {
        this.config = config;
    }

    ProducerRecord<String, byte[]> record(ConsumerRecord<String, byte[]> source, byte[] value, String reason, String key) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(KafkaBus.HEADER_REASON, reason.getBytes(StandardCharsets.UTF_8));
        if (source != null) {
            headers.add(KafkaBus.HEADER_SOURCE, (source.topic() + "-" + source.partition() + "@" + source.offset())
                    .getBytes(StandardCharsets.UTF_8));
        }
        headers.add("toolbus.client", config.clientId().getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(config.deadLetterTopic(), null, key, value, headers);
    }
}
