package dev.toolbus.bus.redis;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;

/**
 * One executor instance on a Redis bus, run as its own JVM by {@link RedisKillRecoveryTest}: a trivial
 * {@code echo} tool, the keys of the test's prefix. Args: redis URL, key prefix, consumer name.
 */
public final class RedisWorkerMain {

    private RedisWorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String prefix = args[1];
        String consumer = args[2];
        RedisStreamsConfig config = RedisTestSupport.configFor(prefix)
                .consumer(consumer)
                .resultsMaxLen(0)
                .claimMinIdle(Duration.ofSeconds(2))
                .claimInterval(Duration.ofMillis(500))
                .shutdownTimeout(Duration.ofSeconds(10))
                .build();
        ToolExecutor executor = ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json))
                .build();
        RedisStreamsBus bus = RedisStreamsBus.fromUri(url, config);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            bus.closeGracefully().block(Duration.ofSeconds(20));
            executor.close();
        }));
        executor.attach(bus);
        System.out.println("READY " + consumer);
        System.out.flush();
        Thread.currentThread().join();
    }
}
