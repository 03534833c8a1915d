package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolsEvent;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.Visibility;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

class ToolExecutorBusTest {

    @Test
    void turnsOnTheInMemoryBusAreRunPublishedAndBadInputIsAnsweredOrDeadLettered() {
        InMemoryBus bus = InMemoryBus.create();
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo()).build();
        var s1 = bus.events("s1").take(4).collectList().toFuture();
        var s2 = bus.events("s2").take(1).collectList().toFuture();
        var dead = bus.deadLetters().take(1).collectList().toFuture();
        Disposable running = ex.attach(bus);
        bus.send(turn("s1", "t1", call("a", "echo", "{\"text\":\"one\"}")));
        bus.send("{\"type\":\"tool_calls\",\"stream_id\":\"s2\",\"calls\":7}");
        bus.send("this is not json");
        bus.send(turn("s1", "t2", call("b", "echo", "{\"text\":\"two\"}")));
        List<OutboundEvent> one = s1.join();
        assertThat(one).extracting(OutboundEvent::type)
                .containsExactly("tool_result", "turn_completed", "tool_result", "turn_completed");
        ErrorEvent err = (ErrorEvent) s2.join().get(0);
        assertThat(err.code()).isEqualTo(ErrorCode.BAD_EVENT);
        assertThat(err.streamId()).isEqualTo("s2");
        assertThat(dead.join().get(0)).containsIgnoringCase("json");
        running.dispose();
    }

    @Test
    void runCompletesWhenTheInputEndsAfterEveryTurnIsPublished() {
        InMemoryBus bus = InMemoryBus.create();
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo()).build();
        var all = bus.events().filter(e -> e.type().equals("turn_completed")).take(50).count().toFuture();
        for (int i = 0; i < 50; i++) {
            bus.send(turn("s" + (i % 5), "t" + i, call("c", "echo", "{\"text\":\"x\"}")));
        }
        bus.complete();
        ex.run(bus).block(Duration.ofSeconds(10));
        assertThat(all.join()).isEqualTo(50);
    }

    @Test
    void listToolsAnswersWithVisibleToolsTheSessionMaySee() {
        ToolSpec hidden = new ToolSpec(ToolDefinition.builder("h").description("h").visibility(Visibility.HIDDEN)
                .build(), (a, c) -> Mono.just(ToolResult.text("")));
        ToolSpec deferred = new ToolSpec(ToolDefinition.builder("d").description("d")
                .visibility(Visibility.DEFERRED).build(), (a, c) -> Mono.just(ToolResult.text("")));
        ToolSpec admin = new ToolSpec(ToolDefinition.builder("admin_only").description("a").build(),
                (a, c) -> Mono.just(ToolResult.text("")));
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.echo()).tool(hidden).tool(deferred).tool(admin)
                .policy((t, s, c) -> t.name().equals("admin_only") && !c.permission().equals("admin")
                        ? ToolPolicy.Decision.notAvailable("") : ToolPolicy.Decision.ALLOW)
                .build();
        ToolsEvent tools = ex.listTools(new ListToolsEvent("s", "r1", null, ListToolsEvent.Format.ANTHROPIC));
        assertThat(tools.requestId()).isEqualTo("r1");
        assertThat(tools.format()).isEqualTo("anthropic");
        assertThat(tools.tools()).extracting(t -> t.get("name").asText()).containsExactly("echo");
        assertThat(tools.tools().get(0).has("input_schema")).isTrue();
    }

    @Test
    void closeGracefullyLetsRunningTurnsFinishAndRejectsNewOnes() {
        AtomicInteger runs = new AtomicInteger();
        // the call runs until the test lets it finish, so the close is sure to find it running however slow the machine
        reactor.core.publisher.Sinks.Empty<Void> release = reactor.core.publisher.Sinks.empty();
        ToolSpec slow = new ToolSpec(ToolDefinition.builder("slow").description("s").build(),
                (a, c) -> release.asMono().then(Mono.fromSupplier(() -> ToolResult.text("done " + runs.incrementAndGet()))));
        ToolExecutor ex = ToolExecutor.builder().tool(slow).build();
        var running = ex.execute(turn("s", "t1", call("c", "slow", "{}"))).collectList().toFuture();
        // wait until the call is really running
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ex.inflight() == 1);
        var closed = ex.closeGracefully().toFuture();
        List<OutboundEvent> late = ex.execute(turn("s2", "t2", call("c", "slow", "{}")))
                .collectList().block(Duration.ofSeconds(30));
        assertThat(TestTools.results(late).get(0).error().code()).isEqualTo(ErrorCode.REJECTED);
        assertThat(closed).isNotDone();
        release.tryEmitEmpty();
        closed.join();
        assertThat(running.join()).extracting(OutboundEvent::type).containsExactly("tool_result", "turn_completed");
        assertThat(runs).hasValue(1);
    }
}
