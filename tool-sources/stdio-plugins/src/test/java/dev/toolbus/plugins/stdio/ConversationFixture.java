package dev.toolbus.plugins.stdio;

import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import reactor.core.Disposable;

/** A turn running in the background, its events collected as they come. */
final class ConversationFixture {

    private static final AtomicInteger TURNS = new AtomicInteger();

    final String streamId;
    final String turnId;
    final List<OutboundEvent> events = new CopyOnWriteArrayList<>();
    final Disposable subscription;

    private ConversationFixture(ToolExecutor ex, String streamId, ToolCall... calls) {
        this.streamId = streamId;
        this.turnId = "ct" + TURNS.incrementAndGet();
        this.subscription = ex.execute(ToolCallsEvent.of(streamId, turnId, List.of(calls))).subscribe(events::add);
    }

    static ConversationFixture start(ToolExecutor ex, String streamId, ToolCall... calls) {
        return new ConversationFixture(ex, streamId, calls);
    }

    <T extends OutboundEvent> T awaitFirst(Class<T> type) {
        return type.cast(await().atMost(PluginFixture.WAIT).until(() -> events.stream().filter(type::isInstance)
                .findFirst().orElse(null), e -> e != null));
    }

    ToolResultEvent awaitResult(String toolCallId) {
        Predicate<OutboundEvent> match = e -> e instanceof ToolResultEvent r && r.toolCallId().equals(toolCallId);
        return (ToolResultEvent) await().atMost(PluginFixture.WAIT)
                .until(() -> events.stream().filter(match).findFirst().orElse(null), e -> e != null);
    }

    <T extends OutboundEvent> List<T> all(Class<T> type) {
        return events.stream().filter(type::isInstance).map(type::cast).toList();
    }

    int indexOf(OutboundEvent e) {
        return events.indexOf(e);
    }
}
