package dev.toolbus.plugins.stdio;

import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** Counts the calls running on one plugin's handlers, so that a replaced plugin stops once they are done. */
final class InFlight {

    private final AtomicInteger running = new AtomicInteger();
    private final Sinks.Empty<Void> idle = Sinks.empty();
    private volatile boolean draining;

    /** A handler that counts its calls here. */
    static ToolHandler wrap(ToolHandler handler, InFlight counter) {
        return new ToolHandler() {
            @Override
            public Mono<ToolResult> call(ToolArguments arguments, ToolContext context) {
                return Mono.defer(() -> {
                    counter.running.incrementAndGet();
                    return handler.call(arguments, context);
                }).doFinally(s -> counter.done());
            }

            @Override
            public boolean isBlocking() {
                return handler.isBlocking();
            }
        };
    }

    private void done() {
        if (running.decrementAndGet() == 0 && draining) {
            idle.tryEmitEmpty();
        }
    }

    /** Completes when no call is running (at once when none is). */
    Mono<Void> idle() {
        return Mono.defer(() -> {
            draining = true;
            if (running.get() == 0) {
                idle.tryEmitEmpty();
            }
            return idle.asMono();
        });
    }
}
