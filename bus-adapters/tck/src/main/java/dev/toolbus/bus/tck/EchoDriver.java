package dev.toolbus.bus.tck;

import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.EventDecodeException;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.BusMessage;
import dev.toolbus.spi.ToolBus;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * Stands in for the executor in adapter tests, settling messages exactly as the executor's contract
 * says: decode, publish the turn's events, then ack; a decode error with a stream_id becomes an
 * {@code error} event then ack; without one, dead-letter then ack. Every call's result is its
 * arguments' JSON. Turns run one after the other (so per-stream order holds in one instance).
 */
public final class EchoDriver {

    /** Turns answered so far. */
    public final AtomicInteger turns = new AtomicInteger();

    /** Runs the stand-in on the bus until disposed. */
    public Disposable attach(ToolBus bus) {
        return bus.receive().concatMap(m -> handle(bus, m), 0).subscribe();
    }

    /** Settles one message. */
    public Mono<Void> handle(ToolBus bus, BusMessage m) {
        InboundEvent event;
        try {
            event = EventCodec.defaults().decode(m.payload());
        } catch (EventDecodeException e) {
            if (e.streamId() != null) {
                return bus.publish(List.of(new ErrorEvent(e.streamId(), e.turnId(), ErrorCode.BAD_EVENT, e.getMessage())))
                        .then(m.ack());
            }
            return m.deadLetter(e.getMessage()).then(m.ack());
        }
        if (!(event instanceof ToolCallsEvent turn)) {
            return m.ack();
        }
        List<OutboundEvent> out = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (ToolCall c : turn.calls()) {
            out.add(ToolResultEvent.builder().streamId(turn.streamId()).turnId(turn.turnId())
                    .toolCallId(c.toolCallId()).name(c.name())
                    .content("echo:" + (c.arguments() != null ? c.arguments().toString() : c.argumentsJson()))
                    .attempts(1).build());
            ids.add(c.toolCallId());
        }
        out.add(new TurnCompletedEvent(turn.streamId(), turn.turnId(), ids, 0, 0));
        turns.incrementAndGet();
        return bus.publish(out).then(m.ack());
    }

    /** A one-call {@code echo} turn as JSON. */
    public static String turn(String streamId, String turnId, String text) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + streamId + "\",\"turn_id\":\"" + turnId
                + "\",\"calls\":[{\"tool_call_id\":\"" + turnId + "-c1\",\"name\":\"echo\",\"arguments\":{\"text\":\""
                + text + "\"}}]}";
    }
}
