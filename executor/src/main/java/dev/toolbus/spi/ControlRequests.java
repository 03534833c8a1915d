package dev.toolbus.spi;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Approval requests and questions by their deterministic ids ({@link ControlRequest}), and the answers
 * to them, recorded by whichever instance receives them and applied by the instance that owns the turn.
 *
 * <p>The life of a request: the owner {@link #raise}s it (a redelivered turn raises the same id: then it
 * learns the request is {@code PENDING} and publishes it again, marked replayed, with its first expiry,
 * or that it is {@code ANSWERED} and asks nothing); an answer reaches any instance, which
 * {@link #answer}s it here; the owner learns of it through {@link #answered()} (or at once when it
 * recorded it itself) and {@link #find}s it; when its timer fires first, the owner {@link #close}s it.
 *
 * <p>Contract (the turn-state TCK checks it):
 * <ul>
 *   <li><b>first answer wins</b>, per call: an answer naming a call ({@link ControlAnswer#toolCallId()})
 *       answers that call, one naming none every call not answered yet; a later answer changes nothing
 *       ({@link AnswerOutcome#ALREADY_ANSWERED});</li>
 *   <li><b>principals</b>: an answer is recorded only when its principal
 *       {@link Principal#mayAnswerFor may answer for} the request's ({@link AnswerOutcome#NOT_ALLOWED}
 *       otherwise), on the request's stream, for one of its calls, before its expiry and while it is
 *       not closed ({@link AnswerOutcome#UNKNOWN} otherwise);</li>
 *   <li><b>holds</b>: an answer whose id has no request yet is held for {@code hold}
 *       ({@link AnswerOutcome#HELD}), bounded per stream in count and bytes
 *       ({@link AnswerOutcome#HOLD_FULL} beyond); when the request is raised, the held answers are
 *       applied in arrival order under the rules above, and dropped;</li>
 *   <li><b>by call</b>: every recorded answer is also found by its call's key ({@link #findForCalls}), so
 *       a turn run again whose request covers fewer calls (some finished) still finds each call's
 *       answer;</li>
 *   <li>records are bounded in bytes and count (a {@code raise} beyond the bound fails) and expire: a
 *       request is kept until the store's record TTL after its expiry, so a turn run again within it
 *       finds it answered or closed.</li>
 * </ul>
 * Records are counted in the gauges {@code toolbus.state.records} and {@code toolbus.state.bytes} with
 * the tag {@code facet=requests}.
 */
public interface ControlRequests {

    /**
     * Raises a request, or finds it raised before.
     *
     * @return {@code NEW} (recorded now; held answers applied, maybe some), {@code PENDING} (raised
     *     before: the first request, with its expiry, and the answers so far), {@code ANSWERED} or
     *     {@code CLOSED}
     */
    Mono<RequestState> raise(ControlRequest request);

    /**
     * Records an answer, or holds it when its request is not raised yet.
     *
     * @param hold how long an answer without a request is held (the longest approval or question
     *     timeout in force)
     */
    Mono<AnswerOutcome> answer(ControlAnswer answer, Duration hold);

    /** The request of this id and its answers; empty when none is kept (never raised, or expired). */
    Mono<RequestState> find(String id);

    /** The recorded answers of these calls (calls without one are absent), whatever request they answered. */
    Mono<Map<CallKey, ControlAnswer>> findForCalls(List<CallKey> calls);

    /**
     * The owner ends a request that is not answered for every call (its expiry passed, or its calls
     * were withdrawn): later answers are {@link AnswerOutcome#UNKNOWN}.
     *
     * @return the request's state after: {@code CLOSED} with the answers that won before, or
     *     {@code ANSWERED} when every call was answered first; empty when none is kept
     */
    Mono<RequestState> close(String id);

    /**
     * The ids of requests that got an answer recorded, by any instance (hot; each owner listens and
     * {@link #find}s the ones it waits for). Delivery may be at most once: an owner also checks its
     * requests when their expiry timer fires.
     */
    Flux<String> answered();

    /** What became of an answer. */
    enum AnswerOutcome {
        /** Recorded for at least one call. */
        RECORDED,
        /** No request of that id yet: held until it is raised, or for the hold. */
        HELD,
        /** Every call it names was answered before: nothing changed. */
        ALREADY_ANSWERED,
        /** Its principal may not answer this request. */
        NOT_ALLOWED,
        /** Closed, expired, of another stream, or naming a call the request does not have. */
        UNKNOWN,
        /** No request yet, and the stream's held answers are at their bound. */
        HOLD_FULL
    }
}
