package dev.toolbus.spi;

import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.OutboundEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An approval request or a question, as the turn state keeps it: its deterministic id, who asked (the
 * turn's principal), its calls, its expiry and the event to publish again when its turn runs again
 * before it is answered. Immutable; built with {@link #approval} or {@link #input}.
 *
 * <p>Ids are derived, not counted, so a redelivered turn raises the same ids on any instance:
 * {@code ap-} + 16 hex digits of SHA-256 over the length-prefixed principal key, stream id, turn id and
 * the request's tool call ids (sorted); {@code in-} + 16 hex digits of SHA-256 over the length-prefixed
 * principal key, stream id, turn id, tool call id and the ordinal of the call's question (1, 2, …).
 */
public final class ControlRequest {

    /** Prefix of approval ids. */
    public static final String APPROVAL_PREFIX = "ap-";
    /** Prefix of input ids. */
    public static final String INPUT_PREFIX = "in-";

    /** What is asked. */
    public enum Kind {
        /** An {@code approval_request}: may the calls run. */
        APPROVAL,
        /** An {@code input_request}: a running tool's question. */
        INPUT
    }

    private final String id;
    private final Kind kind;
    private final TurnKey turn;
    private final List<CallKey> calls;
    private final long expiresAtMs;
    private final OutboundEvent event;

    private ControlRequest(String id, Kind kind, TurnKey turn, List<CallKey> calls, long expiresAtMs,
                           OutboundEvent event) {
        this.id = id;
        this.kind = kind;
        this.turn = turn;
        this.calls = calls;
        this.expiresAtMs = expiresAtMs;
        this.event = event;
    }

    /**
     * An approval request for calls of one turn.
     *
     * @param turn the turn (its principal asks)
     * @param event the {@code approval_request} as first published; its {@code approval_id} must be
     *     {@link #approvalId} of the turn and its calls, and its calls are the request's
     */
    public static ControlRequest approval(TurnKey turn, ApprovalRequestEvent event) {
        Objects.requireNonNull(turn, "turn");
        Objects.requireNonNull(event, "event");
        List<String> ids = new ArrayList<>(event.calls().size());
        List<CallKey> keys = new ArrayList<>(event.calls().size());
        for (ApprovalRequestEvent.Call c : event.calls()) {
            ids.add(c.toolCallId());
            keys.add(turn.call(c.toolCallId()));
        }
        Checks.requireArgument(!keys.isEmpty(), "an approval request needs at least one call");
        Checks.requireArgument(event.streamId().equals(turn.streamId()) && event.turnId().equals(turn.turnId()),
                "the approval_request is not of the turn " + turn);
        String expected = approvalId(turn, ids);
        Checks.requireArgument(expected.equals(event.approvalId()),
                "approval_id must be " + expected + " for these calls, got " + event.approvalId());
        return new ControlRequest(expected, Kind.APPROVAL, turn, List.copyOf(keys), event.expiresAtMs(), event);
    }

    /**
     * A question of one call.
     *
     * @param call the call that asks
     * @param ordinal which of the call's questions it is (1 for the first)
     * @param event the {@code input_request} as first published; its {@code input_id} must be
     *     {@link #inputId} of the call and ordinal
     */
    public static ControlRequest input(CallKey call, int ordinal, InputRequestEvent event) {
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(event, "event");
        String expected = inputId(call, ordinal);
        Checks.requireArgument(expected.equals(event.inputId()),
                "input_id must be " + expected + " for this call and ordinal, got " + event.inputId());
        Checks.requireArgument(event.streamId().equals(call.streamId()) && event.turnId().equals(call.turnId())
                && event.toolCallId().equals(call.toolCallId()), "the input_request is not of the call " + call);
        return new ControlRequest(expected, Kind.INPUT, call.turn(), List.of(call), event.expiresAtMs(), event);
    }

    /** The {@code approval_id} of a request for these calls of the turn (in any order). */
    public static String approvalId(TurnKey turn, List<String> toolCallIds) {
        List<String> sorted = new ArrayList<>(toolCallIds);
        sorted.sort(null);
        String[] parts = new String[3 + sorted.size()];
        parts[0] = turn.principal().key();
        parts[1] = turn.streamId();
        parts[2] = turn.turnId();
        for (int i = 0; i < sorted.size(); i++) {
            parts[3 + i] = sorted.get(i);
        }
        return APPROVAL_PREFIX + KeyHash.hex(16, parts);
    }

    /** The {@code input_id} of the {@code ordinal}-th question (from 1) of a call. */
    public static String inputId(CallKey call, int ordinal) {
        Checks.requireRange(ordinal, 1, Integer.MAX_VALUE, "ordinal");
        return INPUT_PREFIX + KeyHash.hex(16, call.principal().key(), call.streamId(), call.turnId(), call.toolCallId(),
                Integer.toString(ordinal));
    }

    /** Whether the text has the shape of a derived approval or input id (a prefix and 16 hex digits). */
    public static boolean isDerivedId(String id) {
        if (id == null || id.length() != 19 || !(id.startsWith(APPROVAL_PREFIX) || id.startsWith(INPUT_PREFIX))) {
            return false;
        }
        for (int i = 3; i < 19; i++) {
            char c = id.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return false;
            }
        }
        return true;
    }

    /** Its id ({@code approval_id} or {@code input_id}). */
    public String id() {
        return id;
    }

    /** Approval or question. */
    public Kind kind() {
        return kind;
    }

    /** Its turn; the turn's principal is who asked. */
    public TurnKey turn() {
        return turn;
    }

    /** Who asked: the principal of its turn. */
    public Principal principal() {
        return turn.principal();
    }

    /** Its stream. */
    public String streamId() {
        return turn.streamId();
    }

    /** Its calls (one for a question), in the order of the request. */
    public List<CallKey> calls() {
        return calls;
    }

    /** When it expires (epoch ms); an answer after that is refused. */
    public long expiresAtMs() {
        return expiresAtMs;
    }

    /** The {@code approval_request} or {@code input_request} as first published. */
    public OutboundEvent event() {
        return event;
    }

    /** Same id, turn, calls, expiry and event. */
    @Override
    public boolean equals(Object o) {
        return o instanceof ControlRequest r && id.equals(r.id) && kind == r.kind && turn.equals(r.turn)
                && calls.equals(r.calls) && expiresAtMs == r.expiresAtMs && event.equals(r.event);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "ControlRequest[" + id + ", " + kind + ", " + turn + ", " + calls.size() + " calls, expires "
                + expiresAtMs + "]";
    }
}
