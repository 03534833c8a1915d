package dev.toolbus.bus;

import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.ToolBus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The embedded bus: turns go in with {@link #send(InboundEvent)}, events come out per stream with
 * {@link #events(String)} (or all with {@link #events()}). Inbound messages are buffered until the
 * executor asks for them; outbound events are multicast to current subscribers and buffered (up to
 * {@code outboundBuffer}) while there are none.
 */
public final class InMemoryBus implements ToolBus {

    private final EventCodec codec;
    private final Sinks.Many<BusMessage> inbound = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Many<OutboundEvent> outbound;
    private final Sinks.Many<String> deadLetters = Sinks.many().replay().limit(1000);
    private final Object emitLock = new Object();

    private InMemoryBus(EventCodec codec, int outboundBuffer) {
        this.codec = codec;
        this.outbound = Sinks.many().multicast().onBackpressureBuffer(outboundBuffer, false);
    }

    /** A bus with the default codec and a 65536-event outbound buffer. */
    public static InMemoryBus create() {
        return new InMemoryBus(EventCodec.defaults(), 65_536);
    }

    /** A bus with its own codec and outbound buffer. */
    public static InMemoryBus create(EventCodec codec, int outboundBuffer) {
        return new InMemoryBus(Objects.requireNonNull(codec, "codec"), outboundBuffer);
    }

    /** Sends an event to the executor. */
    public void send(InboundEvent event) {
        send(codec.encode(event));
    }

    /** Sends raw JSON to the executor (it may be invalid: it is answered like any bad input). */
    public void send(String json) {
        byte[] payload = json.getBytes(StandardCharsets.UTF_8);
        emit(inbound, new Message(payload, deadLetters));
    }

    /** Ends the input: the executor drains and its {@code run(bus)} completes. */
    public void complete() {
        synchronized (emitLock) {
            inbound.tryEmitComplete();
        }
    }

    /** Every published event. */
    public Flux<OutboundEvent> events() {
        return outbound.asFlux();
    }

    /** The published events of one stream. */
    public Flux<OutboundEvent> events(String streamId) {
        return outbound.asFlux().filter(e -> streamId.equals(e.streamId()));
    }

    /** Reasons of dead-lettered messages (the last 1000). */
    public Flux<String> deadLetters() {
        return deadLetters.asFlux();
    }

    @Override
    public Flux<BusMessage> receive() {
        return inbound.asFlux();
    }

    @Override
    public Mono<Void> publish(List<OutboundEvent> events) {
        return Mono.fromRunnable(() -> {
            synchronized (emitLock) {
                for (OutboundEvent e : events) {
                    Sinks.EmitResult r = outbound.tryEmitNext(e);
                    if (r.isFailure() && r != Sinks.EmitResult.FAIL_ZERO_SUBSCRIBER) {
                        throw new IllegalStateException("in-memory bus cannot publish: " + r);
                    }
                }
            }
        });
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> {
            complete();
            synchronized (emitLock) {
                outbound.tryEmitComplete();
            }
        });
    }

    private <T> void emit(Sinks.Many<T> sink, T value) {
        synchronized (emitLock) {
            Sinks.EmitResult r = sink.tryEmitNext(value);
            if (r.isFailure()) {
                throw new IllegalStateException("in-memory bus is closed: " + r);
            }
        }
    }

    private record Message(byte[] payload, Sinks.Many<String> deadLetters) implements BusMessage {
        @Override
        public Mono<Void> ack() {
            return Mono.empty();
        }

        @Override
        public Mono<Void> deadLetter(String reason) {
            return Mono.fromRunnable(() -> {
                synchronized (deadLetters) {
                    deadLetters.tryEmitNext(reason);
                }
            });
        }
    }
}
