package dev.toolbus.executor;

import dev.toolbus.bus.ToolBus;
import dev.toolbus.metrics.CallLog;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolsEvent;
import dev.toolbus.registry.ToolRegistry;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The executor. Placeholder while the pipeline lands. */
final class DefaultToolExecutor implements ToolExecutor {

    private final ToolRegistry registry;
    private final ExecutionSettings settings;
    private final CallLog callLog;

    DefaultToolExecutor(ToolExecutor.Builder b, ToolRegistry registry) {
        this.registry = registry;
        this.settings = b.settings;
        this.callLog = CallLog.create(b.callLogSize);
    }

    @Override
    public Flux<OutboundEvent> execute(ToolCallsEvent turn) {
        return Flux.error(new UnsupportedOperationException("not yet"));
    }

    @Override
    public Flux<OutboundEvent> handle(InboundEvent event) {
        return Flux.error(new UnsupportedOperationException("not yet"));
    }

    @Override
    public ToolsEvent listTools(ListToolsEvent request) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public Disposable attach(ToolBus bus) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public Mono<Void> run(ToolBus bus) {
        return Mono.error(new UnsupportedOperationException("not yet"));
    }

    @Override
    public ToolRegistry registry() {
        return registry;
    }

    @Override
    public ExecutionSettings settings() {
        return settings;
    }

    @Override
    public CallLog callLog() {
        return callLog;
    }

    @Override
    public int inflight() {
        return 0;
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.empty();
    }
}
