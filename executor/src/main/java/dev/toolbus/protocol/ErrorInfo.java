package dev.toolbus.protocol;

import java.util.Objects;

/**
 * Why a call failed.
 *
 * @param code the stable code
 * @param message a message the model can act on
 */
public record ErrorInfo(ErrorCode code, String message) {

    public ErrorInfo {
        Objects.requireNonNull(code, "code");
        message = message == null ? "" : message;
    }
}
