package dev.toolbus.executor.internal;

import dev.toolbus.tool.ToolResult;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

/**
 * A handler's Mono whose subscription may throw (Reactor rethrows JVM-fatal errors such as
 * {@code OutOfMemoryError} out of {@code subscribe}): the throwable becomes the error signal, so a
 * blocking handler on a worker thread still ends its run instead of leaving it to the timeout.
 */
final class ThrowSafeMono extends Mono<ToolResult> {

    private final Mono<ToolResult> source;

    ThrowSafeMono(Mono<ToolResult> source) {
        this.source = source;
    }

    @Override
    public void subscribe(CoreSubscriber<? super ToolResult> actual) {
        try {
            source.subscribe(actual);
        } catch (Throwable t) {
            actual.onError(t);
        }
    }
}
