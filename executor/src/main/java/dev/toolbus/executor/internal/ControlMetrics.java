package dev.toolbus.executor.internal;

import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.tool.InputAnswer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;

/** The meters of conversation control, registered once. */
final class ControlMetrics {

    private final Counter cancelEventApplied;
    private final Counter cancelEventNothing;
    private final Counter cancelSubscriber;
    private final Counter progressPublished;
    private final Counter progressDropped;
    private final Counter messages;
    private final Counter asked;
    private final Map<InputAnswer.Outcome, Counter> answers = new EnumMap<>(InputAnswer.Outcome.class);
    private final Counter unknownApproval;
    private final Counter unknownInput;

    ControlMetrics(MeterRegistry r) {
        cancelEventApplied = cancels(r, "event", "applied");
        cancelEventNothing = cancels(r, "event", "nothing_to_do");
        cancelSubscriber = cancels(r, "subscriber", "applied");
        progressPublished = Counter.builder(ToolMetrics.CONTROL_PROGRESS).tag("result", "published")
                .description("Progress events of running calls").register(r);
        progressDropped = Counter.builder(ToolMetrics.CONTROL_PROGRESS).tag("result", "dropped")
                .description("Progress events of running calls").register(r);
        messages = Counter.builder(ToolMetrics.CONTROL_MESSAGES).description("Messages tools sent to the chat")
                .register(r);
        asked = Counter.builder(ToolMetrics.CONTROL_INPUTS).tag("outcome", "asked")
                .description("Questions tools asked").register(r);
        for (InputAnswer.Outcome o : InputAnswer.Outcome.values()) {
            answers.put(o, Counter.builder(ToolMetrics.CONTROL_INPUTS)
                    .tag("outcome", o.name().toLowerCase(java.util.Locale.ROOT))
                    .description("Questions tools asked").register(r));
        }
        unknownApproval = Counter.builder(ToolMetrics.CONTROL_UNKNOWN).tag("kind", "approval")
                .description("Answers to ids nobody waits for").register(r);
        unknownInput = Counter.builder(ToolMetrics.CONTROL_UNKNOWN).tag("kind", "input")
                .description("Answers to ids nobody waits for").register(r);
    }

    private static Counter cancels(MeterRegistry r, String source, String outcome) {
        return Counter.builder(ToolMetrics.CONTROL_CANCELS).tag("source", source).tag("outcome", outcome)
                .description("Cancel requests").register(r);
    }

    void cancelEvent(boolean applied) {
        (applied ? cancelEventApplied : cancelEventNothing).increment();
    }

    void cancelBySubscriber() {
        cancelSubscriber.increment();
    }

    void progress(boolean published) {
        (published ? progressPublished : progressDropped).increment();
    }

    void message() {
        messages.increment();
    }

    void asked() {
        asked.increment();
    }

    void answered(InputAnswer.Outcome o) {
        answers.get(o).increment();
    }

    void unknown(boolean approval) {
        (approval ? unknownApproval : unknownInput).increment();
    }
}
