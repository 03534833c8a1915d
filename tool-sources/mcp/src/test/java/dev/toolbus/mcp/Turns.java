package dev.toolbus.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.UserMessageEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Runs one-call turns through an executor, for the tests. */
final class Turns {

    private static final AtomicInteger SEQ = new AtomicInteger();

    private Turns() {
    }

    static ObjectNode args(String json) {
        try {
            return (ObjectNode) Json.mapper().readTree(json);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** The events of a one-call turn. */
    static List<OutboundEvent> run(ToolExecutor executor, String tool, String argsJson) {
        int n = SEQ.incrementAndGet();
        ToolCallsEvent turn = ToolCallsEvent.of("test-stream-" + n, "turn-" + n,
                List.of(ToolCall.of("call_" + n, tool, args(argsJson))));
        return executor.execute(turn).collectList().block(Duration.ofSeconds(30));
    }

    static ToolResultEvent result(List<OutboundEvent> events) {
        return events.stream().filter(ToolResultEvent.class::isInstance).map(ToolResultEvent.class::cast).findFirst()
                .orElseThrow();
    }

    static List<UserMessageEvent> media(List<OutboundEvent> events) {
        return events.stream().filter(UserMessageEvent.class::isInstance).map(UserMessageEvent.class::cast).toList();
    }
}
