package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * {@link McpTaskStore}'s contract on the in-memory store (a Redis or Kafka turn state keeping tasks
 * subclasses the same cases when it comes): readable once created, never another principal's, gone
 * after its TTL (from creation, on the injected clock), atomic updates, bounded in entries and bytes
 * without evicting running tasks.
 */
class InMemoryTaskStoreTest {

    /** A clock the test moves. */
    static final class MovingClock extends Clock {
        final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-12-01T10:00:00Z"));

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }

        void advance(Duration d) {
            now.updateAndGet(i -> i.plus(d));
        }
    }

    final MovingClock clock = new MovingClock();

    McpTaskStore store(int maxTasks, long maxBytes) {
        return McpTaskStore.inMemory(maxTasks, maxBytes, clock);
    }

    McpTask task(String id, String principal, McpTask.Status status, Duration ttl) {
        return new McpTask(id, principal, "s", "t", "c", "echo", false, status, null, clock.instant(), clock.instant(),
                ttl, Duration.ofSeconds(1), null, null, null);
    }

    @Test
    void aCreatedTask_isReadable_onlyByItsPrincipal() {
        McpTaskStore s = store(10, 1 << 20);
        StepVerifier.create(s.create(task("a", "alice", McpTask.Status.WORKING, Duration.ofMinutes(1)))).verifyComplete();
        StepVerifier.create(s.get("a", "alice")).assertNext(t -> assertThat(t.taskId()).isEqualTo("a")).verifyComplete();
        StepVerifier.create(s.get("a", "mallory")).verifyComplete();
        StepVerifier.create(s.get("nope", "alice")).verifyComplete();
    }

    @Test
    void aTask_isGoneAfterItsTtl_countedFromCreation() {
        McpTaskStore s = store(10, 1 << 20);
        s.create(task("a", "alice", McpTask.Status.WORKING, Duration.ofSeconds(30))).block();
        clock.advance(Duration.ofSeconds(20));
        s.update("a", t -> t.message("still going", clock.instant())).block();
        clock.advance(Duration.ofSeconds(9));
        StepVerifier.create(s.get("a", "alice")).expectNextCount(1).verifyComplete();
        clock.advance(Duration.ofSeconds(1));
        StepVerifier.create(s.get("a", "alice")).verifyComplete();
        StepVerifier.create(s.update("a", t -> t)).verifyComplete();
        assertThat(s.size()).isZero();
    }

    @Test
    void updates_areAtomic_andKeepIdAndPrincipal() {
        McpTaskStore s = store(10, 1 << 20);
        s.create(task("a", "alice", McpTask.Status.WORKING, null)).block();
        ObjectNode requests = JsonNodeFactory.instance.objectNode();
        requests.putObject("confirm").put("method", "elicitation/create");
        StepVerifier.create(s.update("a", t -> t.waiting(requests, clock.instant())))
                .assertNext(t -> assertThat(t.status()).isEqualTo(McpTask.Status.INPUT_REQUIRED)).verifyComplete();
        StepVerifier.create(s.update("a", t -> t.waiting(JsonNodeFactory.instance.objectNode(), clock.instant())))
                .assertNext(t -> assertThat(t.status()).isEqualTo(McpTask.Status.WORKING)).verifyComplete();
        StepVerifier.create(s.update("a", t -> task("b", "alice", McpTask.Status.WORKING, null)))
                .verifyError(IllegalArgumentException.class);
    }

    @Test
    void theStore_isBounded_andMakesRoomWithEndedTasksOnly() {
        McpTaskStore s = store(2, 1 << 20);
        s.create(task("a", "alice", McpTask.Status.WORKING, null)).block();
        s.create(task("b", "alice", McpTask.Status.WORKING, null)).block();
        StepVerifier.create(s.create(task("c", "alice", McpTask.Status.WORKING, null)))
                .verifyError(IllegalStateException.class);
        s.update("a", t -> t.ended(McpTask.Status.COMPLETED, null, null, null, clock.instant())).block();
        StepVerifier.create(s.create(task("c", "alice", McpTask.Status.WORKING, null))).verifyComplete();
        StepVerifier.create(s.get("a", "alice")).as("the ended task made room").verifyComplete();
        StepVerifier.create(s.get("b", "alice")).expectNextCount(1).verifyComplete();

        McpTaskStore small = store(100, 2048);
        small.create(task("x", "alice", McpTask.Status.WORKING, null)).block();
        McpTask big = new McpTask("y", "alice", "s", "t", "c", "echo", false, McpTask.Status.WORKING, "z".repeat(4000),
                clock.instant(), clock.instant(), null, Duration.ofSeconds(1), null, null, null);
        StepVerifier.create(small.create(big)).as("bounded in bytes").verifyError(IllegalStateException.class);
    }
}
