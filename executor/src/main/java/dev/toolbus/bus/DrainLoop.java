package dev.toolbus.bus;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import dev.toolbus.spi.BusMessage;

/**
 * The work-in-progress drain loop a broker adapter's {@link ToolBus#receive()} runs on: it hands the
 * {@link BusSource}'s ready messages to the receiver, never more than the receiver requested, on one
 * thread at a time (a thread that calls {@link #drain()} while another drains leaves the work to it),
 * asks the source to fetch when demand is left, and completes the {@code Flux} when the source has
 * finished. The loop holds nothing itself: what waits is in the source's queues, which the source
 * bounds.
 *
 * <p>Failures end the {@code Flux}, never the loop's thread silently: a pass that throws (an
 * {@link Error} included) releases the message in hand ({@link BusSource#release}) and fails the
 * receiver; {@link #fail(Throwable)} does the same for a failure outside a pass (a poll thread that
 * died). After either, {@link #drain()} does nothing.
 *
 * <pre>{@code
 * DrainLoop loop = new DrainLoop("redis bus " + consumer, source);
 * public Flux<BusMessage> receive() { return loop.flux(); }
 * // the source's I/O callback, when entries arrive: queue them, then
 * loop.drain();
 * }</pre>
 */
public final class DrainLoop {

    private final String name;
    private final BusSource source;
    private final AtomicInteger wip = new AtomicInteger();
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private volatile FluxSink<BusMessage> sink;
    private volatile boolean done;
    private volatile Throwable failure;

    /**
     * @param name what the loop serves, for the error of a second subscription (for example "redis bus c1")
     * @param source where the messages come from
     */
    public DrainLoop(String name, BusSource source) {
        this.name = Objects.requireNonNull(name, "name");
        this.source = Objects.requireNonNull(source, "source");
    }

    /**
     * The messages, honouring demand; it can be subscribed once (a second subscriber gets an
     * {@link IllegalStateException}). Subscribing calls {@link BusSource#started()}; cancelling calls
     * {@link BusSource#cancelled()}.
     */
    public Flux<BusMessage> flux() {
        return Flux.create(s -> {
            if (!subscribed.compareAndSet(false, true)) {
                s.error(new IllegalStateException("receive() of " + name + " can be subscribed once"));
                return;
            }
            sink = s;
            s.onRequest(n -> drain());
            s.onCancel(() -> {
                source.cancelled();
                drain();
            });
            source.started();
            drain();
        }, FluxSink.OverflowStrategy.ERROR);
    }

    /** Whether the {@code Flux} has completed or failed. */
    public boolean isDone() {
        return done;
    }

    /**
     * Fails the receiver with this error (once; later failures and completions are dropped). Safe from
     * any thread: the error is delivered by the draining thread.
     */
    public void fail(Throwable error) {
        Objects.requireNonNull(error, "error");
        if (failure == null) {
            failure = error;
        }
        drain();
    }

    /**
     * Runs a pass, or several while others asked for one meanwhile; returns at once when another thread
     * is draining (that thread runs the pass asked for). Safe from any thread.
     */
    public void drain() {
        if (wip.getAndIncrement() != 0) {
            return;
        }
        int missed = 1;
        do {
            FluxSink<BusMessage> s = sink;
            if (s != null && !done) {
                pass(s);
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    private void pass(FluxSink<BusMessage> s) {
        BusMessage inHand = null;
        try {
            Throwable error = failure;
            if (error != null) {
                done = true;
                s.error(error);
                return;
            }
            while (s.requestedFromDownstream() > 0 && (inHand = source.poll()) != null) {
                BusMessage m = inHand;
                s.next(m);
                inHand = null;
            }
            if (source.finished()) {
                done = true;
                s.complete();
                return;
            }
            long demand = s.requestedFromDownstream();
            if (demand > 0) {
                source.request(demand);
            }
        } catch (Throwable t) {
            done = true;
            if (inHand != null) {
                try {
                    source.release(inHand, t);
                } catch (Throwable suppressed) {
                    t.addSuppressed(suppressed);
                }
            }
            s.error(t);
            Exceptions.throwIfFatal(t);
        }
    }
}
