package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ErrorCode;

/**
 * A failure the executor detected (not a result the tool returned).
 *
 * @param code the code
 * @param message the text the model reads
 */
record CallFailure(ErrorCode code, String message) {

    /**
     * The text of a handler that threw ({@code TOOL_FAILED}), the same in every locale: the exception's
     * message, else its class; an {@code Error}'s message is prefixed with its class.
     */
    static String message(Throwable t) {
        String m = t.getMessage();
        if (m == null || m.isBlank()) {
            return t.getClass().getSimpleName();
        }
        return t instanceof Error ? t.getClass().getSimpleName() + ": " + m : m;
    }
}
