package dev.toolbus.executor.internal;

/** A live event refused because too many of its turn wait to be published. */
final class LiveEventsOverflowException extends IllegalStateException {

    LiveEventsOverflowException(String message) {
        super(message);
    }
}
