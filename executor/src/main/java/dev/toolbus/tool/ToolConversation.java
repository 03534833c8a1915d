package dev.toolbus.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.ContentPart;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The conversation a running call talks to (SPI): the executor supplies one per call through
 * {@link ToolContext.Builder#conversation(ToolConversation)}; adapters (stdio plugins, MCP) that forward
 * a call's progress, messages and questions call it through the {@link ToolContext}. Events are
 * published as they happen, each before the call's {@code tool_result}.
 */
public interface ToolConversation {

    /**
     * Publishes {@code tool_progress}. Progress is rate-limited per call: within one interval only the
     * newest is kept, and the last one before the result is never lost.
     *
     * @return completes when the event is published, or when it was superseded or dropped
     */
    Mono<Void> progress(double progress, Double total, String message);

    /**
     * Publishes {@code send_message} to the chat.
     *
     * @return completes when the event is published; fails when the call has ended or the turn's bound
     *     of pending events is reached
     */
    Mono<Void> send(List<ContentPart> content);

    /**
     * Publishes {@code input_request} and waits for the user's answer.
     *
     * @param timeout how long to wait, or {@code null} for the executor's default
     * @return the answer ({@link InputAnswer.Outcome#EXPIRED} when none came in time,
     *     {@link InputAnswer.Outcome#CANCEL} when the call was cancelled); fails when the question cannot
     *     be published
     */
    Mono<InputAnswer> ask(String message, JsonNode schema, Duration timeout);

    /**
     * Publishes {@code input_request} for a question with a key or in URL mode, and waits for the
     * answer. The default serves a form question through {@link #ask(String, JsonNode, Duration)}
     * (the key is dropped) and fails a URL-mode one: a conversation that can ask for a URL visit
     * overrides it.
     */
    default Mono<InputAnswer> ask(InputQuestion question) {
        if (question.mode() == InputQuestion.Mode.URL) {
            return Mono.error(new IllegalStateException("this conversation cannot ask for a URL visit"));
        }
        return ask(question.message(), question.schema(), question.timeout());
    }
}
