package dev.toolbus.spring;

import dev.toolbus.config.Config;
import dev.toolbus.spi.ToolBus;
import org.springframework.util.ClassUtils;

/** Opens the bus of {@code toolbus.bus.*}; each broker's classes are touched only when that adapter is present. */
final class BusStarter {

    private BusStarter() {
    }

    static ToolBus open(Config.Bus b) {
        ClassLoader cl = BusStarter.class.getClassLoader();
        String group = b.group().isBlank() ? "toolbus" : b.group();
        String consumer = b.consumer().isBlank() ? "toolbus-spring-" + ProcessHandle.current().pid() : b.consumer();
        if (b.type().equals("redis")) {
            require(cl, "dev.toolbus.bus.redis.RedisStreamsBus", "toolbus-bus-redis");
            return dev.toolbus.bus.redis.RedisStreamsBus.fromUri(b.url(), dev.toolbus.bus.redis.RedisStreamsConfig.builder()
                    .callsStream(b.calls()).resultsKeyTemplate(b.results()).deadLetterStream(b.deadLetter())
                    .group(group).consumer(consumer).build());
        }
        require(cl, "dev.toolbus.bus.kafka.KafkaBus", "toolbus-bus-kafka");
        return dev.toolbus.bus.kafka.KafkaBus.fromUri(b.url(), dev.toolbus.bus.kafka.KafkaBusConfig.builder()
                .bootstrapServers(b.url()).callsTopic(b.calls()).resultsTopic(b.results())
                .deadLetterTopic(b.deadLetter()).groupId(group).clientId(consumer).build());
    }

    private static void require(ClassLoader cl, String cls, String artifact) {
        if (!ClassUtils.isPresent(cls, cl)) {
            throw new IllegalStateException("toolbus.bus.type needs " + artifact + " on the classpath: add the "
                    + "dependency dev.toolbus:" + artifact);
        }
    }
}
