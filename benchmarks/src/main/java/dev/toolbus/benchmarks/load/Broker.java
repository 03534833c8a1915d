package dev.toolbus.benchmarks.load;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/** What the harness needs of a broker: fresh state per scenario, publishing, reading results back. */
interface Broker extends AutoCloseable {

    /** {@code redis} or {@code kafka}. */
    String name();

    /** The {@code --bus} address of {@code toolbus serve}. */
    String busUri();

    /**
     * Makes the broker ready for a scenario whose turns nobody has seen: no turns left from an earlier
     * scenario will be delivered to the returned consumer group. Starts reading results for {@code loop}
     * (replaced with {@link #follow}).
     */
    String prepare(String scenario) throws Exception;

    /** Hands the output events read from now on to this phase. */
    void follow(ClosedLoop loop);

    /** Publishes one inbound event as a bot core does, without waiting. */
    void publish(String streamId, byte[] event);

    /** Waits until {@code instances} consumers are reading in the group (and, on Kafka, own every partition). */
    void awaitConsumers(String group, int instances, Duration timeout) throws Exception;

    /** The main class and arguments of the raw client loop on this broker. */
    List<String> rawWorker(String group, String instance);

    /**
     * Commands the broker has processed so far by name (all clients, the harness's own and those run
     * inside scripts included), or empty when the broker does not tell: the consumers' commands per
     * turn, beside their CPU.
     */
    default Map<String, Long> commandCounts() {
        return Map.of();
    }

    /**
     * What the broker has written so far, by name, where it tells (on Kafka, per topic, internal ones
     * included: {@code <topic> records}, the sum of its partitions' end offsets, transaction markers
     * included, and {@code <topic> bytes}, the size of its log on disk), or empty: the records and bytes
     * a turn costs, which do not depend on the machine's load.
     */
    default Map<String, Long> writeCounts() {
        return Map.of();
    }

    /** Stops reading results after a scenario. */
    void finish() throws Exception;

    @Override
    void close() throws Exception;
}
