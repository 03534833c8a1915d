package dev.toolbus.gateway;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the gateway's connections within bounds: at most {@code maxConnections} open; a connection
 * must deliver a whole request head within {@code headerTimeout} of opening, and the next one
 * within {@code idleTimeout} of its previous response (a slowly dribbled head is closed, whatever its
 * pace); and when the cap is reached, the
 * connection idle longest (waiting for a request, not serving one) makes room for the new one, so
 * that sockets held open by a client that sends nothing cannot lock out {@code /healthz} or real
 * clients. A connection that is serving a request (a turn, an SSE stream, a WebSocket) is never
 * evicted; when every one is busy, a new connection is closed at once.
 *
 * <p>A response that closes its connection ({@code Connection: close}: 401, 413, 408) before the
 * request body has arrived is followed by a lingering close: the server stops writing, discards what
 * still comes for at most {@value #LINGER_MS} ms, then closes. The client, still sending, can then read
 * the answer instead of losing it to a reset, and a slow sender holds the socket no longer than that.
 *
 * <p>One {@link Tracker} sits in each channel's pipeline right after the HTTP codec.
 */
final class ConnectionGuard {

    private static final Logger log = LoggerFactory.getLogger(ConnectionGuard.class);
    /** How long a closing connection keeps reading (and discarding) the rest of a request. */
    static final long LINGER_MS = 2000;

    private final int maxConnections;
    private final long headerTimeoutMs;
    private final long idleTimeoutMs;
    private final GatewayMeters meters;
    private final AtomicInteger open = new AtomicInteger();
    /** Connections waiting for a request, oldest first; guarded by itself. */
    private final LinkedHashSet<Channel> idle = new LinkedHashSet<>();

    ConnectionGuard(int maxConnections, Duration headerTimeout, Duration idleTimeout, GatewayMeters meters) {
        this.maxConnections = maxConnections;
        this.headerTimeoutMs = headerTimeout.toMillis();
        this.idleTimeoutMs = idleTimeout.toMillis();
        this.meters = meters;
    }

    int open() {
        return open.get();
    }

    Tracker tracker() {
        return new Tracker();
    }

    private void markIdle(Channel ch) {
        synchronized (idle) {
            idle.add(ch);
        }
    }

    private void markBusy(Channel ch) {
        synchronized (idle) {
            idle.remove(ch);
        }
    }

    /** Closes the oldest idle connection; false when none is idle. */
    private boolean evictOne() {
        Channel victim = null;
        synchronized (idle) {
            Iterator<Channel> it = idle.iterator();
            if (it.hasNext()) {
                victim = it.next();
                it.remove();
            }
        }
        if (victim == null) {
            return false;
        }
        meters.connectionClosed("evicted");
        victim.close();
        return true;
    }

    /** Per-connection state; touched on the channel's event loop only. */
    final class Tracker extends ChannelDuplexHandler {
        private boolean counted;
        private boolean upgraded;
        private boolean requestComplete = true;
        private boolean closeAfterResponse;
        private boolean lingering;
        /** Requests read and not yet answered (more than one when a client pipelines). */
        private int outstanding;
        private ScheduledFuture<?> deadline;

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            if (ctx.channel().isActive()) {
                opened(ctx);
            }
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            opened(ctx);
            super.channelActive(ctx);
        }

        private void opened(ChannelHandlerContext ctx) {
            if (counted) {
                return;
            }
            counted = true;
            if (open.incrementAndGet() > maxConnections && !evictOne()) {
                meters.connectionClosed("limit");
                log.debug("gateway: {} connections open, closing {}", maxConnections, ctx.channel().remoteAddress());
                ctx.channel().close();
                return;
            }
            idle(ctx, headerTimeoutMs);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            if (counted) {
                counted = false;
                open.decrementAndGet();
            }
            cancelDeadline();
            markBusy(ctx.channel());
            super.channelInactive(ctx);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
            if (lingering) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (!upgraded) {
                if (msg instanceof HttpRequest) {
                    outstanding++;
                    cancelDeadline();
                    markBusy(ctx.channel());
                    requestComplete = false;
                    closeAfterResponse = false;
                }
                if (msg instanceof LastHttpContent) {
                    requestComplete = true;
                }
            }
            super.channelRead(ctx, msg);
        }

        @Override
        public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
            ChannelOutboundBuffer unsent = ctx.channel().unsafe().outboundBuffer();
            if (!lingering && !upgraded && closeAfterResponse && !requestComplete && ctx.channel().isActive()
                    && ctx.channel() instanceof SocketChannel socket && (unsent == null || unsent.isEmpty())) {
                lingering = true;
                cancelDeadline();
                markIdle(ctx.channel());
                socket.shutdownOutput();
                ctx.channel().config().setAutoRead(true);
                ctx.executor().schedule(() -> {
                    ctx.close(promise);
                }, LINGER_MS, TimeUnit.MILLISECONDS);
                return;
            }
            super.close(ctx, promise);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
            if (!upgraded && msg instanceof HttpResponse r) {
                if (r.status().code() == HttpResponseStatus.SWITCHING_PROTOCOLS.code()) {
                    upgraded = true; // a WebSocket from now on: its session watches it
                } else {
                    closeAfterResponse = !HttpUtil.isKeepAlive(r);
                }
            }
            if (!upgraded && msg instanceof LastHttpContent) {
                promise = promise.unvoid();
                promise.addListener(f -> {
                    outstanding = Math.max(0, outstanding - 1);
                    if (ctx.channel().isActive() && !upgraded && outstanding == 0) {
                        idle(ctx, idleTimeoutMs);
                        resumeReading(ctx);
                    }
                });
            }
            super.write(ctx, msg, promise);
        }

        /**
         * Asks for the next request once every one read has been answered. reactor-netty reads on demand
         * and 1.3.7 can leave no read asked for after answering a pipelined request at once (its issue
         * 4361, fixed in 1.3.8): the next request then sat unread until the idle deadline closed the
         * connection. One more read asked for while one is pending changes nothing.
         */
        private void resumeReading(ChannelHandlerContext ctx) {
            if (!ctx.channel().config().isAutoRead()) {
                ctx.read();
            }
        }

        private void idle(ChannelHandlerContext ctx, long timeoutMs) {
            markIdle(ctx.channel());
            cancelDeadline();
            deadline = ctx.executor().schedule(() -> {
                meters.connectionClosed("header_timeout");
                // what the connection's state was says whether the head was not sent or not read
                log.debug("gateway: no request head from {} within {} ms; closing (auto-read {}, requests unanswered {},"
                        + " last request complete {})", ctx.channel().remoteAddress(), timeoutMs,
                        ctx.channel().config().isAutoRead(), outstanding, requestComplete);
                ctx.channel().close();
            }, timeoutMs, TimeUnit.MILLISECONDS);
        }

        private void cancelDeadline() {
            if (deadline != null) {
                deadline.cancel(false);
                deadline = null;
            }
        }
    }
}
