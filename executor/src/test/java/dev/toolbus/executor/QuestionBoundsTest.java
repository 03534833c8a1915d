package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.tool.InputAnswer;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Issue 21 M6: one plugin could fill the executor-wide cap of 10,000 pending questions so that other
 * streams' tools could no longer ask, and a question could set any timeout (1e12 ms outlived its
 * tool's 3 s timeout). Questions are now bounded per call, per stream (and per principal), and a
 * timeout a question sets is cut to its call's.
 */
class QuestionBoundsTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final List<OutboundEvent> events = new CopyOnWriteArrayList<>();

    /** asks(n): asks n questions at once; the result lists each one's outcome or refusal. */
    private static ToolSpec asks() {
        return new ToolSpec(ToolDefinition.builder("asks").description("asks n questions at once").build(),
                (a, c) -> {
                    List<Mono<String>> answers = new ArrayList<>();
                    for (int i = 0; i < a.integer("n", 1); i++) {
                        answers.add(c.ask("question " + i, null).map(x -> x.outcome().name())
                                .onErrorResume(e -> Mono.just("refused: " + e.getMessage())));
                    }
                    return Flux.concat(answers).collectList().map(l -> ToolResult.text(String.join("\n", l)));
                });
    }

    private CompletableFuture<List<OutboundEvent>> run(ToolExecutor ex, String stream, String turnId,
                                                       ToolCall... calls) {
        return ex.execute(turn(stream, turnId, calls)).doOnNext(events::add).collectList().toFuture();
    }

    private List<InputRequestEvent> questions(String stream) {
        return events.stream().filter(e -> e instanceof InputRequestEvent q && q.streamId().equals(stream))
                .map(e -> (InputRequestEvent) e).toList();
    }

    @Test
    void aCallHasAtMostFourQuestionsWaiting() {
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(asks()).build();
        var turn = run(ex, "s", "t", call("c1", "asks", "{\"n\":5}"));
        assertThat(questions("s")).hasSize(4);
        questions("s").forEach(q -> ex.control(new InputResponseEvent("s", q.inputId(), InputAction.DECLINE, null))
                .block());
        String text = TestTools.results(turn.join()).get(0).content();
        assertThat(text.split("\n")).containsExactly("DECLINE", "DECLINE", "DECLINE", "DECLINE",
                "refused: the call c1 already has 4 questions waiting for an answer (at most 4 per call)");
    }

    @Test
    void oneStreamCannotTakeTheQuestionsOfEveryOtherStream() {
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(asks())
                .settings(dev.toolbus.executor.settings.ExecutionSettings.builder().maxParallel(20).build()).build();
        List<ToolCall> calls = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
            calls.add(call("c" + i, "asks", "{\"n\":4,\"i\":" + i + "}"));
        }
        var flood = run(ex, "flood", "t", calls.toArray(ToolCall[]::new));
        assertThat(questions("flood")).as("64 per stream").hasSize(64);
        var other = run(ex, "other", "t", call("o1", "asks", "{\"n\":1}"));
        assertThat(questions("other")).as("another stream still asks").hasSize(1);
        assertThat(ex.control(new InputResponseEvent("other", questions("other").get(0).inputId(),
                InputAction.CANCEL, null)).block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(TestTools.results(other.join()).get(0).content()).isEqualTo("CANCEL");
        // the flood's 17th call was refused its questions; the others expire
        vts.advanceTimeBy(Duration.ofSeconds(60));
        List<String> texts = TestTools.results(flood.join()).stream().map(r -> r.content()).toList();
        assertThat(texts).filteredOn(t -> t.contains("refused: too many questions of this stream wait for an answer"
                + " (at most 64 per stream)")).hasSize(1);
        assertThat(TestEngines.engine(ex).pendingInputs()).isZero();
    }

    @Test
    void aQuestionWaitsAtMostItsCallsTimeout() {
        ToolSpec patient = new ToolSpec(ToolDefinition.builder("patient").description("p")
                .timeout(Duration.ofSeconds(3)).build(),
                (a, c) -> c.ask("Take your time", null, Duration.ofMillis(1_000_000_000_000L))
                        .map(x -> ToolResult.text(x.outcome().name())));
        ToolExecutor ex = ToolExecutor.builder().timer(vts).tool(patient).build();
        vts.advanceTimeBy(Duration.ofMillis(1_000));
        var turn = run(ex, "s", "t", call("c1", "patient", "{}"));
        assertThat(questions("s")).singleElement().satisfies(q -> assertThat(q.expiresAtMs()).isEqualTo(4_000));
        vts.advanceTimeBy(Duration.ofMillis(3_000));
        assertThat(TestTools.results(turn.join()).get(0).content()).isEqualTo(InputAnswer.Outcome.EXPIRED.name());
        assertThat(TestEngines.engine(ex).pendingInputs()).isZero();
    }
}
