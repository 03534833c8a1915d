package dev.toolbus.protocol;

/** An event a bot core sends to toolbus. */
public sealed interface InboundEvent permits ToolCallsEvent, ListToolsEvent, ListSkillsEvent, ControlEvent {

    /** The conversation. */
    String streamId();
}
