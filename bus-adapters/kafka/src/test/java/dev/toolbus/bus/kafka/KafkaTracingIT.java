package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.tck.AbstractBusTracingTests;
import dev.toolbus.bus.tck.BrokerFixture;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Tracing over Kafka: each result record also names its span in the {@code traceparent} header. */
class KafkaTracingIT extends AbstractBusTracingTests {

    private KafkaFixture kafka;

    @Override
    protected BrokerFixture openBroker() {
        return kafka = KafkaFixture.require();
    }

    @Override
    protected void assertTraceOutsideTheJson(String streamId, List<String> traceparents, String tracestate) {
        List<ConsumerRecord<String, byte[]>> records = kafka.results().stream().filter(r -> streamId.equals(r.key())).toList();
        assertThat(records).hasSameSizeAs(traceparents);
        for (int i = 0; i < records.size(); i++) {
            assertThat(KafkaFixture.header(records.get(i), "traceparent")).as("traceparent header of record %d", i)
                    .isEqualTo(traceparents.get(i));
            assertThat(KafkaFixture.header(records.get(i), "tracestate")).isEqualTo(tracestate);
        }
    }
}
