package dev.toolbus.bus.tck;

import dev.toolbus.spi.ToolBus;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * One test's view of a broker, behind the contract suites: it sends inputs the way a bot core does,
 * reads back what the buses wrote, builds bus instances, and checks the broker's own state. Every
 * name it uses (streams, topics, groups, keys) carries a prefix of its own, so tests never see each
 * other's data; {@link #close()} removes what it can and closes its clients.
 */
public interface BrokerFixture extends AutoCloseable {

    /** {@code redis} or {@code kafka}. */
    String name();

    /** The calls stream or topic inputs are sent to. */
    String callsName();

    /** A bus instance with these options, started (its group or topics exist); closed with the fixture. */
    ToolBus bus(BusOptions options);

    /** Sends one input of a conversation (keyed by its stream id where the broker has keys) and waits for the broker. */
    void send(String streamId, String json);

    /** Sends one input without waiting; {@link #flush()} waits for every such send. */
    void sendAsync(String streamId, String json);

    /** Waits until every {@link #sendAsync} was accepted by the broker. */
    void flush();

    /**
     * Sends one input while the broker restarts, retrying what the broker refuses meanwhile as a client
     * would; it may therefore be written twice (a bus answers the second copy with a replay).
     */
    void sendDuringRestart(String streamId, String json);

    /** An input without an event (Redis: an entry without the {@code event} field; Kafka: a record without a value). */
    void sendWithoutEvent(String streamId);

    /** The events written to one conversation, in order, as JSON text. */
    List<String> events(String streamId);

    /** How many events were written to these conversations in all (cheaper than reading them where the broker can count). */
    default long eventCount(Collection<String> streamIds) {
        return events(streamIds).values().stream().mapToLong(List::size).sum();
    }

    /** The events written to each of these conversations, in order. */
    Map<String, List<String>> events(Collection<String> streamIds);

    /** The inputs dead-lettered so far, in order. */
    List<DeadLetter> deadLetters();

    /** Every input sent so far is settled (acknowledged or committed); nothing is left to deliver again. */
    boolean settled();

    /**
     * What a test that timed out waiting for {@link #settled()} reports of the broker: by default only
     * whether it is settled; a broker adds what it knows (Kafka: committed and end offsets, group state).
     */
    default String progress() {
        return settled() ? "settled" : "not settled";
    }

    /** Waits until the group is healthy: every input settled, nothing undelivered, and (Kafka) this many stable members. */
    void awaitGroupHealthy(int members);

    /** Waits until this many instances share the group's work (Kafka: the group is stable with them); at once where that is immediate. */
    void awaitMembers(int members);

    /** Inputs handed to this bus's executor and not settled yet. */
    int inflight(ToolBus bus);

    /** Starts the broker's restart (stop, start on the same data and port); the process ends when it is back. */
    Process restartBroker() throws Exception;

    @Override
    void close();
}
