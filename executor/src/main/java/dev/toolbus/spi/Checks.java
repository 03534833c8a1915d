package dev.toolbus.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * Argument checks for the strict settings builders of toolbus and of the buses and tool sources that
 * implement its SPIs: every failure is an {@link IllegalArgumentException} whose message names the
 * setting and the range it takes.
 *
 * <pre>{@code
 * Checks.requireRange(maxParallel, 1, 20, "maxParallel");   // "maxParallel must be 1..20, got 50"
 * }</pre>
 */
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

    /**
     * A whole number in {@code [min, max]}.
     *
     * @return the value
     * @throws IllegalArgumentException {@code "<name> must be <min>..<max>, got <value>"}
     */
    public static long requireRange(long value, long min, long max, String name) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be " + min + ".." + max + ", got " + value);
        }
        return value;
    }

    /**
     * An {@code int} in {@code [min, max]}.
     *
     * @return the value
     * @throws IllegalArgumentException {@code "<name> must be <min>..<max>, got <value>"}
     */
    public static int requireRange(int value, int min, int max, String name) {
        return (int) requireRange((long) value, min, max, name);
    }

    /**
     * A duration of whole milliseconds in {@code [minMs, maxMs]}.
     *
     * @return the duration
     * @throws IllegalArgumentException {@code "<name> must be <min>..<max> ms, got <value> ms"}
     */
    public static Duration requireMillis(Duration d, long minMs, long maxMs, String name) {
        Objects.requireNonNull(d, name);
        long ms;
        try {
            ms = d.toMillis();
        } catch (ArithmeticException e) {
            ms = d.isNegative() ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        if (d.isNegative() || ms < minMs || ms > maxMs) {
            throw new IllegalArgumentException(name + " must be " + minMs + ".." + maxMs + " ms, got "
                    + (d.isNegative() ? d.toString() : ms + " ms"));
        }
        return d;
    }
}
