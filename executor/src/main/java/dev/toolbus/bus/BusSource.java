package dev.toolbus.bus;

import dev.toolbus.spi.BusMessage;

/**
 * What a broker adapter gives its {@link DrainLoop}: the messages it has ready, whether more will come,
 * and how to fetch more. The loop calls every method from one thread at a time (whichever thread
 * drains), so an implementation needs no lock of its own for what only these methods touch; its
 * queues must still be safe to fill from the adapter's I/O threads.
 */
public interface BusSource {

    /**
     * The next message to hand to the receiver, or {@code null} when none is ready now. Called only
     * while the receiver has demand, so a message returned is handed over at once; an implementation
     * may settle inputs it answers itself (too large, dead-lettered, routed elsewhere) here and go on
     * to the next.
     */
    BusMessage poll();

    /**
     * Whether the input has ended: no message will be ready again. Checked after each pass; once true
     * the loop completes the receiver's {@code Flux}.
     */
    boolean finished();

    /**
     * The receiver still has this much demand and {@link #poll()} had nothing: fetch more (for example
     * send a read), then call {@link DrainLoop#drain()} when it arrives. Not called once
     * {@link #finished()} is true. The default fetches nothing (a source whose own thread pushes).
     */
    default void request(long demand) {
    }

    /**
     * A message {@link #poll()} returned could not be handed over because the pass failed ({@code error},
     * an {@link Error} included): undo what handing it over took (a lease, an in-flight count), so it is
     * delivered again. The loop then fails the receiver with {@code error}.
     */
    default void release(BusMessage message, Throwable error) {
    }

    /** The receiver subscribed (once): start what feeds the source (a poll thread, a claim loop). */
    default void started() {
    }

    /** The receiver cancelled: stop taking input; {@link #finished()} should become true. */
    default void cancelled() {
    }
}
