package dev.toolbus.protocol;

/** An event toolbus publishes to a conversation. */
public sealed interface OutboundEvent
        permits ToolResultEvent, UserMessageEvent, TurnCompletedEvent, ToolsEvent, ErrorEvent,
        ApprovalRequestEvent, ToolProgressEvent, SendMessageEvent, InputRequestEvent, ReplayedEvent,
        SkillsEvent {

    /** The wire {@code type}. */
    String type();

    /** The conversation, or {@code null} for an error that names none. */
    String streamId();

    /** The W3C trace context this event carries ({@code traceparent}, {@code tracestate}), or {@code null}. */
    default TraceContext trace() {
        return null;
    }

    /**
     * This event carrying {@code trace} (a copy; events that carry no trace context return themselves).
     *
     * @param trace the context, or {@code null} for none
     */
    default OutboundEvent withTrace(TraceContext trace) {
        return this;
    }
}
