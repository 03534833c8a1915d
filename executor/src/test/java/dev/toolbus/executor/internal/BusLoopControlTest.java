package dev.toolbus.executor.internal;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.executor.TestTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.ToolBus;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Control events on a bus whose turns are at {@code maxInflightTurns}: they get through, and the bus stays bounded. */
class BusLoopControlTest {

    /** The in-memory bus, counting the messages the loop took. */
    private static ToolBus counting(InMemoryBus bus, AtomicInteger taken) {
        return new ToolBus() {
            @Override
            public Flux<BusMessage> receive() {
                return bus.receive().doOnNext(m -> taken.incrementAndGet());
            }

            @Override
            public Mono<Void> publish(List<OutboundEvent> events) {
                return bus.publish(events);
            }

            @Override
            public Mono<Void> closeGracefully() {
                return bus.closeGracefully();
            }
        };
    }

    @Test
    void aCancelGetsThroughWhileTurnsAreAtTheLimitAndMoreAreQueued() throws Exception {
        InMemoryBus bus = InMemoryBus.create();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().maxInflightTurns(2)
                .tool(TestTools.hang(started, cancelled)).tool(TestTools.echo()).build();
        var a = bus.events("A").take(2).collectList().toFuture();
        var c = bus.events("C").take(2).collectList().toFuture();
        Disposable d = ex.attach(bus);
        try {
            bus.send(turn("A", "t1", call("a1", "hang", "{}")));
            bus.send(turn("B", "t1", call("b1", "hang", "{}")));
            await().atMost(Duration.ofSeconds(5)).until(() -> started.get() == 2);
            // two long turns in flight: these wait for a slot
            bus.send(turn("C", "t1", call("c1", "echo", "{\"text\":\"third\"}")));
            bus.send(turn("D", "t1", call("d1", "hang", "{}")));
            bus.send(CancelEvent.builder().streamId("A").turnId("t1").toolCallId("a1").reason("stop").build());
            List<OutboundEvent> outA = a.get(5, TimeUnit.SECONDS);
            assertThat(outA).extracting(OutboundEvent::type).containsExactly("tool_result", "turn_completed");
            assertThat(((ToolResultEvent) outA.get(0)).error().code()).isEqualTo(ErrorCode.CANCELLED);
            // A's slot went to the next waiting turn, in arrival order
            List<OutboundEvent> outC = c.get(5, TimeUnit.SECONDS);
            assertThat(((ToolResultEvent) outC.get(0)).content()).isEqualTo("third");
            await().atMost(Duration.ofSeconds(5)).until(() -> started.get() == 3);
            assertThat(ex.inflight()).isEqualTo(2);
        } finally {
            d.dispose();
        }
    }

    @Test
    void atTheLimitTheLoopTakesABoundedNumberOfWaitingTurns() {
        InMemoryBus bus = InMemoryBus.create();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger taken = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().maxInflightTurns(2)
                .tool(TestTools.hang(started, new AtomicInteger())).build();
        Disposable d = ex.attach(counting(bus, taken));
        try {
            int max = 2 + BusLoop.MIN_WAITING_TURNS;
            for (int i = 0; i < max + 10; i++) {
                bus.send(turn("s" + i, "t", call("h" + i, "hang", "{}")));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> taken.get() == max && started.get() == 2);
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                    .until(() -> taken.get() == max && started.get() == 2);
            // a cancel of a running turn frees a slot: one waiting turn starts, one more message is taken
            bus.send(CancelEvent.builder().streamId("s0").reason("stop").build());
            // (the cancel itself sits behind ten unread turns: the bus is ordered and the loop bounded)
            assertThat(ex.control(CancelEvent.ofStream("s0")).block())
                    .isEqualTo(ControlOutcome.APPLIED);
            await().atMost(Duration.ofSeconds(5)).until(() -> started.get() == 3 && taken.get() == max + 1);
        } finally {
            d.dispose();
        }
    }
}
