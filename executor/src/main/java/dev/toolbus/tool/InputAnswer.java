package dev.toolbus.tool;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Objects;

/**
 * The answer to {@link ToolContext#ask(String, JsonNode)}.
 *
 * @param outcome what the user did
 * @param content the answer's content for {@link Outcome#ACCEPT}, else {@code null}
 */
public record InputAnswer(Outcome outcome, JsonNode content) {

    public InputAnswer {
        Objects.requireNonNull(outcome, "outcome");
    }

    /** What became of a question. */
    public enum Outcome {
        /** Answered; {@link #content()} holds the answer. */
        ACCEPT,
        /** The user refused to answer. */
        DECLINE,
        /** The user dismissed it, or the call was cancelled. */
        CANCEL,
        /** No answer before the question expired. */
        EXPIRED
    }

    /** Whether the user answered. */
    public boolean accepted() {
        return outcome == Outcome.ACCEPT;
    }
}
