package dev.toolbus.mcp.server;

import java.time.Clock;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/**
 * Where an {@link McpToolServer} keeps its tasks (the MCP Tasks extension and the 2025-11-25 tasks).
 *
 * <p>The contract, which every implementation keeps: {@link #create} completes only once
 * {@link #get} finds the task (a client may poll the moment it has the id); {@link #get} never
 * returns another principal's task, nor one whose TTL (counted from creation) has passed;
 * {@link #update} applies its change atomically to the stored value; the store is bounded in
 * entries and bytes, and a create beyond the bound fails with {@link IllegalStateException} (the
 * call is then refused, never lost). Its shape is that of a facet of the turn state a bus brings
 * (issue 20), so a Redis or Kafka turn state can keep tasks beside its other records and a task can
 * outlive its instance; {@link #inMemory} is the one this module has.
 */
public interface McpTaskStore {

    /**
     * Stores a new task.
     *
     * @return completes when the task is readable; fails with {@link IllegalStateException} when full
     */
    Mono<Void> create(McpTask task);

    /** The task of this id if {@code principal} created it and it has not expired; else empty. */
    Mono<McpTask> get(String taskId, String principal);

    /**
     * Applies {@code change} to the stored task atomically.
     *
     * @return the new value, or empty when the task is gone
     */
    Mono<McpTask> update(String taskId, UnaryOperator<McpTask> change);

    /** How many tasks are kept now. */
    long size();

    /**
     * A store in this process's memory.
     *
     * @param maxTasks the most tasks kept at once
     * @param maxBytes their total {@linkplain McpTask#weight() weight}
     * @param clock the clock of the TTLs
     */
    static McpTaskStore inMemory(int maxTasks, long maxBytes, Clock clock) {
        return new InMemoryTaskStore(maxTasks, maxBytes, clock);
    }
}
