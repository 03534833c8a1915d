package dev.toolbus.bus.kafka;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;

/**
 * One executor instance on a Kafka bus, run as its own JVM by {@link KafkaKillRecoveryTest}: a trivial
 * {@code echo} tool, the topics of the test's prefix. Args: bootstrap servers, topic prefix, client id,
 * and optionally the {@link KafkaDelivery} (default exactly once).
 */
public final class KafkaWorkerMain {

    private KafkaWorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        KafkaBusConfig config = KafkaTestSupport.configFor(args[0], args[1])
                .clientId(args[2])
                .topicPartitions(6)
                .shutdownTimeout(Duration.ofSeconds(10))
                .delivery(args.length > 3 ? KafkaDelivery.valueOf(args[3]) : KafkaDelivery.EXACTLY_ONCE)
                .build();
        ToolExecutor executor = ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json))
                .build();
        KafkaBus bus = KafkaBus.builder().config(config).build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            bus.closeGracefully().block(Duration.ofSeconds(30));
            executor.close();
        }));
        bus.start().block(Duration.ofSeconds(30));
        executor.attach(bus);
        System.out.println("READY " + args[2]);
        System.out.flush();
        Thread.currentThread().join();
    }
}
