package dev.toolbus.executor;

import dev.toolbus.executor.internal.Engine;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.metrics.CallLog;
import dev.toolbus.metrics.ExecutorHealth;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SkillsEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolsEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.ToolBus;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The {@link ToolExecutor} over the engine: every method is the engine's. */
final class DefaultToolExecutor implements ToolExecutor {

    private final Engine engine;

    DefaultToolExecutor(Engine engine) {
        this.engine = engine;
    }

    /** The engine (tests reach it through {@code TestEngines}). */
    Engine engine() {
        return engine;
    }

    @Override
    public Flux<OutboundEvent> execute(ToolCallsEvent turn, Principal principal) {
        return engine.execute(turn, principal);
    }

    @Override
    public Flux<OutboundEvent> handle(InboundEvent event, Principal principal) {
        return engine.handle(event, principal);
    }

    @Override
    public Mono<ControlOutcome> control(ControlEvent event, Principal principal) {
        return engine.control(event, principal);
    }

    @Override
    public String instanceId() {
        return engine.instanceId();
    }

    @Override
    public ToolsEvent listTools(ListToolsEvent request) {
        return engine.listTools(request);
    }

    @Override
    public Mono<ToolsEvent> answerListTools(ListToolsEvent request) {
        return engine.answerListTools(request);
    }

    @Override
    public Mono<SkillsEvent> answerListSkills(ListSkillsEvent request) {
        return engine.answerListSkills(request);
    }

    @Override
    public Disposable attach(ToolBus bus) {
        return engine.attach(bus);
    }

    @Override
    public Mono<Void> run(ToolBus bus) {
        return engine.run(bus);
    }

    @Override
    public ToolRegistry registry() {
        return engine.registry();
    }

    @Override
    public ExecutionSettings settings() {
        return engine.settings();
    }

    @Override
    public CallLog callLog() {
        return engine.callLog();
    }

    @Override
    public int inflight() {
        return engine.inflight();
    }

    @Override
    public ExecutorHealth health() {
        return engine.health();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return engine.closeGracefully();
    }
}
