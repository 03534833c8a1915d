package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.ToolBus;
import dev.toolbus.tool.InputAnswer;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * A control event issued from inside a subscriber's or a bus's callback, on the same thread or on
 * another one the callback waits for: the executor runs no such code while it holds a lock, so the
 * cancel applies and the turn completes ({@code CANCELLED}, then {@code turn_completed}).
 */
class ToolExecutorReentrantControlTest {

    private final ExecutorService other = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        other.shutdownNow();
    }

    /** What the tool says first: progress, a message, or a question. */
    enum Says { PROGRESS, SEND, ASK }

    private static Mono<?> say(ToolContext c, Says says) {
        return switch (says) {
            case PROGRESS -> c.progress(1, 10.0, "step 1");
            case SEND -> c.send("working");
            case ASK -> c.ask("Which city?", null);
        };
    }

    /** Speaks, then waits 30 s without blocking a thread (a question: its answer is awaited instead). */
    private static ToolSpec nonBlocking(Says says) {
        return new ToolSpec(ToolDefinition.builder("slow").description("s").timeout(Duration.ofSeconds(60)).build(), (a, c) -> {
            Mono<?> said = say(c, says);
            Mono<?> wait = says == Says.ASK ? said : Mono.delay(Duration.ofSeconds(30));
            return wait.thenReturn(ToolResult.text("finished"));
        });
    }

    /** Speaks, then sleeps 30 s on its thread (interrupted by a cancel). */
    private static ToolSpec blocking(Says says) {
        return new ToolSpec(ToolDefinition.builder("slow").description("s").timeout(Duration.ofSeconds(60)).build(),
                ToolHandler.blocking((a, c) -> {
                    if (says == Says.ASK) {
                        InputAnswer answer = c.ask("Which city?", null).block();
                        return ToolResult.text("answered " + answer.outcome());
                    }
                    say(c, says).block();
                    Thread.sleep(30_000);
                    return ToolResult.text("finished");
                }));
    }

    private static boolean live(OutboundEvent e) {
        return switch (e.type()) {
            case "tool_progress", "send_message", "input_request" -> true;
            default -> false;
        };
    }

    /** The subscriber cancels the call from inside onNext of its first live event, on its own thread. */
    private void cancelInsideOnNext(ToolSpec tool, Says says) {
        ToolExecutor ex = ToolExecutor.builder().tool(tool).build();
        AtomicReference<ControlOutcome> outcome = new AtomicReference<>();
        StepVerifier.create(ex.execute(turn("s", "t", call("c1", "slow", "{}"))).doOnNext(e -> {
                    if (live(e) && outcome.get() == null) {
                        // synchronous: control() runs on subscription
                        ex.control(CancelEvent.builder().streamId("s").turnId("t").toolCallId("c1").reason("stop")
                                .build()).subscribe(outcome::set);
                    }
                }))
                .expectNextMatches(ToolExecutorReentrantControlTest::live)
                .assertNext(e -> assertThat(((ToolResultEvent) e).error().code()).isEqualTo(ErrorCode.CANCELLED))
                .expectNextMatches(e -> e.type().equals("turn_completed"))
                .expectComplete()
                .verify(Duration.ofSeconds(10));
        assertThat(outcome.get()).isEqualTo(ControlOutcome.APPLIED);
        await().atMost(Duration.ofSeconds(5)).until(() -> ex.inflight() == 0);
    }

    /** onNext hands the cancel to another thread and waits for it to finish: nothing may hold a lock meanwhile. */
    private void cancelFromAnotherThreadInsideOnNext(ToolSpec tool, Says says) {
        ToolExecutor ex = ToolExecutor.builder().tool(tool).build();
        AtomicReference<ControlOutcome> outcome = new AtomicReference<>();
        AtomicReference<Boolean> finishedInTime = new AtomicReference<>();
        StepVerifier.create(ex.execute(turn("s", "t", call("c1", "slow", "{}"))).doOnNext(e -> {
                    if (live(e) && finishedInTime.get() == null) {
                        finishedInTime.set(waitFor(() -> outcome.set(
                                ex.control(CancelEvent.builder().streamId("s").turnId("t").toolCallId("c1")
                                        .reason("stop").build()).block())));
                    }
                }))
                .expectNextMatches(ToolExecutorReentrantControlTest::live)
                .assertNext(e -> assertThat(((ToolResultEvent) e).error().code()).isEqualTo(ErrorCode.CANCELLED))
                .expectNextMatches(e -> e.type().equals("turn_completed"))
                .expectComplete()
                .verify(Duration.ofSeconds(15));
        assertThat(finishedInTime.get()).as("the other thread's cancel finished while onNext waited").isTrue();
        assertThat(outcome.get()).isEqualTo(ControlOutcome.APPLIED);
    }

    /** Runs the task on the other thread; whether it finished within 5 s. */
    private boolean waitFor(Runnable task) {
        CountDownLatch done = new CountDownLatch(1);
        other.execute(() -> {
            try {
                task.run();
            } finally {
                done.countDown();
            }
        });
        // a blocking handler's thread runs onNext and is interrupted by the cancel: wait on regardless
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    return done.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Test
    void cancelInsideOnNextOfProgressCompletesTheTurnNonBlockingTool() {
        cancelInsideOnNext(nonBlocking(Says.PROGRESS), Says.PROGRESS);
    }

    @Test
    void cancelInsideOnNextOfProgressCompletesTheTurnBlockingTool() {
        cancelInsideOnNext(blocking(Says.PROGRESS), Says.PROGRESS);
    }

    @Test
    void cancelInsideOnNextOfSendAndAskCompletesTheTurn() {
        for (Says s : List.of(Says.SEND, Says.ASK)) {
            cancelInsideOnNext(nonBlocking(s), s);
            cancelInsideOnNext(blocking(s), s);
        }
    }

    @Test
    void cancelFromAnotherThreadWhileOnNextWaitsDoesNotDeadlock() {
        for (Says s : Says.values()) {
            cancelFromAnotherThreadInsideOnNext(nonBlocking(s), s);
            cancelFromAnotherThreadInsideOnNext(blocking(s), s);
        }
    }

    /** The subscriber answers the question from inside onNext of its input_request (same thread, or another one it waits for). */
    private void answerInsideOnNext(ToolSpec tool, boolean otherThread) {
        ToolExecutor ex = ToolExecutor.builder().tool(tool).build();
        AtomicReference<ControlOutcome> outcome = new AtomicReference<>();
        AtomicReference<Boolean> inTime = new AtomicReference<>(true);
        StepVerifier.create(ex.execute(turn("s", "t", call("c1", "slow", "{}"))).doOnNext(e -> {
                    if (e instanceof dev.toolbus.protocol.InputRequestEvent q) {
                        var answer = new dev.toolbus.protocol.InputResponseEvent("s", q.inputId(),
                                dev.toolbus.protocol.InputAction.DECLINE, null);
                        if (otherThread) {
                            inTime.set(waitFor(() -> outcome.set(ex.control(answer).block())));
                        } else {
                            ex.control(answer).subscribe(outcome::set);
                        }
                    }
                }))
                .expectNextMatches(e -> e.type().equals("input_request"))
                .assertNext(e -> assertThat(((ToolResultEvent) e).isError()).isFalse())
                .expectNextMatches(e -> e.type().equals("turn_completed"))
                .expectComplete()
                .verify(Duration.ofSeconds(15));
        assertThat(inTime.get()).isTrue();
        assertThat(outcome.get()).isEqualTo(ControlOutcome.APPLIED);
    }

    @Test
    void anInputResponseInsideOnNextOfTheQuestionCompletesTheTurn() {
        answerInsideOnNext(nonBlocking(Says.ASK), false);
        answerInsideOnNext(blocking(Says.ASK), false);
        answerInsideOnNext(nonBlocking(Says.ASK), true);
        answerInsideOnNext(blocking(Says.ASK), true);
    }

    /** A bus that runs {@code onLive} synchronously inside publish of a live event (before it completes). */
    private static ToolBus reentrant(InMemoryBus bus, Consumer<OutboundEvent> onLive) {
        return new ToolBus() {
            @Override
            public Flux<BusMessage> receive() {
                return bus.receive();
            }

            @Override
            public Mono<Void> publish(List<OutboundEvent> events) {
                for (OutboundEvent e : events) {
                    if (live(e)) {
                        onLive.accept(e);
                    }
                }
                return bus.publish(events);
            }

            @Override
            public Mono<Void> closeGracefully() {
                return bus.closeGracefully();
            }
        };
    }

    private void cancelInsideBusPublish(ToolSpec tool, boolean otherThread) {
        InMemoryBus bus = InMemoryBus.create();
        AtomicReference<ToolExecutor> exRef = new AtomicReference<>();
        List<ControlOutcome> outcomes = new CopyOnWriteArrayList<>();
        List<Boolean> inTime = new CopyOnWriteArrayList<>();
        Function<Void, ControlOutcome> cancel = v -> exRef.get().control(CancelEvent.builder().streamId("s")
                .turnId("t").toolCallId("c1").reason("stop").build())
                .block();
        ToolBus wrapped = reentrant(bus, e -> {
            if (!otherThread) {
                exRef.get().control(CancelEvent.builder().streamId("s").turnId("t").toolCallId("c1").reason("stop")
                        .build()).subscribe(outcomes::add);
            } else {
                inTime.add(waitFor(() -> outcomes.add(cancel.apply(null))));
            }
        });
        ToolExecutor ex = ToolExecutor.builder().tool(tool).build();
        exRef.set(ex);
        var events = bus.events("s").take(3).collectList().toFuture();
        var d = ex.attach(wrapped);
        try {
            bus.send(turn("s", "t", call("c1", "slow", "{}")));
            List<OutboundEvent> out = events.get(10, TimeUnit.SECONDS);
            assertThat(out.get(0).type()).isIn("tool_progress", "send_message", "input_request");
            assertThat(((ToolResultEvent) out.get(1)).error().code()).isEqualTo(ErrorCode.CANCELLED);
            assertThat(out.get(2).type()).isEqualTo("turn_completed");
            assertThat(outcomes).containsExactly(ControlOutcome.APPLIED);
            assertThat(inTime).doesNotContain(false);
        } catch (Exception e) {
            throw new AssertionError(e);
        } finally {
            d.dispose();
        }
    }

    @Test
    void aBusPublishThatCancelsSynchronouslyCompletesTheTurn() {
        for (Says s : Says.values()) {
            cancelInsideBusPublish(nonBlocking(s), false);
            cancelInsideBusPublish(blocking(s), false);
            cancelInsideBusPublish(nonBlocking(s), true);
            cancelInsideBusPublish(blocking(s), true);
        }
    }
}
