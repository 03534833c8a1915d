package dev.toolbus.bus.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Keys built from several ids never collide (issue 21, M10): {@code (chat:x, y:z)} and
 * {@code (chat:x:y, z)} are two turns, whether the second arrives after the first finished (its
 * finished-turn record) or while it runs (its running-turn claim). Before the keys were hashed, both
 * turns had the key {@code toolbus:done:chat:x:y:z}: the second was answered with the first's events.
 */
class RedisKeysIT {

    private RedisFixture redis;
    private final AtomicInteger runs = new AtomicInteger();
    private final Sinks.Empty<Void> gate = Sinks.empty();
    private ToolExecutor executor;
    private RedisStreamsBus bus;

    @BeforeEach
    void setUp() {
        redis = RedisFixture.require();
        ToolSpec tool = new ToolSpec(ToolDefinition.builder("say").description("says its text").build(),
                (a, c) -> Mono.fromRunnable(runs::incrementAndGet)
                        .then(a.json().contains("wait") ? gate.asMono() : Mono.empty())
                        .then(Mono.fromSupplier(() -> ToolResult.text("said " + a.json()))));
        executor = ToolExecutor.builder().tool(tool).build();
        bus = RedisStreamsBus.fromUri(redis.url, redis.config().build());
        executor.attach(bus);
    }

    @AfterEach
    void tearDown() {
        gate.tryEmitEmpty();
        bus.closeGracefully().block(Duration.ofSeconds(10));
        executor.close();
        redis.close();
    }

    private static String turn(String streamId, String turnId, String text) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + streamId + "\",\"turn_id\":\"" + turnId
                + "\",\"calls\":[{\"tool_call_id\":\"c1\",\"name\":\"say\",\"arguments\":{\"text\":\"" + text + "\"}}]}";
    }

    private List<String> results(String streamId) {
        return redis.events(streamId);
    }

    @Test
    void aTurnWhoseStreamAndTurnIdsJoinToAnotherTurnsKey_runsAfterThatTurnFinished() {
        redis.addCall(turn("chat:x", "y:z", "first"));
        await().atMost(Duration.ofSeconds(20)).until(() -> results("chat:x").size() == 2);
        redis.addCall(turn("chat:x:y", "z", "second"));
        await().atMost(Duration.ofSeconds(20)).until(() -> results("chat:x:y").size() == 2 && redis.pending() == 0);
        assertThat(results("chat:x:y").get(0)).contains("said").contains("second").doesNotContain("replayed");
        assertThat(runs.get()).isEqualTo(2);
    }

    @Test
    void aTurnWhoseStreamAndTurnIdsJoinToAnotherTurnsKey_runsWhileThatTurnRuns() {
        redis.addCall(turn("chat:x", "y:z", "wait"));
        await().atMost(Duration.ofSeconds(20)).until(() -> runs.get() == 1);
        redis.addCall(turn("chat:x:y", "z", "second"));
        await().atMost(Duration.ofSeconds(20)).until(() -> results("chat:x:y").size() == 2);
        assertThat(results("chat:x:y").get(0)).contains("second");
        gate.tryEmitEmpty();
        await().atMost(Duration.ofSeconds(20)).until(() -> results("chat:x").size() == 2 && redis.pending() == 0);
        assertThat(results("chat:x").get(0)).contains("wait");
        assertThat(runs.get()).isEqualTo(2);
    }

    @Test
    void theKeysOfATurn_areHashesOfItsPrincipalStreamAndTurnIds() {
        RedisStreamsConfig c = redis.config().build();
        assertThat(c.doneMarkerKey("chat:x", "y:z")).isNotEqualTo(c.doneMarkerKey("chat:x:y", "z"))
                .startsWith(redis.prefix + "done:").hasSize((redis.prefix + "done:").length() + 64);
    }
}
