package dev.toolbus.tool;

import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Runs one tool call. Implementations return a {@link Mono} and must not block: the executor
 * subscribes on the caller's thread, which may be an event loop. Code that blocks (I/O, locks,
 * {@code Thread.sleep}) is wrapped with {@link #blocking(BlockingToolHandler)}, which runs it on a
 * bounded elastic scheduler and interrupts it on timeout.
 *
 * <p>Failures: return {@link ToolResult#error(String)} for an outcome the model should read
 * ({@code TOOL_ERROR}); a thrown exception or {@code Mono.error} is reported as {@code TOOL_FAILED}
 * with the exception's message, and may be retried when the settings allow it.
 */
@FunctionalInterface
public interface ToolHandler {

    /**
     * Starts the call.
     *
     * @param arguments the validated arguments
     * @param context the call's context and cancellation signal
     * @return the result; an empty Mono reads as {@link ToolResult#empty()}
     */
    Mono<ToolResult> call(ToolArguments arguments, ToolContext context);

    /** Whether this handler blocks and must run off the event loop. */
    default boolean isBlocking() {
        return false;
    }

    /** Wraps blocking code; the executor runs it on its blocking scheduler. */
    static ToolHandler blocking(BlockingToolHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return new ToolHandler() {
            @Override
            public Mono<ToolResult> call(ToolArguments arguments, ToolContext context) {
                return Mono.fromCallable(() -> handler.call(arguments, context));
            }

            @Override
            public boolean isBlocking() {
                return true;
            }
        };
    }

    /** Wraps a synchronous, non-blocking computation (runs inline, no thread hop). */
    static ToolHandler sync(BlockingToolHandler handler) {
        Objects.requireNonNull(handler, "handler");
        return (arguments, context) -> {
            try {
                return Mono.justOrEmpty(handler.call(arguments, context));
            } catch (Exception e) {
                return Mono.error(e);
            }
        };
    }

    /** Blocking tool code. */
    @FunctionalInterface
    interface BlockingToolHandler {
        /** Runs the call on the calling thread. */
        ToolResult call(ToolArguments arguments, ToolContext context) throws Exception;
    }
}
