package dev.toolbus.internal;

import java.time.Duration;
import java.util.Objects;

/** Argument checks for configuration builders; every failure is an {@link IllegalArgumentException}. */
public final class Checks {

    private Checks() {
    }

    /** Fails with the message unless the condition holds. */
    public static void requireArgument(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** A non-blank string. */
    public static void requireText(String value, String name) {
        requireArgument(value != null && !value.isBlank(), name + " must be a non-empty string");
    }

    /** A duration above zero. */
    public static void requirePositive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        requireArgument(!d.isNegative() && !d.isZero(), name + " must be positive, got " + d);
    }

    /** A duration of zero or more. */
    public static void requireNotNegative(Duration d, String name) {
        Objects.requireNonNull(d, name);
        requireArgument(!d.isNegative(), name + " must not be negative, got " + d);
    }
}
