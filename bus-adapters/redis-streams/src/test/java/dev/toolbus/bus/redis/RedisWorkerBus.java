package dev.toolbus.bus.redis;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.bus.tck.WorkerBus;
import java.time.Duration;
import java.util.List;

/**
 * The bus of a Redis worker JVM ({@code BusWorkerMain}): args redis URL, key prefix, consumer name.
 * Idle entries are taken over after 2 s, so a killed instance's turns move soon.
 */
public final class RedisWorkerBus implements WorkerBus {

    @Override
    public ToolBus open(List<String> args) {
        RedisStreamsConfig config = RedisFixture.configFor(args.get(1))
                .consumer(args.get(2))
                .resultsMaxLen(0)
                .claimMinIdle(Duration.ofSeconds(2))
                .claimInterval(Duration.ofMillis(500))
                .shutdownTimeout(Duration.ofSeconds(10))
                .build();
        RedisStreamsBus bus = RedisStreamsBus.fromUri(args.get(0), config);
        bus.start().block(Duration.ofSeconds(30));
        return bus;
    }
}
