package dev.toolbus.mcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.netty.NettyPipeline;

/**
 * The open connections of an HTTP endpoint, bounded two ways so that sockets that dribble headers
 * cannot lock clients out:
 *
 * <ul>
 *   <li>a <b>header deadline</b>: a connection must complete a request's headers within
 *       {@code headerTimeout} of sending its first byte (of accepting the connection, for the first
 *       request); else it is closed;</li>
 *   <li><b>eviction at the cap</b>: a connection accepted while {@code max} are open closes the
 *       oldest <i>idle</i> one (no request in progress: still sending headers, or waiting between
 *       requests) to take its place; only when every open connection is serving a request is the
 *       new one closed instead.</li>
 * </ul>
 */
final class HttpConnections {

    private static final Logger log = LoggerFactory.getLogger(HttpConnections.class);

    private final int max;
    private final long headerTimeoutNanos;
    private final LongSupplier nanos;
    private final Map<Channel, State> open = new ConcurrentHashMap<>();
    private final AtomicInteger evicted = new AtomicInteger();
    private final AtomicInteger timedOut = new AtomicInteger();

    HttpConnections(int max, Duration headerTimeout, LongSupplier nanos) {
        this.max = max;
        this.headerTimeoutNanos = headerTimeout.toNanos();
        this.nanos = nanos;
    }

    /** One connection: whether it serves a request, and since when it is idle. */
    private static final class State {
        volatile boolean busy;
        volatile long idleSince;
        ScheduledFuture<?> deadline;

        State(long now) {
            idleSince = now;
        }
    }

    /** A new connection: admitted (making room when needed) with its deadline armed, or closed. */
    void accepted(Channel ch) {
        synchronized (this) {
            if (open.size() >= max && !evictOldestIdle()) {
                log.debug("mcp http: {} connections open and all busy; closing {}", max, ch.remoteAddress());
                ch.close();
                return;
            }
            State s = new State(nanos.getAsLong());
            open.put(ch, s);
            ch.closeFuture().addListener(f -> {
                open.remove(ch);
                cancel(s);
            });
            if (ch.pipeline().get(NettyPipeline.HttpCodec) != null) {
                ch.pipeline().addBefore(NettyPipeline.HttpCodec, "toolbus.mcp.rawBytes", new RawBytes(s));
                ch.pipeline().addAfter(NettyPipeline.HttpCodec, "toolbus.mcp.requests", new Requests(s));
            }
            arm(ch, s);
        }
    }

    private boolean evictOldestIdle() {
        Channel oldest = null;
        long since = Long.MAX_VALUE;
        for (Map.Entry<Channel, State> e : open.entrySet()) {
            State s = e.getValue();
            if (!s.busy && s.idleSince < since) {
                since = s.idleSince;
                oldest = e.getKey();
            }
        }
        if (oldest == null) {
            return false;
        }
        State s = open.remove(oldest);
        if (s != null) {
            cancel(s);
        }
        evicted.incrementAndGet();
        log.debug("mcp http: at the cap of {} connections; closing the oldest idle one, {}", max, oldest.remoteAddress());
        oldest.close();
        return true;
    }

    private void arm(Channel ch, State s) {
        synchronized (s) {
            if (s.deadline == null && !s.busy) {
                s.deadline = ch.eventLoop().schedule(() -> {
                    timedOut.incrementAndGet();
                    log.debug("mcp http: {} sent no complete request headers within {} ms; closed", ch.remoteAddress(),
                            TimeUnit.NANOSECONDS.toMillis(headerTimeoutNanos));
                    ch.close();
                }, headerTimeoutNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    private static void cancel(State s) {
        synchronized (s) {
            if (s.deadline != null) {
                s.deadline.cancel(false);
                s.deadline = null;
            }
        }
    }

    /** Connections open now. */
    int open() {
        return open.size();
    }

    /** Connections closed to make room (tests, logs). */
    int evicted() {
        return evicted.get();
    }

    /** Connections closed at their header deadline (tests, logs). */
    int timedOut() {
        return timedOut.get();
    }

    /** Before the codec: the first byte of a request arms the header deadline. */
    private final class RawBytes extends ChannelInboundHandlerAdapter {
        private final State s;

        RawBytes(State s) {
            this.s = s;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!s.busy && msg instanceof ByteBuf b && b.isReadable()) {
                arm(ctx.channel(), s);
            }
            ctx.fireChannelRead(msg);
        }
    }

    /** After the codec: a request's headers end the deadline; the end of its response makes the connection idle. */
    private final class Requests extends ChannelDuplexHandler {
        private final State s;

        Requests(State s) {
            this.s = s;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpRequest) {
                s.busy = true;
                cancel(s);
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof LastHttpContent) {
                // idle as the response's end is written, not once the write is reported done: its client
                // may have read it (and opened the next connection) before that report runs
                s.idleSince = nanos.getAsLong();
                s.busy = false;
            }
            ctx.write(msg, promise);
        }
    }
}
