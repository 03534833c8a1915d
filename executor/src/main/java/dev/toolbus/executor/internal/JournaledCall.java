package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.CallKey;

/**
 * A call's pass through the call journal (calls that are not retry-safe): its key, whether the journal
 * marked it started, what it ended with and what the journal answered for the call log. Made when the
 * call asks the journal, so retry-safe calls carry none of it.
 */
final class JournaledCall {

    /** The call's key in the journal. */
    final CallKey key;
    /** The journal marked the call started: its end is recorded before its result is emitted. */
    volatile boolean started;
    /** What the call ended with (for a journal entry that arrives after a cancel ended it). */
    volatile ToolResultEvent endedWith;
    /** Set when the journal answered the call: the call log's detail. */
    volatile String detail;
    /** Its {@code begin}, while it waits for the rest of its turn's wave (guarded by the turn's monitor), else null. */
    JournalBatches.Begin waiting;
    /** The call's result came from the journal (it finished before its turn was run again): emitted marked replayed. */
    volatile boolean replayed;

    JournaledCall(CallKey key) {
        this.key = key;
    }
}
