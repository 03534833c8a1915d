package dev.toolbus.spi;

import dev.toolbus.protocol.OutboundEvent;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * The call journal: per {@link CallKey}, whether a call that is not retry-safe started and what it
 * ended with, so that a turn run again (redelivered after its instance died or stalled, or sent again)
 * never runs such a call twice. A retry-safe call (not side-effecting, or declared idempotent) never
 * touches the journal: no read, no write.
 *
 * <p>The executor calls, per wave of calls that reach the slot together (one round trip a wave):
 * {@link #begin} with their keys, right before they would take a slot; then, for each call that got
 * {@link Entry#isNew() NEW} and ran, {@link #finish} with the events it ended with, before they are
 * published (calls that end together are finished together).
 *
 * <p>Contract (the turn-state TCK checks it):
 * <ul>
 *   <li>{@code begin} is atomic per key and durable before it completes: of two {@code begin}s of one key,
 *       exactly one gets {@code NEW}; every later one gets {@code STARTED} until the key is finished, then
 *       {@code FINISHED} with the recorded events, in order;</li>
 *   <li>{@code finish} of a key that is not started records it anyway (a late write after an expiry);
 *       a second {@code finish} of a key keeps the first events;</li>
 *   <li>records expire (the store's record TTL, on its clock) and are bounded in bytes and count: when
 *       a {@code begin} would pass the bound it fails (the calls then end {@code STATE_UNAVAILABLE}: fail
 *       closed) rather than dropping records of started calls; events larger than the per-call bound are
 *       recorded without their content (see {@link Entry#finished});</li>
 *   <li>a failure of the store fails the Mono; the executor then does not start the calls.</li>
 * </ul>
 * Records are counted in the gauges {@code toolbus.state.records} and {@code toolbus.state.bytes} with
 * the tag {@code facet=journal}.
 */
public interface CallJournal {

    /**
     * Marks the calls started where they were not, atomically per key, and says what each was before.
     *
     * @param keys the calls of one wave (distinct)
     * @return one entry per key: {@link Entry#isNew() NEW} (it is now marked started: run it),
     *     {@link Entry#isStarted() STARTED} (started before and not finished), or
     *     {@link Entry#isFinished() FINISHED} with the events it ended with
     */
    Mono<Map<CallKey, Entry>> begin(List<CallKey> keys);

    /**
     * Records that calls ended, with the events each ended with (its {@code tool_result} and the media
     * {@code user_message}s that follow it), in order.
     *
     * @param finished per call, its events
     * @return completes when the records are durable
     */
    Mono<Void> finish(Map<CallKey, List<OutboundEvent>> finished);

    /** What the journal knew of a call when it began. Immutable. */
    final class Entry {
        private static final Entry NEW = new Entry(0, null);
        private static final Entry STARTED = new Entry(1, null);

        private final int state;
        private final List<OutboundEvent> events;

        private Entry(int state, List<OutboundEvent> events) {
            this.state = state;
            this.events = events;
        }

        /** Never started: it is now marked started, and runs. */
        public static Entry fresh() {
            return NEW;
        }

        /** Started before and not finished: its outcome is unknown. */
        public static Entry started() {
            return STARTED;
        }

        /**
         * Finished before, with these events (its {@code tool_result} first). An empty list: the call
         * finished, but its events were too large to keep.
         */
        public static Entry finished(List<OutboundEvent> events) {
            return new Entry(2, List.copyOf(Objects.requireNonNull(events, "events")));
        }

        /** Whether the call never started before (it is now marked started). */
        public boolean isNew() {
            return state == 0;
        }

        /** Whether it started before and did not finish. */
        public boolean isStarted() {
            return state == 1;
        }

        /** Whether it finished before. */
        public boolean isFinished() {
            return state == 2;
        }

        /** The recorded events of a finished call (empty otherwise, or when too large to keep). */
        public List<OutboundEvent> events() {
            return events == null ? List.of() : events;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && state == e.state && Objects.equals(events, e.events);
        }

        @Override
        public int hashCode() {
            return state * 31 + Objects.hashCode(events);
        }

        @Override
        public String toString() {
            return switch (state) {
                case 0 -> "NEW";
                case 1 -> "STARTED";
                default -> "FINISHED" + events;
            };
        }
    }
}
