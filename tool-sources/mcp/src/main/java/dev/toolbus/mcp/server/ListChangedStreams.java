package dev.toolbus.mcp.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

/**
 * The standalone SSE streams of an HTTP transport ({@code GET} with a session id): one per session,
 * carrying the notifications that belong to no request ({@code notifications/tools/list_changed}). A
 * new {@code GET} of a session replaces its old stream. Bounded: at most {@link #MAX_QUEUED} messages
 * wait for a slow client per stream, the rest are dropped (a list-changed notification says the same
 * as the one before it).
 */
final class ListChangedStreams {

    /** The most messages queued for one stream. */
    static final int MAX_QUEUED = 16;
    /** The most streams open at once (the transport bounds its sessions too). */
    static final int MAX_STREAMS = 10_000;

    private final Map<String, Sinks.Many<String>> streams = new ConcurrentHashMap<>();

    /** Opens the stream of a session, ending the one it had; {@code null} when too many are open. */
    Flux<ByteBuf> open(String session) {
        if (streams.size() >= MAX_STREAMS && !streams.containsKey(session)) {
            return null;
        }
        Sinks.Many<String> sink = Sinks.many().unicast().onBackpressureBuffer(Queues.<String>get(MAX_QUEUED).get());
        Sinks.Many<String> old = streams.put(session, sink);
        if (old != null) {
            old.tryEmitComplete();
        }
        return sink.asFlux()
                .map(ListChangedStreams::event)
                .doFinally(s -> streams.remove(session, sink));
    }

    /** Sends an encoded JSON-RPC message on every open stream. */
    void broadcast(String json) {
        streams.values().forEach(s -> s.tryEmitNext(json));
    }

    /** Ends the stream of a session. */
    void close(String session) {
        Sinks.Many<String> s = streams.remove(session);
        if (s != null) {
            s.tryEmitComplete();
        }
    }

    /** Ends every stream. */
    void closeAll() {
        streams.keySet().forEach(this::close);
    }

    int open() {
        return streams.size();
    }

    private static ByteBuf event(String data) {
        return Unpooled.copiedBuffer("event: message\ndata: " + data + "\n\n", StandardCharsets.UTF_8);
    }
}
