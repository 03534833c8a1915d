package dev.toolbus.executor;

/** A live event refused because too many of its turn wait to be published. */
final class LiveOverflowException extends IllegalStateException {

    LiveOverflowException(String message) {
        super(message);
    }
}
