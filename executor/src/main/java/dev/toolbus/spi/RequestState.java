package dev.toolbus.spi;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the turn state knows of one approval request or question: the request as first raised, its
 * status, and the answer each of its calls got (the first authorised one). Immutable.
 */
public final class RequestState {

    /** Where a request stands. */
    public enum Status {
        /** Raised just now (it was not known): publish it. Some calls may have answers already (held ones). */
        NEW,
        /** Raised before and not answered for every call: publish it again, marked replayed, same id and expiry. */
        PENDING,
        /** Every call has its answer: apply them, ask nothing. */
        ANSWERED,
        /** Closed by its owner (expired, or its calls withdrawn) before every call had an answer. */
        CLOSED
    }

    private final Status status;
    private final ControlRequest request;
    private final Map<CallKey, ControlAnswer> answers;

    private RequestState(Status status, ControlRequest request, Map<CallKey, ControlAnswer> answers) {
        this.status = status;
        this.request = request;
        this.answers = answers;
    }

    /**
     * A request's state.
     *
     * @param answers per call of the request, its answer (calls without one are absent)
     */
    public static RequestState of(Status status, ControlRequest request, Map<CallKey, ControlAnswer> answers) {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(request, "request");
        Map<CallKey, ControlAnswer> copy = new LinkedHashMap<>();
        for (CallKey k : request.calls()) {
            ControlAnswer a = answers.get(k);
            if (a != null) {
                copy.put(k, a);
            }
        }
        Checks.requireArgument(copy.size() == answers.size(), "answers name calls that are not the request's");
        Checks.requireArgument(status != Status.ANSWERED || copy.size() == request.calls().size(),
                "an ANSWERED request has an answer for every call");
        return new RequestState(status, request, java.util.Collections.unmodifiableMap(copy));
    }

    /** Where it stands. */
    public Status status() {
        return status;
    }

    /** The request as first raised (its first expiry kept). */
    public ControlRequest request() {
        return request;
    }

    /** Per call, the answer that won (calls without one are absent), in the request's call order. */
    public Map<CallKey, ControlAnswer> answers() {
        return answers;
    }

    /** The answer of one call, or {@code null}. */
    public ControlAnswer answer(CallKey call) {
        return answers.get(call);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RequestState s && status == s.status && request.equals(s.request)
                && answers.equals(s.answers);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, request, answers);
    }

    @Override
    public String toString() {
        return "RequestState[" + request.id() + ", " + status + ", " + answers.size() + "/" + request.calls().size()
                + " answered]";
    }
}
