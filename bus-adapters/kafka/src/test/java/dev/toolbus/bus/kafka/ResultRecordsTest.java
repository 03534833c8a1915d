package dev.toolbus.bus.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.TraceContext;
import dev.toolbus.protocol.TurnCompletedEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultRecordsTest {

    static final String TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Test
    void aTracedEventCarriesTheW3cHeadersAsWellAsItsJsonFields() {
        var event = new TurnCompletedEvent("s", "t", List.of("c"), 0, 1, new TraceContext(TP, "a=1"));
        var record = ResultRecords.of("results", "s", event, EventCodec.defaults());
        assertThat(new String(record.headers().lastHeader("traceparent").value(), StandardCharsets.US_ASCII))
                .isEqualTo(TP);
        assertThat(new String(record.headers().lastHeader("tracestate").value(), StandardCharsets.US_ASCII))
                .isEqualTo("a=1");
        assertThat(new String(record.value(), StandardCharsets.UTF_8)).contains("\"traceparent\":\"" + TP + "\"");
        assertThat(record.key()).isEqualTo("s");
        assertThat(record.topic()).isEqualTo("results");
    }

    @Test
    void anUntracedEventHasNoHeaders() {
        var record = ResultRecords.of("results", "s", new TurnCompletedEvent("s", "t", List.of("c"), 0, 1),
                EventCodec.defaults());
        assertThat(record.headers().toArray()).isEmpty();
        assertThat(new String(record.value(), StandardCharsets.UTF_8)).doesNotContain("trace");
    }
}
