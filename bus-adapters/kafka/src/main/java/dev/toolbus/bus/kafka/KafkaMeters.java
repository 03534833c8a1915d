package dev.toolbus.bus.kafka;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** The bus's gauges (and exactly once a counter), tagged {@code bus=kafka}, {@code topic}, {@code group}. */
final class KafkaMeters {

    private KafkaMeters() {
    }

    /**
     * The gauges; and, when {@code hanging} is not null, the counters of aborted hanging transactions and
     * of the records written again after a lost marker ({@code rewritten}, when not null).
     */
    static void register(MeterRegistry registry, KafkaBusConfig config, PollLoop loop, HangingTransactions hanging,
                         AtomicLong rewritten) {
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
        if (hanging != null) {
            FunctionCounter.builder("toolbus.bus.hanging_transactions_aborted", hanging.aborted, AtomicLong::get)
                    .description("hanging transactions this instance aborted on the bus's output topics")
                    .tags(mine).register(registry);
        }
        if (hanging != null && rewritten != null) {
            FunctionCounter.builder("toolbus.bus.hanging_records_rewritten", rewritten, AtomicLong::get)
                    .description("records of committed transactions written again after a lost marker left them in a "
                            + "hanging transaction")
                    .tags(mine).register(registry);
        }
    }
}
