package dev.toolbus.protocol;

/**
 * An event that cannot be written as JSON, almost always because {@code data} or {@code metadata} of a
 * tool result holds a value Jackson cannot serialise with its default modules (for example
 * {@code java.time} types or {@code Optional}). The message names the event and the call.
 */
public final class EventEncodeException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message what could not be encoded and why
     * @param cause the serialiser's failure
     */
    public EventEncodeException(String message, Throwable cause) {
        super(message, cause);
    }
}
