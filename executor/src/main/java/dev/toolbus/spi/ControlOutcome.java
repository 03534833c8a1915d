package dev.toolbus.spi;

/** What {@code ToolExecutor.control} did with a control event. */
public enum ControlOutcome {
    /** It took effect (calls were cancelled, a question or approval was answered). */
    APPLIED,
    /** A cancel that found nothing unfinished: a no-op. */
    NOTHING_TO_DO,
    /**
     * An answer to an approval or input id this executor does not wait for (unknown, expired, already
     * answered, or of another stream). A bus adapter that shares control events across instances uses
     * this to tell whether this instance knew the id; alone, it is answered with an {@code error} event
     * with code {@code UNKNOWN_REQUEST}.
     */
    UNKNOWN_REQUEST,
    /**
     * An {@code input_response} that accepts with content breaking the question's schema: it is not
     * passed to the tool, and the question still waits for an answer. Answered with an {@code error}
     * event with code {@code BAD_EVENT} naming what is wrong.
     */
    INVALID_ANSWER,
    /**
     * An answer whose request is not raised yet (it may arrive before its request, for example when the
     * request's turn is being taken over by another instance): held in the turn state and applied when
     * the request is raised. Nothing is sent back.
     */
    HELD
}
