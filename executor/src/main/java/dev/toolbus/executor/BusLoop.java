package dev.toolbus.executor;

import dev.toolbus.bus.BusMessage;
import dev.toolbus.bus.ToolBus;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.EventDecodeException;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * Runs an executor on a bus: decode, run, publish the turn's events in order, then acknowledge. Control
 * events act at once through {@link ToolExecutor#control}; an answer to an id nobody waits for is
 * answered with an {@code UNKNOWN_REQUEST} error event. At
 * most {@code maxInflightTurns} messages are taken at once (demand is the bus's backpressure).
 * Nothing is dropped: undecodable input is answered on its stream or dead-lettered; a failed publish
 * leaves the message unacknowledged so the bus delivers it again.
 */
final class BusLoop {

    private static final Logger log = LoggerFactory.getLogger(BusLoop.class);

    private final DefaultToolExecutor executor;
    private final ToolBus bus;
    private final EventCodec codec;
    private final int maxInflightTurns;

    BusLoop(DefaultToolExecutor executor, ToolBus bus, EventCodec codec, int maxInflightTurns) {
        this.executor = executor;
        this.bus = bus;
        this.codec = codec;
        this.maxInflightTurns = maxInflightTurns;
    }

    Mono<Void> run() {
        return bus.receive()
                .flatMap(this::handle, maxInflightTurns)
                .then();
    }

    private Mono<Void> handle(BusMessage msg) {
        InboundEvent event;
        try {
            event = codec.decode(msg.payload());
        } catch (EventDecodeException e) {
            log.warn("bad event {}: {}", msg.id(), e.getMessage());
            Mono<Void> answer = e.streamId() != null
                    ? bus.publish(List.of(e.toErrorEvent()))
                    : msg.deadLetter(e.getMessage());
            return settle(msg, answer);
        } catch (RuntimeException e) {
            log.error("cannot decode message {}", msg.id(), e);
            return settle(msg, msg.deadLetter("cannot decode: " + e));
        }
        if (event instanceof ListToolsEvent l) {
            return settle(msg, Mono.defer(() -> bus.publish(List.of(executor.listTools(l)))));
        }
        if (event instanceof ControlEvent c) {
            // acts at once, whatever the stream's lane is doing
            return settle(msg, executor.control(c).flatMap(o -> o == ControlOutcome.UNKNOWN_REQUEST
                    ? bus.publish(List.of(DefaultToolExecutor.unknownRequest(c))) : Mono.<Void>empty()));
        }
        ToolCallsEvent turn = (ToolCallsEvent) event;
        return settle(msg, executor.runForBus(turn, bus::publish));
    }

    private Mono<Void> settle(BusMessage msg, Mono<Void> answer) {
        return answer
                .then(Mono.defer(msg::ack))
                .onErrorResume(e -> {
                    log.error("message {} not acknowledged (it will be delivered again): {}", msg.id(), e.toString());
                    return Mono.empty();
                });
    }
}
