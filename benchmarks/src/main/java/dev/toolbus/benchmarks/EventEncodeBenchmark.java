package dev.toolbus.benchmarks;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * What encoding a one-call turn's outbound events (a {@code tool_result} and its {@code turn_completed})
 * costs a bus: through a {@code String} and {@code getBytes} ({@code viaString}, what the buses did) or
 * straight to UTF-8 ({@code toBytes}, {@link EventCodec#encodeToBytes}). Compare time and
 * {@code gc.alloc.rate.norm} ({@code -prof gc}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class EventEncodeBenchmark {

    private final EventCodec codec = EventCodec.defaults();
    private final List<OutboundEvent> events = List.of(
            ToolResultEvent.builder().streamId("qq:group:123").turnId("msg-42").toolCallId("call_1").name("weather")
                    .content("Sunny, 21 °C in Zürich; wind 10 km/h from the west.")
                    .data(Map.of("city", "Zürich", "temp_c", 21, "wind_kmh", 10)).attempts(1).build(),
            new TurnCompletedEvent("qq:group:123", "msg-42", List.of("call_1"), 0, 12));

    @Benchmark
    public int viaString() {
        int n = 0;
        for (OutboundEvent e : events) {
            n += codec.encode(e).getBytes(StandardCharsets.UTF_8).length;
        }
        return n;
    }

    @Benchmark
    public int toBytes() {
        int n = 0;
        for (OutboundEvent e : events) {
            n += codec.encodeToBytes(e).length;
        }
        return n;
    }
}
