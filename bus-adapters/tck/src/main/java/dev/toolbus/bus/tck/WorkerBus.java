package dev.toolbus.bus.tck;

import dev.toolbus.spi.ToolBus;
import java.util.List;

/**
 * How {@link BusWorkerMain} makes its bus in a worker JVM: an adapter's test sources provide one
 * (with a public no-argument constructor) and name it to {@link Workers#start}.
 */
public interface WorkerBus {

    /** A started bus from the worker's arguments (addresses, key prefix, instance name, …). */
    ToolBus open(List<String> args) throws Exception;
}
