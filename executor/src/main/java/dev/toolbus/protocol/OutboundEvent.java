package dev.toolbus.protocol;

/** An event toolbus publishes to a conversation. */
public sealed interface OutboundEvent
        permits ToolResultEvent, UserMessageEvent, TurnCompletedEvent, ToolsEvent, ErrorEvent,
        ApprovalRequestEvent, ToolProgressEvent, SendMessageEvent, InputRequestEvent, SkillsEvent {

    /** The wire {@code type}. */
    String type();

    /** The conversation, or {@code null} for an error that names none. */
    String streamId();
}
