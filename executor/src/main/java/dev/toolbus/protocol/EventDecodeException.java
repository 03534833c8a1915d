package dev.toolbus.protocol;

/**
 * Input that is not a valid event. Carries the {@code stream_id} and {@code turn_id} when they could
 * be read, so the error can be answered on the conversation; otherwise the input goes to the bus's
 * dead-letter place. Thrown by {@link EventCodec}; not built outside this package.
 */
public final class EventDecodeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String streamId;
    private final String turnId;

    /**
     * @param message what is wrong with the input and how to fix it
     * @param streamId the stream id read from the input, or {@code null}
     * @param turnId the turn id read from the input, or {@code null}
     */
    EventDecodeException(String message, String streamId, String turnId) {
        super(message, null, false, false);
        this.streamId = streamId;
        this.turnId = turnId;
    }

    /** The stream id read from the input, or {@code null}. */
    public String streamId() {
        return streamId;
    }

    /** The turn id read from the input, or {@code null}. */
    public String turnId() {
        return turnId;
    }

    /** The {@code error} event answering this input. */
    public ErrorEvent toErrorEvent() {
        return new ErrorEvent(streamId, turnId, ErrorCode.BAD_EVENT, getMessage());
    }
}
