package dev.toolbus.tool;

import dev.toolbus.protocol.CallerType;
import dev.toolbus.protocol.Risk;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a method of a plugin object as a tool, read by {@link Tools#fromObject(Object)}.
 *
 * <p>Method parameters annotated with {@link Param} are the tool's arguments; parameters of type
 * {@link ToolContext}, {@link ToolArguments} or {@code JsonNode} (all arguments) are injected. The
 * method may return {@code Mono<?>} or {@code CompletionStage<?>} (non-blocking), {@link ToolResult},
 * or any JSON-like value (mapped with {@link dev.toolbus.result.ForeignValues#toResult(Object)}). Methods that do not return
 * a {@code Mono} or {@code CompletionStage} run on the blocking scheduler unless {@link #blocking()} is
 * {@code false}. See {@link Tools#fromObject(Object, String)} for the full rules.
 *
 * <pre>
 * &#64;Tool(name = "search_web", briefDescription = "Search the internet for information", timeoutMs = 10_000)
 * public List&lt;Hit&gt; search(&#64;Param(description = "Search keywords") String query,
 *                         &#64;Param(description = "Maximum number of results to return", required = false,
 *                                defaultValue = "5") int limit,
 *                         ToolContext ctx) { ... }
 * </pre>
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Tool {

    /** The tool name. */
    String name();

    /** The description (compatibility field; {@link #briefDescription()} wins). */
    String description() default "";

    /** The brief description the model reads. */
    String briefDescription() default "";

    /** Extra detailed text, appended after the generated parameter block. */
    String detailedDescription() default "";

    /** The tool's own timeout in milliseconds; {@code -1} for the executor's. */
    long timeoutMs() default -1;

    /**
     * The tool's own limit on its result's text in characters; {@code -1} (the default) for the
     * executor's {@code execution.maxResultChars}, {@code 0} never to cut it.
     */
    int maxResultChars() default -1;

    /** Side-effecting tools are never retried or cached, and go through the call journal (never run twice). */
    boolean sideEffecting() default false;

    /**
     * A side-effecting tool that is nonetheless safe to run again (it passes its idempotency key on): run
     * again after an interruption instead of ending {@code OUTCOME_UNKNOWN}; see
     * {@link ToolDefinition#idempotent()}.
     */
    boolean idempotent() default false;

    /** Dangerous tools are never cached and gated by the policy. */
    boolean dangerous() default false;

    /**
     * The tool's risk for the approval step: {@code @Tool(name = "wipe", risk = Risk.HIGH)}. Empty (the
     * default) means undeclared: the approval rules classify the tool by name. At most one value.
     */
    Risk[] risk() default {};

    /** Who shares cached results. */
    CacheScope cacheScope() default CacheScope.STREAM_USER;

    /** Whether the tool is offered to the model. */
    Visibility visibility() default Visibility.VISIBLE;

    /**
     * Whether a method that does not return {@code Mono} blocks: {@code true} runs it as
     * {@link ToolHandler#blocking}, {@code false} inline as {@link ToolHandler#sync} (only for quick,
     * non-blocking code).
     */
    boolean blocking() default true;

    /**
     * Extra metadata as {@code key=value} pairs, kept as flat keys; a value that is a JSON literal is
     * parsed ({@code "timeout_hint=5"} → 5), any other value is text.
     */
    String[] metadata() default {};

    /** Offered only when an allow list names it explicitly (see docs/policy.md). */
    boolean optional() default false;

    /** Policy groups this tool belongs to. */
    String[] groups() default {};

    /** The permission level a caller needs: member, admin, owner or master; empty for none. */
    String requiredPermission() default "";

    /** Channels the tool is limited to; empty for every channel. */
    String[] channels() default {};

    /**
     * Who may call the tool: the model directly (the default) and, with
     * {@code allowedCallers = {CallerType.DIRECT, CallerType.PROGRAMMATIC}}, code the model runs.
     */
    CallerType[] allowedCallers() default {CallerType.DIRECT};

    /**
     * The JSON Schema of the results' {@code data}, as JSON text. Empty (the default): a method that
     * returns a record (or a {@code Mono} of one) gets the schema of that record's JSON; any other
     * method declares none.
     */
    String outputSchema() default "";
}
