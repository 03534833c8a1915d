package dev.toolbus.executor.internal;

import java.util.HashSet;
import java.util.Set;

/**
 * What a turn is told before it starts, kept apart so that a turn told nothing carries none of it: the
 * observation its tracing starts under, and the calls a control cancel stopped (all, or by id, with the
 * cancel's reason). Written holding the turn's monitor.
 */
final class BeforeStart {

    /** The observation an {@code execute()} subscriber runs in, the parent of an untraced turn's; or null. */
    Object parentObservation;
    /** A control cancel of the whole turn arrived. */
    boolean stopAll;
    /** Calls a control cancel named, or null. */
    Set<String> stopIds;
    /** The reason of the last such cancel. */
    String stopReason;

    /** Whether call {@code id} was stopped. */
    boolean stopped(String id) {
        return stopAll || (stopIds != null && stopIds.contains(id));
    }

    /** Notes a cancel of call {@code id}; whether it was not noted before. */
    boolean stop(String id) {
        if (stopIds == null) {
            stopIds = new HashSet<>(4);
        }
        return stopIds.add(id);
    }
}
