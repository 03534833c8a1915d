package dev.toolbus.mcp.server;

import java.time.Clock;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;

/**
 * {@link McpTaskStore} in memory: a map in creation order under one lock, bounded in entries and
 * bytes; expired tasks (TTL from creation, on the injected clock) are dropped when met and, oldest
 * first, before a create. A create that still finds no room fails: running tasks are never evicted
 * to make room (their clients would lose them); ended ones are, oldest first.
 */
final class InMemoryTaskStore implements McpTaskStore {

    private final int maxTasks;
    private final long maxBytes;
    private final Clock clock;
    private final Map<String, McpTask> tasks = new LinkedHashMap<>();
    private long bytes;

    InMemoryTaskStore(int maxTasks, long maxBytes, Clock clock) {
        if (maxTasks < 1 || maxBytes < 1024) {
            throw new IllegalArgumentException("a task store needs room for at least one task and 1 KiB");
        }
        this.maxTasks = maxTasks;
        this.maxBytes = maxBytes;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public Mono<Void> create(McpTask task) {
        return Mono.fromRunnable(() -> {
            synchronized (this) {
                if (tasks.containsKey(task.taskId())) {
                    throw new IllegalStateException("task id " + task.taskId() + " is taken");
                }
                int w = task.weight();
                makeRoom(w);
                if (tasks.size() >= maxTasks || bytes + w > maxBytes) {
                    throw new IllegalStateException("the task store is full (" + tasks.size() + " tasks, " + bytes
                            + " bytes; at most " + maxTasks + " and " + maxBytes + ")");
                }
                tasks.put(task.taskId(), task);
                bytes += w;
            }
        });
    }

    /** Drops expired tasks, then ended ones (oldest first) until {@code w} more bytes and one more task fit. */
    private void makeRoom(int w) {
        Instant now = clock.instant();
        for (Iterator<McpTask> it = tasks.values().iterator(); it.hasNext(); ) {
            McpTask t = it.next();
            if (expired(t, now)) {
                it.remove();
                bytes -= t.weight();
            }
        }
        for (Iterator<McpTask> it = tasks.values().iterator(); it.hasNext()
                && (tasks.size() >= maxTasks || bytes + w > maxBytes); ) {
            McpTask t = it.next();
            if (t.status().terminal()) {
                it.remove();
                bytes -= t.weight();
            }
        }
    }

    private static boolean expired(McpTask t, Instant now) {
        Instant at = t.expiresAt();
        return at != null && !now.isBefore(at);
    }

    @Override
    public Mono<McpTask> get(String taskId, String principal) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                McpTask t = live(taskId);
                return t != null && t.principal().equals(principal) ? t : null;
            }
        });
    }

    private McpTask live(String taskId) {
        McpTask t = tasks.get(taskId);
        if (t != null && expired(t, clock.instant())) {
            tasks.remove(taskId);
            bytes -= t.weight();
            return null;
        }
        return t;
    }

    @Override
    public Mono<McpTask> update(String taskId, UnaryOperator<McpTask> change) {
        return Mono.fromSupplier(() -> {
            synchronized (this) {
                McpTask old = live(taskId);
                if (old == null) {
                    return null;
                }
                McpTask next = change.apply(old);
                if (next == null || next == old) {
                    return old;
                }
                if (!next.taskId().equals(taskId) || !next.principal().equals(old.principal())) {
                    throw new IllegalArgumentException("a task update may not change its id or principal");
                }
                bytes += next.weight() - old.weight();
                tasks.put(taskId, next);
                return next;
            }
        });
    }

    @Override
    public synchronized long size() {
        return tasks.size();
    }

    /** Their weight (tests). */
    synchronized long bytes() {
        return bytes;
    }
}
