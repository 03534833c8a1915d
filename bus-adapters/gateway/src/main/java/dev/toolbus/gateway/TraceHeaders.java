package dev.toolbus.gateway;

import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.TraceContext;
import io.netty.handler.codec.http.HttpHeaders;

/**
 * The W3C {@code traceparent}/{@code tracestate} HTTP headers of a {@code POST /v1/turns} or
 * {@code POST /v1/control}, for events that carry no trace context of their own (the event's fields win).
 * Invalid headers are ignored.
 */
final class TraceHeaders {

    private TraceHeaders() {
    }

    static InboundEvent onto(InboundEvent event, HttpHeaders headers) {
        if (event.trace() != null) {
            return event;
        }
        String tp = headers.get("traceparent");
        if (tp == null) {
            return event;
        }
        TraceContext trace = TraceContext.parse(tp, headers.get("tracestate"));
        if (trace == null) {
            return event;
        }
        if (event instanceof ToolCallsEvent t) {
            return t.withTrace(trace);
        }
        if (event instanceof ListToolsEvent l) {
            return new ListToolsEvent(l.streamId(), l.requestId(), l.context(), l.format(), l.text(), trace);
        }
        if (event instanceof CancelEvent c) {
            return c.withTrace(trace);
        }
        if (event instanceof ApprovalResponseEvent a) {
            return a.withTrace(trace);
        }
        if (event instanceof InputResponseEvent i) {
            return i.withTrace(trace);
        }
        return event;
    }
}
