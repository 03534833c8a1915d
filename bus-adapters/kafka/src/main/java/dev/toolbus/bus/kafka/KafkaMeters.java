package dev.toolbus.bus.kafka;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The bus's gauges, tagged {@code bus=kafka}, {@code topic}, {@code group}. */
final class KafkaMeters {

    private KafkaMeters() {
    }

    static void register(MeterRegistry registry, KafkaBusConfig config, PollLoop loop) {
        Tags tags = Tags.of("bus", "kafka", "topic", config.callsTopic(), "group", config.groupId());
        Tags mine = tags.and("client", config.clientId());
        Gauge.builder("toolbus.bus.lag", loop.lag, AtomicLong::get)
                .description("records of the assigned partitions not yet polled")
                .tags(tags).register(registry);
        Gauge.builder("toolbus.bus.pending", loop.pending, AtomicLong::get)
                .description("records of this instance's partitions polled and not yet complete")
                .tags(mine).register(registry);
        Gauge.builder("toolbus.bus.inflight", loop.inflight, AtomicInteger::get)
                .description("records handed to this instance's executor and not yet completed")
                .tags(mine).register(registry);
        Gauge.builder("toolbus.bus.buffered", loop.buffered, AtomicInteger::get)
                .description("records polled and not yet requested by the executor")
                .tags(mine).register(registry);
    }
}
