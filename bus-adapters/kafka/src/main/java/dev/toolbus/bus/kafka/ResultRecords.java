package dev.toolbus.bus.kafka;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.TraceContext;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The record of one outbound event: the event's JSON as the value and, when the event carries a trace
 * context, the W3C {@code traceparent}/{@code tracestate} record headers (a copy of the JSON fields, for
 * consumers and tools that read Kafka headers; the JSON stays the source of truth).
 */
final class ResultRecords {

    static final String TRACEPARENT = "traceparent";
    static final String TRACESTATE = "tracestate";

    private ResultRecords() {
    }

    static ProducerRecord<String, byte[]> of(String topic, String key, OutboundEvent event, EventCodec codec) {
        byte[] value = codec.encodeToBytes(event);
        TraceContext trace = event.trace();
        if (trace == null) {
            return new ProducerRecord<>(topic, key, value);
        }
        RecordHeaders headers = new RecordHeaders();
        headers.add(TRACEPARENT, trace.traceparent().getBytes(StandardCharsets.US_ASCII));
        if (trace.tracestate() != null) {
            headers.add(TRACESTATE, trace.tracestate().getBytes(StandardCharsets.US_ASCII));
        }
        return new ProducerRecord<>(topic, null, key, value, headers);
    }
}
