package dev.toolbus.bus.kafka;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.bus.tck.WorkerBus;
import java.time.Duration;
import java.util.List;

/**
 * The bus of a Kafka worker JVM ({@code BusWorkerMain}): args bootstrap servers, topic prefix, client
 * id, and the {@link KafkaDelivery}. Six partitions, so both instances of a test hold several.
 */
public final class KafkaWorkerBus implements WorkerBus {

    @Override
    public ToolBus open(List<String> args) {
        KafkaBusConfig config = KafkaFixture.configFor(args.get(0), args.get(1))
                .clientId(args.get(2))
                .topicPartitions(6)
                .shutdownTimeout(Duration.ofSeconds(10))
                .delivery(KafkaDelivery.valueOf(args.get(3)))
                .build();
        KafkaBus bus = KafkaBus.builder().config(config).build();
        bus.start().block(Duration.ofSeconds(30));
        return bus;
    }
}
