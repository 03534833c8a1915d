package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ErrorCode;

/**
 * A failure the executor detected (not a result the tool returned).
 *
 * @param code the code
 * @param message the text the model reads
 */
record CallFailure(ErrorCode code, String message) {
}
