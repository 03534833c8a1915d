package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The W3C Trace Context of an event: its {@code traceparent} and {@code tracestate} fields (top-level
 * on the wire, next to {@code type}). Inbound, a bot core's values make toolbus's turn a child of its
 * span; outbound, they name the turn's or the call's span (or repeat the inbound values when toolbus
 * records no spans).
 *
 * <p>Values are validated here, and only here: {@link #parse} returns {@code null} for a
 * {@code traceparent} that is not a W3C one (version {@code 00} shape, lower-case hex, non-zero ids,
 * version {@code ff} refused, at most {@value #MAX_TRACEPARENT_CHARS} characters) and drops a
 * {@code tracestate} that is longer than {@value #MAX_TRACESTATE_CHARS} characters or holds characters
 * outside printable ASCII. A bad value is never an error of the event.
 *
 * <p>{@code baggage} is the W3C Baggage that came with it where a protocol carries one (MCP's
 * {@code _meta.baggage}, added with {@link #withBaggage}); it is passed on to the calls a tool makes
 * and is never encoded in events. Immutable.
 */
public final class TraceContext {

    private final String traceparent;
    private final String tracestate;
    private final String baggage;

    /** The longest accepted {@code traceparent}: 55 characters for version 00, room for later versions. */
    public static final int MAX_TRACEPARENT_CHARS = 256;

    /** The longest accepted {@code tracestate} (the length W3C asks every vendor to propagate). */
    public static final int MAX_TRACESTATE_CHARS = 512;

    /** The longest accepted {@code baggage} (W3C Baggage asks to propagate at least 8192 bytes). */
    public static final int MAX_BAGGAGE_CHARS = 8192;

    /**
     * A context without baggage; validates.
     *
     * @param traceparent {@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}
     * @param tracestate the vendor list, or {@code null}
     * @throws IllegalArgumentException when {@code traceparent} is not valid or {@code tracestate} is
     *     not valid (use {@link #parse} for input from the wire)
     */
    public TraceContext(String traceparent, String tracestate) {
        this(traceparent, tracestate, null);
    }

    private TraceContext(String traceparent, String tracestate, String baggage) {
        Objects.requireNonNull(traceparent, "traceparent");
        if (!validTraceparent(traceparent)) {
            throw new IllegalArgumentException("not a W3C traceparent: '" + cut(traceparent) + "'");
        }
        if (tracestate != null && tracestate.isEmpty()) {
            tracestate = null;
        }
        if (tracestate != null && !validTracestate(tracestate)) {
            throw new IllegalArgumentException("tracestate must be at most " + MAX_TRACESTATE_CHARS
                    + " printable ASCII characters");
        }
        if (baggage != null && baggage.isEmpty()) {
            baggage = null;
        }
        if (baggage != null && !validBaggage(baggage)) {
            throw new IllegalArgumentException("baggage must be at most " + MAX_BAGGAGE_CHARS
                    + " printable ASCII characters");
        }
        this.traceparent = traceparent;
        this.tracestate = tracestate;
        this.baggage = baggage;
    }

    /** {@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}. */
    @JsonProperty("traceparent")
    public String traceparent() {
        return traceparent;
    }

    /** The vendor list, or {@code null}. */
    @JsonProperty("tracestate")
    public String tracestate() {
        return tracestate;
    }

    /** The W3C Baggage list, or {@code null}; never encoded in events. */
    @JsonIgnore
    public String baggage() {
        return baggage;
    }

    /**
     * This context with {@code baggage} (the W3C Baggage list); an invalid or over-long value is
     * dropped ({@code null} kept). Never throws.
     */
    public TraceContext withBaggage(String baggage) {
        String b = baggage == null || validBaggage(baggage) ? baggage : null;
        return java.util.Objects.equals(b, this.baggage) ? this : new TraceContext(traceparent, tracestate, b);
    }

    /**
     * The context of wire values, or {@code null} when {@code traceparent} is missing or invalid; an
     * invalid {@code tracestate} is dropped. Never throws.
     */
    @JsonCreator
    public static TraceContext parse(@JsonProperty("traceparent") String traceparent,
                                     @JsonProperty("tracestate") String tracestate) {
        if (traceparent == null || !validTraceparent(traceparent)) {
            return null;
        }
        return new TraceContext(traceparent, tracestate == null || validTracestate(tracestate) ? tracestate : null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TraceContext t && traceparent.equals(t.traceparent)
                && Objects.equals(tracestate, t.tracestate) && Objects.equals(baggage, t.baggage);
    }

    @Override
    public int hashCode() {
        return Objects.hash(traceparent, tracestate, baggage);
    }

    @Override
    public String toString() {
        return "TraceContext[traceparent=" + traceparent + ", tracestate=" + tracestate + ", baggage=" + baggage + "]";
    }

    /** The 32-hex-digit trace id. */
    public String traceId() {
        return traceparent.substring(3, 35);
    }

    /** The 16-hex-digit id of the span this context names (the parent of the receiver's span). */
    public String spanId() {
        return traceparent.substring(36, 52);
    }

    /** Whether the sampled flag is set. */
    public boolean sampled() {
        return (Character.digit(traceparent.charAt(54), 16) & 1) == 1;
    }

    static boolean validTraceparent(String s) {
        int n = s.length();
        if (n < 55 || n > MAX_TRACEPARENT_CHARS || s.charAt(2) != '-' || s.charAt(35) != '-' || s.charAt(52) != '-') {
            return false;
        }
        if (!hex(s, 0, 2) || !hex(s, 3, 35) || !hex(s, 36, 52) || !hex(s, 53, 55)) {
            return false;
        }
        if (s.startsWith("ff") || zeros(s, 3, 35) || zeros(s, 36, 52)) {
            return false;
        }
        if (s.startsWith("00")) {
            return n == 55;
        }
        // a later version may append fields after a dash
        return n == 55 || s.charAt(55) == '-';
    }

    static boolean validTracestate(String s) {
        if (s.length() > MAX_TRACESTATE_CHARS) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    static boolean validBaggage(String s) {
        return s.length() <= MAX_BAGGAGE_CHARS && validPrintable(s);
    }

    private static boolean validPrintable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return false;
            }
        }
        return true;
    }

    private static boolean hex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    private static boolean zeros(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }

    private static String cut(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
