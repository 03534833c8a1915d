package dev.toolbus.bus.tck;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * One executor instance with a trivial {@code echo} tool on a bus, run as its own JVM by the kill
 * recovery suite so that it can be killed with SIGKILL. Args: the {@link WorkerBus} class, then its
 * arguments. Prints {@code READY <name>} once attached; a SIGTERM closes the bus gracefully.
 */
public final class BusWorkerMain {

    private BusWorkerMain() {
    }

    public static void main(String[] args) throws Exception {
        WorkerBus factory = (WorkerBus) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        List<String> rest = Arrays.asList(args).subList(1, args.length);
        ToolBus bus = factory.open(rest);
        ToolExecutor executor = ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json))
                .build();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            bus.closeGracefully().block(Duration.ofSeconds(30));
            executor.close();
        }));
        executor.attach(bus);
        System.out.println("READY " + String.join(" ", rest));
        System.out.flush();
        Thread.currentThread().join();
    }
}
