package dev.toolbus.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.TraceContext;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What a running tool knows about its call: the conversation ({@code stream_id}), the turn, the call
 * id, who asked (user, group, platform, permission, channel), the model, the triggering message, the
 * attempt number, and a cancellation signal that fires when the call times out or is abandoned.
 * Who asked is one {@link CallContext}: {@link #who()}.
 *
 * <p>Blocking handlers are also interrupted on cancellation; non-blocking handlers have their
 * subscription disposed. Long loops can poll {@link #isCancelled()}. Why the call was stopped is
 * {@link #cancelReason()}: {@value #TIMEOUT} (its timeout passed), the reason text of the bot's
 * {@code cancel} event, {@value #CANCELLED} (a cancel without a reason, or the caller went away) or
 * {@value #SHUTDOWN} (the executor stopped under it). Only whoever runs the call cancels it, through
 * the {@link Handle} it built the context with; a handler cannot. A handler that holds a resource of its own
 * (a socket, a child process, a callback API) registers {@link #onCancel(Consumer)}:
 *
 * <pre>{@code
 * Disposable hook = ctx.onCancel(reason -> download.abort(reason));
 * try { return download.await(); } finally { hook.dispose(); }
 * }</pre>
 *
 * <p>A running tool can talk to the conversation: {@link #progress} ({@code tool_progress}),
 * {@link #send} ({@code send_message}) and {@link #ask} ({@code input_request}, answered by the user).
 * They act when called (subscribing is not needed); the returned Mono tells when the event was
 * published, or brings the answer. A context built without a {@link ToolConversation} completes
 * progress and send without publishing anything and fails ask with {@link IllegalStateException}.
 *
 * <pre>{@code
 * ctx.progress(3, 10.0, "frame 3").block();
 * ctx.send("你好！").block();
 * InputAnswer a = ctx.ask("Which city?", schema).block();
 * }</pre>
 */
public final class ToolContext {

    /** {@link #cancelReason()} of a call whose timeout passed. */
    public static final String TIMEOUT = "timeout";
    /** {@link #cancelReason()} of a call cancelled without a reason, or abandoned by its caller. */
    public static final String CANCELLED = "cancelled";
    /** {@link #cancelReason()} of a call stopped because the executor shut down. */
    public static final String SHUTDOWN = "shutdown";

    private static final Services NO_SERVICES = new Services() {
        @Override
        public <T> T find(Class<T> type) {
            return null;
        }
    };

    private final String streamId;
    private final String turnId;
    private final String toolCallId;
    private final String toolName;
    /** Who asked and through which model (user, group, platform, permission, channel, provider, model, agent). */
    private final CallContext who;
    private final JsonNode message;
    private final int attempt;
    private final ToolConversation conversation;
    private final TraceContext trace;
    private final Services services;
    private volatile boolean cancelled;
    private volatile String cancelReason;
    private volatile Sinks.Empty<Void> cancelSink;

    /** Takes the builder's values, not the builder: so the builder does not escape {@link Builder#build()} (see docs/benchmarks.md). */
    private ToolContext(String streamId, String turnId, String toolCallId, String toolName, CallContext who,
                        JsonNode message, int attempt, ToolConversation conversation, TraceContext trace,
                        Services services) {
        this.streamId = streamId;
        this.turnId = turnId;
        this.toolCallId = toolCallId;
        this.toolName = toolName;
        this.who = who;
        this.message = message;
        this.attempt = attempt;
        this.conversation = conversation;
        this.trace = trace;
        this.services = services;
    }

    /** Starts a builder (for the executor, adapters and tests). */
    public static Builder builder() {
        return new Builder();
    }

    /** The conversation id, never {@code null}. */
    public String streamId() {
        return streamId;
    }

    /** Same as {@link #streamId()}: MaiBot's {@code chat_id}. */
    public String chatId() {
        return streamId;
    }

    /** The turn id, or empty. */
    public String turnId() {
        return turnId;
    }

    /** The call id, or empty. */
    public String toolCallId() {
        return toolCallId;
    }

    /** The tool's name as called, or empty. */
    public String toolName() {
        return toolName;
    }

    /**
     * Who asked and where: user, group, platform, permission, channel, model provider, model and agent
     * (each empty when the turn gave none), and any other context keys.
     */
    public CallContext who() {
        return who;
    }

    /** The triggering message as sent by the bot core, or {@code null}. */
    public JsonNode message() {
        return message;
    }

    /** 1 for the first attempt, 2 for the first retry, … */
    public int attempt() {
        return attempt;
    }

    /**
     * The W3C trace context of this call's span ({@code traceparent}, {@code tracestate}), or of the turn
     * as the bot core sent it when toolbus records no spans; {@code null} when the turn carried none and
     * nothing is traced. A tool that calls another service passes it on (as the {@code traceparent}
     * header) so the trace continues there; stdio plugins get it in their call's context.
     */
    public TraceContext trace() {
        return trace;
    }

    /**
     * A key for the call's side effects, the same on every attempt and on every redelivery of the turn
     * (a hex SHA-256 of stream, turn and call id): a tool that must not act twice after a crash passes
     * it to the system it changes (an idempotency header, a unique column). A turn sent without a
     * {@code turn_id} gets a generated one on each delivery, and so a new key.
     */
    public String idempotencyKey() {
        return IdempotencyKeys.of(streamId, turnId, toolCallId);
    }

    /**
     * A service whoever runs the call offers its tools, by type (the executor offers its built-in tools
     * what they read, such as the store of cut results); empty when none of that type is offered.
     */
    public <T> Optional<T> service(Class<T> type) {
        Objects.requireNonNull(type, "type");
        return Optional.ofNullable(services.find(type));
    }

    /** Whether the call was cancelled (timed out or abandoned). */
    public boolean isCancelled() {
        return cancelled;
    }

    /**
     * Why the call was cancelled: {@value #TIMEOUT}, the {@code cancel} event's reason,
     * {@value #CANCELLED} or {@value #SHUTDOWN}; {@code null} while it was not.
     */
    public String cancelReason() {
        return cancelReason;
    }

    /**
     * Runs {@code callback} once with the {@link #cancelReason() reason} when the call is cancelled (at
     * once, on this thread, when it already was). The callback runs on the thread that cancels (a
     * timer or the bus's thread): it must return quickly and not block; an exception it throws is
     * logged and dropped. Dispose the returned handle when the work is done, so that a context kept
     * longer than the call holds no reference to the callback.
     *
     * @return disposing it unregisters the callback
     */
    public Disposable onCancel(Consumer<String> callback) {
        Objects.requireNonNull(callback, "callback");
        return onCancel().subscribe(null, null, () -> {
            try {
                callback.accept(cancelReason);
            } catch (RuntimeException e) {
                LoggerFactory.getLogger(ToolContext.class).warn("onCancel callback of {} failed: {}", toolName, e.toString());
            }
        });
    }

    /** Completes when the call is cancelled; {@link #cancelReason()} is set by then. */
    public Mono<Void> onCancel() {
        Sinks.Empty<Void> s = cancelSink;
        if (s == null) {
            synchronized (this) {
                s = cancelSink;
                if (s == null) {
                    s = Sinks.empty();
                    cancelSink = s;
                    if (cancelled) {
                        s.tryEmitEmpty();
                    }
                }
            }
        }
        return s.asMono();
    }

    /**
     * Publishes the call's progress ({@code tool_progress}), rate-limited per call.
     *
     * @param progress how far the call is
     * @param total the amount of work, or {@code null} when unknown
     * @param message a short text, or {@code null}
     * @return completes when published (or superseded by newer progress); empty without a conversation
     */
    public Mono<Void> progress(double progress, Double total, String message) {
        return conversation == null ? Mono.empty() : conversation.progress(progress, total, message);
    }

    /**
     * Posts a message to the chat ({@code send_message}) while the call runs.
     *
     * @return completes when published; empty without a conversation
     */
    public Mono<Void> send(List<ContentPart> content) {
        Objects.requireNonNull(content, "content");
        return conversation == null ? Mono.empty() : conversation.send(content);
    }

    /** {@link #send(List)} of one text part. */
    public Mono<Void> send(String text) {
        return send(List.of(ContentPart.text(text)));
    }

    /**
     * Asks the user ({@code input_request}) and waits for the answer, up to the executor's default
     * timeout (60 s).
     *
     * @param message the question
     * @param schema a JSON Schema of the answer's content, or {@code null}
     * @return the answer; fails with {@link IllegalStateException} without a conversation
     */
    public Mono<InputAnswer> ask(String message, JsonNode schema) {
        return ask(message, schema, null);
    }

    /** {@link #ask(String, JsonNode)} with its own timeout ({@code null}: the default). */
    public Mono<InputAnswer> ask(String message, JsonNode schema, Duration timeout) {
        if (conversation == null) {
            return Mono.error(new IllegalStateException("this call has no conversation to ask"));
        }
        return conversation.ask(message, schema, timeout);
    }

    /**
     * Asks a question with a key, or in URL mode ({@link InputQuestion}), and waits for the answer.
     *
     * @return the answer; fails with {@link IllegalStateException} without a conversation
     */
    public Mono<InputAnswer> ask(InputQuestion question) {
        Objects.requireNonNull(question, "question");
        if (conversation == null) {
            return Mono.error(new IllegalStateException("this call has no conversation to ask"));
        }
        return conversation.ask(question);
    }

    /** The conversation, or {@code null} (adapters forwarding a call's messages use the methods above). */
    public ToolConversation conversation() {
        return conversation;
    }

    /** Cancels: only the first call counts ({@code null} or blank reason: {@value #CANCELLED}). */
    private void cancel(String reason) {
        synchronized (this) {
            if (cancelled) {
                return;
            }
            cancelReason = reason == null || reason.isBlank() ? CANCELLED : reason;
            cancelled = true;
        }
        Sinks.Empty<Void> s;
        synchronized (this) {
            s = cancelSink;
        }
        if (s != null) {
            s.tryEmitEmpty();
        }
    }

    /** A builder initialised from this context (services and conversation included; not its cancellation). */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.streamId = streamId;
        b.turnId = turnId;
        b.toolCallId = toolCallId;
        b.toolName = toolName;
        b.who = who;
        b.message = message;
        b.attempt = attempt;
        b.conversation = conversation;
        b.trace = trace;
        b.services = services;
        return b;
    }

    @Override
    public String toString() {
        return "ToolContext{stream=" + streamId + ", turn=" + turnId + ", call=" + toolCallId + ", tool=" + toolName
                + ", attempt=" + attempt + '}';
    }

    /**
     * What runs a call holds: the context it hands the handler, and the means to cancel it. The executor
     * makes one per attempt; an adapter that runs handlers itself makes its own with
     * {@link Builder#handle()}. The handler gets only {@link #context()}.
     *
     * <p>Whoever runs calls may extend it to keep its own state of the run in the same object (the
     * executor's run of a handler is its handle: one object per attempt, not two). A subclass builds a
     * new context from a builder, as {@link Builder#handle()} does; it cannot take hold of a context
     * built elsewhere, so a handler still cannot cancel its own or another call.
     */
    public static class Handle {
        private final ToolContext context;

        /** A handle of a new context with the builder's values. */
        protected Handle(Builder builder) {
            this.context = builder.build();
        }

        /** The context to hand the handler. */
        public final ToolContext context() {
            return context;
        }

        /**
         * Cancels the call: {@link ToolContext#isCancelled()} turns true, {@link ToolContext#onCancel()}
         * completes and callbacks run. Only the first call counts.
         *
         * @param reason why ({@code null} or blank: {@value #CANCELLED})
         */
        public final void cancel(String reason) {
            context.cancel(reason);
        }
    }

    /**
     * The services a call's context offers (see {@link ToolContext#service}): a lookup by type, answered
     * from memory (it is asked on the handler's thread).
     */
    @FunctionalInterface
    public interface Services {
        /** The service of that type, or {@code null}. */
        <T> T find(Class<T> type);
    }

    /** Builder of {@link ToolContext}; unset strings are empty, {@link #who()} is {@link CallContext#EMPTY}. */
    public static final class Builder {
        private String streamId = "";
        private String turnId = "";
        private String toolCallId = "";
        private String toolName = "";
        private CallContext who = CallContext.EMPTY;
        private JsonNode message;
        private int attempt = 1;
        private ToolConversation conversation;
        private TraceContext trace;
        private Services services = NO_SERVICES;

        private Builder() {
        }

        private static String v(String s) {
            return s == null ? "" : s;
        }

        /**
         * The call's turn: its stream, turn id, {@code context} ({@link #who}) and message, as the executor
         * reads them for every call.
         */
        public Builder turn(ToolCallsEvent turn) {
            Objects.requireNonNull(turn, "turn");
            this.streamId = v(turn.streamId());
            this.turnId = v(turn.turnId());
            this.who = turn.context();
            this.message = turn.message();
            return this;
        }

        /** The conversation id. */
        public Builder streamId(String v) {
            this.streamId = v(v);
            return this;
        }

        /** The turn id. */
        public Builder turnId(String v) {
            this.turnId = v(v);
            return this;
        }

        /** The call id. */
        public Builder toolCallId(String v) {
            this.toolCallId = v(v);
            return this;
        }

        /** The tool's name as called. */
        public Builder toolName(String v) {
            this.toolName = v(v);
            return this;
        }

        /** Who asked ({@code null}: {@link CallContext#EMPTY}). */
        public Builder who(CallContext v) {
            this.who = v == null ? CallContext.EMPTY : v;
            return this;
        }

        /** The triggering message ({@code null}: none). */
        public Builder message(JsonNode v) {
            this.message = v;
            return this;
        }

        /** The attempt, 1 or more. */
        public Builder attempt(int v) {
            if (v < 1) {
                throw new IllegalArgumentException("attempt must be >= 1, got " + v);
            }
            this.attempt = v;
            return this;
        }

        /** The conversation the call's progress, messages and questions go to ({@code null}: none). */
        public Builder conversation(ToolConversation v) {
            this.conversation = v;
            return this;
        }

        /** The trace context of the call ({@code null}: none). */
        public Builder trace(TraceContext v) {
            this.trace = v;
            return this;
        }

        /** The services the context offers ({@code null}: none). */
        public Builder services(Services v) {
            this.services = v == null ? NO_SERVICES : v;
            return this;
        }

        /** The context, which nobody can cancel (for tests and callers that never cancel). */
        public ToolContext build() {
            return new ToolContext(streamId, turnId, toolCallId, toolName, who, message, attempt, conversation, trace,
                    services);
        }

        /** The context with the handle that cancels it. */
        public Handle handle() {
            return new Handle(this);
        }
    }
}
