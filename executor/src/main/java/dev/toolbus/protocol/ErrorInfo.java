package dev.toolbus.protocol;

import java.util.Objects;

/**
 * Why a call failed.
 *
 * @param code the stable code
 * @param message a message the model can act on
 * @param retryAfterMs for {@link ErrorCode#RATE_LIMITED}: how many milliseconds until the call may
 *     succeed ({@code retry_after_ms} on the wire); {@code null} (absent) where it does not apply
 */
public record ErrorInfo(ErrorCode code, String message, Long retryAfterMs) {

    public ErrorInfo {
        Objects.requireNonNull(code, "code");
        message = message == null ? "" : message;
        if (retryAfterMs != null && retryAfterMs < 0) {
            throw new IllegalArgumentException("retryAfterMs must not be negative");
        }
    }

    /** An error without a retry hint. */
    public ErrorInfo(ErrorCode code, String message) {
        this(code, message, null);
    }
}
