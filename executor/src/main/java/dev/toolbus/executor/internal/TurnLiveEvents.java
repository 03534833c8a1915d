package dev.toolbus.executor.internal;

import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The live events of one turn on a bus: published at once, one after the other in offer order, each
 * as its own batch; the turn's final batch waits for {@link #whenIdle}. Bounded in entries and bytes
 * of events not yet published; an offer beyond the bound fails at once.
 */
final class TurnLiveEvents {

    /** Live events of one turn waiting to be published, at most. */
    static final int MAX_PENDING = 256;
    /** Their estimated size, at most. */
    static final long MAX_PENDING_BYTES = 4L * 1024 * 1024;

    private final Function<List<OutboundEvent>, Mono<Void>> publish;
    private final ArrayDeque<Entry> queue = new ArrayDeque<>();
    private long bytes;
    /** Offered and not yet settled (queued plus the one being published). */
    private int pending;
    private boolean busy;
    private Runnable onIdle;

    TurnLiveEvents(Function<List<OutboundEvent>, Mono<Void>> publish) {
        this.publish = publish;
    }

    private record Entry(OutboundEvent event, long bytes, Sinks.Empty<Void> done) {
    }

    /** Queues the event and publishes it now (see {@link #enqueue}, {@link #flush}). */
    Mono<Void> offer(OutboundEvent event) {
        Mono<Void> m = enqueue(event);
        flush();
        return m;
    }

    /**
     * Queues the event without publishing (no publish runs on the caller's thread; callers may hold a
     * lock); {@link #flush} publishes. The Mono completes when it is published; {@code null} when refused.
     */
    Mono<Void> enqueue(OutboundEvent event) {
        long size = sizeOf(event);
        Entry e = new Entry(event, size, Sinks.empty());
        synchronized (this) {
            if (pending >= MAX_PENDING || bytes + size > MAX_PENDING_BYTES) {
                return null;
            }
            queue.add(e);
            pending++;
            bytes += size;
        }
        return e.done.asMono();
    }

    /** Publishes what is queued, unless a publish is already under way (it then goes on); call holding no lock. */
    void flush() {
        synchronized (this) {
            if (busy) {
                return;
            }
            busy = true;
        }
        drain();
    }

    /** Runs {@code r} once nothing is pending (now, if nothing is); one waiter. */
    void whenIdle(Runnable r) {
        synchronized (this) {
            onIdle = r;
        }
        flush();
    }

    static LiveEventsOverflowException overflow() {
        return new LiveEventsOverflowException("too many live events of this turn are waiting to be published (at most "
                + MAX_PENDING + " or " + MAX_PENDING_BYTES + " bytes)");
    }

    private void drain() {
        for (;;) {
            Entry e;
            Runnable idle = null;
            synchronized (this) {
                e = queue.poll();
                if (e == null) {
                    busy = false;
                    idle = onIdle;
                    onIdle = null;
                }
            }
            if (e == null) {
                if (idle != null) {
                    idle.run();
                }
                return;
            }
            Mono<Void> m;
            try {
                m = publish.apply(List.of(e.event));
            } catch (Throwable ex) {
                // an Error too: the entry must settle, or the turn's final batch would wait forever
                m = Mono.error(ex);
            }
            Publishing p = new Publishing(e);
            m.subscribe(p);
            if (p.goAsync()) {
                return;
            }
        }
    }

    /** One publish; continues the drain when it completes after {@link #drain} moved on. */
    private final class Publishing implements CoreSubscriber<Void> {
        private static final int RUNNING = 0;
        private static final int DONE = 1;
        private static final int ASYNC = 2;
        private final Entry entry;
        private final AtomicInteger state = new AtomicInteger(RUNNING);

        Publishing(Entry entry) {
            this.entry = entry;
        }

        /** Whether the publish is still running (its completion then continues the drain). */
        boolean goAsync() {
            return state.compareAndSet(RUNNING, ASYNC);
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Void v) {
        }

        @Override
        public void onError(Throwable t) {
            settle(t);
        }

        @Override
        public void onComplete() {
            settle(null);
        }

        private void settle(Throwable error) {
            synchronized (TurnLiveEvents.this) {
                bytes -= entry.bytes;
                pending--;
            }
            if (error == null) {
                entry.done.tryEmitEmpty();
            } else {
                entry.done.tryEmitError(error);
            }
            if (state.getAndSet(DONE) == ASYNC) {
                drain();
            }
        }
    }

    /** A rough size of a live event in bytes (for the bound; no encoding). */
    static long sizeOf(OutboundEvent e) {
        long n = 128;
        if (e instanceof ToolProgressEvent p) {
            n += len(p.message());
        } else if (e instanceof SendMessageEvent s) {
            for (ContentPart c : s.content()) {
                n += 32 + len(c.text()) + len(c.data()) + len(c.mimeType());
            }
        } else if (e instanceof InputRequestEvent i) {
            n += len(i.message()) + (i.schema() == null ? 0 : i.schema().toString().length());
        } else if (e instanceof ApprovalRequestEvent a) {
            n += len(a.text());
            for (ApprovalRequestEvent.Call c : a.calls()) {
                n += 64 + len(c.name()) + len(c.argumentsSummary());
            }
        }
        return n;
    }

    private static long len(String s) {
        return s == null ? 0 : s.length() * 3L;
    }
}
