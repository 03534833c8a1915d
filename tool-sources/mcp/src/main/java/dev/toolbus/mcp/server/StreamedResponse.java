package dev.toolbus.mcp.server;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.spec.McpSchema;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.http.server.HttpServerResponse;
import reactor.util.concurrent.Queues;

/**
 * The HTTP answer to one request from a client that accepts {@code text/event-stream}: plain JSON when
 * the response is the only message, else an SSE stream of the messages the call sends the client
 * (progress, log messages, {@code elicitation/create}) ending with the response. Messages waiting for
 * a slow client are bounded in entries and bytes; beyond that they are dropped with a warning (the
 * response itself always goes out). A dropped connection cancels the call.
 */
final class StreamedResponse {

    /** The most messages one request's stream queues for a slow client. */
    static final int MAX_QUEUED = 1024;
    /** Their encoded size, at most. */
    static final long MAX_QUEUED_BYTES = 4L * 1024 * 1024;

    private static final Logger log = LoggerFactory.getLogger(StreamedResponse.class);

    private StreamedResponse() {
    }

    /** One encoded message; {@code last} for the response. */
    private record Out(String json, boolean last) {
    }

    /**
     * @param sendJson writes a plain JSON answer (status, encoded body)
     */
    static Publisher<Void> send(RpcDispatcher dispatcher, McpJsonMapper json, String scope, String principal,
                                McpSchema.JSONRPCRequest request, HttpServerResponse res,
                                BiFunction<HttpResponseStatus, String, Publisher<Void>> sendJson) {
        AtomicLong queuedBytes = new AtomicLong();
        Flux<Out> messages = Flux.defer(() -> {
            Sinks.Many<Out> out = Sinks.many().unicast().onBackpressureBuffer(Queues.<Out>get(MAX_QUEUED).get());
            Consumer<Out> emit = m -> out.emitNext(m, (signal, result) -> {
                if (result == Sinks.EmitResult.FAIL_OVERFLOW) {
                    log.warn("MCP request {}: more than {} messages queued for the client; one dropped", request.id(),
                            MAX_QUEUED);
                }
                return result == Sinks.EmitResult.FAIL_NON_SERIALIZED;
            });
            Consumer<Object> toClient = m -> {
                String s = encode(json, m);
                if (queuedBytes.addAndGet(s.length()) > MAX_QUEUED_BYTES) {
                    queuedBytes.addAndGet(-s.length());
                    log.warn("MCP request {}: more than {} bytes queued for the client; a message dropped", request.id(),
                            MAX_QUEUED_BYTES);
                    return;
                }
                emit.accept(new Out(s, false));
            };
            Disposable call = dispatcher.request(scope, principal, request, toClient)
                    .switchIfEmpty(Mono.fromSupplier(() -> McpSchema.JSONRPCResponse.error(request.id(),
                            new McpSchema.JSONRPCResponse.JSONRPCError(-32800, "request cancelled", null))))
                    .subscribe(r -> {
                        emit.accept(new Out(encode(json, r), true));
                        out.tryEmitComplete();
                    }, e -> {
                        emit.accept(new Out(encode(json, RpcDispatcher.errorResponse(request.id(),
                                McpSchema.ErrorCodes.INTERNAL_ERROR, String.valueOf(e.getMessage()))), true));
                        out.tryEmitComplete();
                    });
            return out.asFlux().doOnCancel(call::dispose);
        });
        return messages.switchOnFirst((first, all) -> {
            if (!first.hasValue()) {
                return Mono.<Void>empty();
            }
            if (first.get().last()) {
                return Mono.from(sendJson.apply(HttpResponseStatus.OK, first.get().json()));
            }
            res.status(HttpResponseStatus.OK).header("Content-Type", "text/event-stream").header("Cache-Control", "no-cache");
            return res.send(all.map(m -> {
                if (!m.last()) {
                    queuedBytes.addAndGet(-m.json().length());
                }
                return event(m.json());
            }), b -> true).then();
        }).then();
    }

    private static String encode(McpJsonMapper json, Object message) {
        try {
            return json.writeValueAsString(message);
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode an MCP message", e);
        }
    }

    private static ByteBuf event(String data) {
        return Unpooled.copiedBuffer("event: message\ndata: " + data + "\n\n", StandardCharsets.UTF_8);
    }
}
