package dev.toolbus.gateway;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.EventDecodeException;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.OutboundEvent;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SynchronousSink;
import reactor.netty.Connection;
import reactor.netty.http.websocket.WebsocketInbound;
import reactor.netty.http.websocket.WebsocketOutbound;

/**
 * One WebSocket connection. Inbound messages are decoded and run, at most
 * {@code maxTurnsPerConnection} at once (then the socket is not read); outbound frames (events, the
 * pongs answering the client's pings, the server's own pings) are written straight to the channel, and
 * every byte not yet written to the socket is counted, each frame with {@value #FRAME_OVERHEAD} bytes
 * of overhead besides its payload: above {@code maxOutboundBytes} the client is too slow and is
 * disconnected with 1008. A text message that is not valid UTF-8 closes the connection with 1007.
 */
final class WsSession {

    private static final Logger log = LoggerFactory.getLogger(WsSession.class);

    /** Close codes (RFC 6455 section 7.4.1). */
    static final int GOING_AWAY = 1001;
    static final int INVALID_PAYLOAD = 1007;
    static final int POLICY_VIOLATION = 1008;
    static final int MESSAGE_TOO_BIG = 1009;

    private static final byte[] PING = "toolbus".getBytes(StandardCharsets.US_ASCII);
    /** What one queued frame costs besides its payload (Netty's outbound entry and frame header), counted. */
    static final int FRAME_OVERHEAD = 128;

    private final NettyGatewayServer server;
    private final WebsocketInbound in;
    private final WebsocketOutbound out;
    private final AccessTokens.Grant grant;
    private final int maxMessageBytes;
    private final long maxOutboundBytes;
    private final AtomicInteger inflight = new AtomicInteger();
    /** Set once: no more frames are written. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Set once: a close frame is on its way. */
    private final AtomicBoolean closeStarted = new AtomicBoolean();
    private Connection connection;
    private Channel channel;
    private volatile boolean awaitingPong;
    /** Bytes handed to the channel and not yet taken by the socket; touched on the event loop only. */
    private long pending;
    /** The most bytes ever waiting for this client; touched on the event loop only. */
    private long peakPending;
    /** Frames handed to the loop's task queue and not yet written. */
    private final AtomicInteger queued = new AtomicInteger();
    /** A flush of the frames written so far is in the loop's task queue; touched on the event loop only. */
    private boolean flushQueued;
    /** The channel is delivering a batch of reads; touched on the event loop only. */
    private boolean reading;
    /** Frames were written during the current batch of reads, flushed when it ends; event loop only. */
    private boolean flushAtReadEnd;

    // message assembly; touched only by the inbound signal chain, which is serial
    private byte[] partial;
    private int partialSize;
    private boolean partialText;

    WsSession(NettyGatewayServer server, WebsocketInbound in, WebsocketOutbound out, AccessTokens.Grant grant) {
        this.server = server;
        this.in = in;
        this.out = out;
        this.grant = grant;
        this.maxMessageBytes = server.config.maxRequestBytes;
        this.maxOutboundBytes = server.config.maxOutboundBytes;
    }

    Mono<Void> run() {
        in.withConnection(c -> {
            connection = c;
            channel = c.channel();
        });
        server.sessions.add(this);
        connection.addHandlerLast(ReadBatch.NAME, new ReadBatch());
        connection.onDispose(() -> {
            closing.set(true);
            server.sessions.remove(this);
        });
        connection.onReadIdle(server.config.pingInterval.toMillis(), this::onReadIdle);
        return in.receiveFrames()
                .<byte[]>handle(this::assemble)
                .flatMap(this::answer, server.config.maxTurnsPerConnection)
                .takeUntilOther(connection.onDispose())
                .then();
    }

    // --- inbound -----------------------------------------------------------------------------------

    private void assemble(WebSocketFrame frame, SynchronousSink<byte[]> sink) {
        awaitingPong = false;
        if (closing.get()) {
            return;
        }
        if (frame instanceof PingWebSocketFrame) {
            // answered here, not by reactor-netty, so that a client that pings and never reads is bounded
            byte[] payload = ByteBufUtil.getBytes(frame.content());
            if (channel.eventLoop().inEventLoop()) {
                write(new PongWebSocketFrame(Unpooled.wrappedBuffer(payload)));
            } else {
                channel.eventLoop().execute(() -> write(new PongWebSocketFrame(Unpooled.wrappedBuffer(payload))));
            }
            return;
        }
        if (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame) {
            partial = null;
            partialSize = 0;
            partialText = frame instanceof TextWebSocketFrame;
            if (frame.isFinalFragment()) {
                // checked in the frame's own buffer, copied only when valid
                if (checkText(partialText, frame.content())) {
                    sink.next(ByteBufUtil.getBytes(frame.content()));
                }
            } else {
                append(frame.content());
            }
        } else if (frame instanceof ContinuationWebSocketFrame) {
            if (partial == null) {
                return;
            }
            if (!append(frame.content())) {
                return;
            }
            if (frame.isFinalFragment()) {
                byte[] whole = partialSize == partial.length ? partial : Arrays.copyOf(partial, partialSize);
                partial = null;
                partialSize = 0;
                if (checkText(partialText, Unpooled.wrappedBuffer(whole))) {
                    sink.next(whole);
                }
            }
        }
        // pongs only reset awaitingPong
    }

    /** A text message must be UTF-8 (RFC 6455 section 8.1); binary ones are decoded as JSON, which reports bad bytes. */
    private boolean checkText(boolean text, ByteBuf message) {
        if (text && !ByteBufUtil.isText(message, StandardCharsets.UTF_8)) {
            closeWith(INVALID_PAYLOAD, "text message is not valid UTF-8", "invalid_utf8");
            return false;
        }
        return true;
    }

    private boolean append(ByteBuf content) {
        int n = content.readableBytes();
        if ((long) partialSize + n > maxMessageBytes) {
            partial = null;
            partialSize = 0;
            closeWith(MESSAGE_TOO_BIG, "message above the " + maxMessageBytes + "-byte limit", "too_big");
            return false;
        }
        if (partial == null) {
            partial = new byte[Math.max(n, 1024)];
        } else if (partialSize + n > partial.length) {
            partial = Arrays.copyOf(partial, Math.min(maxMessageBytes, Math.max(partialSize + n, partial.length * 2)));
        }
        content.getBytes(content.readerIndex(), partial, partialSize, n);
        partialSize += n;
        return true;
    }

    private Mono<Void> answer(byte[] message) {
        InboundEvent event;
        try {
            event = server.codec.decode(message);
        } catch (EventDecodeException e) {
            send(HttpEndpoints.bounded(e.toErrorEvent()));
            return Mono.empty();
        }
        if (server.closing() && !(event instanceof ControlEvent)) {
            send(NettyGatewayServer.shuttingDown(event.streamId()));
            return Mono.empty();
        }
        EventAdmission.Result admitted = EventAdmission.admit(grant, event);
        if (admitted.refusal() != null) {
            send(HttpEndpoints.bounded(admitted.refusal()));
            return Mono.empty();
        }
        // the counts of graceful close and of this connection in one pair of hooks (no extra operators per turn)
        return server.config.executor.handle(admitted.event(), grant.scope().principal())
                .doOnSubscribe(s -> {
                    server.turnStarted();
                    inflight.incrementAndGet();
                })
                .doOnNext(this::send)
                .doFinally(s -> {
                    inflight.decrementAndGet();
                    server.turnEnded();
                })
                .then();
    }

    // --- outbound ----------------------------------------------------------------------------------

    /**
     * Queues one event for the client. It is encoded on the calling thread and written on the channel's
     * event loop, in the order of the calls.
     */
    void send(OutboundEvent event) {
        if (closing.get()) {
            return;
        }
        TextWebSocketFrame frame = encode(event);
        if (frame == null) {
            return;
        }
        // events of one turn are emitted on several threads: a write made inline on the loop would
        // overtake writes other threads queued before it, so it is inline only when none is queued
        if (queued.get() == 0 && channel.eventLoop().inEventLoop()) {
            write(frame);
            return;
        }
        queued.incrementAndGet();
        try {
            channel.eventLoop().execute(() -> {
                queued.decrementAndGet();
                write(frame);
            });
        } catch (RuntimeException | Error e) {
            queued.decrementAndGet();
            frame.release();
            throw e;
        }
    }

    /**
     * The event's UTF-8 in a heap array of its own; null (logged) when it cannot be encoded. Netty's frame
     * encoder copies a payload of up to 1 KiB into the frame header's buffer anyway, so a pooled buffer
     * here would only add an allocation (and the leak detector's sampled stack trace, taken at the depth
     * of a whole turn) for nothing.
     */
    private TextWebSocketFrame encode(OutboundEvent event) {
        byte[] json;
        try {
            json = server.codec.encodeToBytes(event);
        } catch (RuntimeException e) {
            log.warn("gateway: could not encode a {} event: {}", event.type(), e.toString());
            return null;
        }
        return new TextWebSocketFrame(Unpooled.wrappedBuffer(json));
    }

    /**
     * On the event loop: hands the frame to the channel, or disconnects the client when the bytes the
     * socket has not yet taken would pass the bound. Bytes leave the count when the kernel accepts
     * them, so a client that reads keeps the count near zero whatever the burst.
     */
    private void write(WebSocketFrame frame) {
        if (closing.get()) {
            frame.release();
            return;
        }
        long n = frame.content().readableBytes() + (long) FRAME_OVERHEAD;
        long before = pending;
        if (before > 0 && before + n > maxOutboundBytes) {
            frame.release();
            closeWith(POLICY_VIOLATION, "outbound buffer full (" + maxOutboundBytes
                    + " bytes): the client does not read fast enough", "slow_consumer");
            return;
        }
        pending = before + n;
        server.meters.pendingBytes.addAndGet(n);
        if (pending > peakPending) {
            peakPending = pending;
            server.meters.peakPendingPerConnection.accumulateAndGet(pending, Math::max);
        }
        channel.write(frame).addListener(f -> {
            pending -= n;
            server.meters.pendingBytes.addAndGet(-n);
        });
        if (reading) {
            // written while a batch of reads is delivered (a turn that ran inline): one flush when it ends,
            // without a task in the loop's queue
            flushAtReadEnd = true;
        } else if (!flushQueued) {
            // one flush (one syscall) for every frame written before the loop gets to it: the events of a turn
            flushQueued = true;
            channel.eventLoop().execute(this::flush);
        }
    }

    /**
     * Marks the batches of reads of this connection, so that the frames written while one is delivered
     * (the events of turns that ran on the event loop) leave in one flush at its end, as a Netty
     * handler that writes in {@code channelRead} flushes in {@code channelReadComplete}.
     */
    private final class ReadBatch extends ChannelInboundHandlerAdapter {
        static final String NAME = "toolbus.ws.readBatch";

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            reading = true;
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            reading = false;
            if (flushAtReadEnd) {
                flushAtReadEnd = false;
                channel.flush();
            }
            ctx.fireChannelReadComplete();
        }
    }

    private void flush() {
        flushQueued = false;
        channel.flush();
    }

    private void onReadIdle() {
        if (closing.get()) {
            return;
        }
        if (awaitingPong && inflight.get() == 0) {
            closing.set(true);
            server.meters.wsClosed("dead_peer");
            log.debug("gateway: dropping WebSocket {} that answered no ping", channel.remoteAddress());
            channel.close();
            return;
        }
        awaitingPong = true;
        write(new PingWebSocketFrame(Unpooled.wrappedBuffer(PING)));
    }

    /** Sends a close frame with {@code code}; drops the connection if it is not written in time. */
    private void closeWith(int code, String reason, String metricReason) {
        if (!closeStarted.compareAndSet(false, true)) {
            return;
        }
        if (code != GOING_AWAY) {
            closing.set(true); // nothing more for this client, not even what is queued
        }
        server.meters.wsClosed(metricReason);
        log.debug("gateway: closing WebSocket {} with {}: {}", channel.remoteAddress(), code, reason);
        // queued behind the events already accepted for this client; on shutdown they are still written
        channel.eventLoop().execute(() -> {
            closing.set(true);
            out.sendClose(code, reason).subscribe(null, e -> channel.close());
        });
        channel.eventLoop().schedule(() -> {
            if (channel.isOpen()) {
                channel.close();
            }
        }, server.config.closeTimeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Closes with 1001 for a server shutdown; completes when the connection is gone. */
    Mono<Void> closeForShutdown() {
        closeWith(GOING_AWAY, "server shutting down", "shutdown");
        return connection.onDispose();
    }

    @Override
    public String toString() {
        return "WsSession[" + (channel == null ? "?" : channel.remoteAddress()) + "]";
    }
}
