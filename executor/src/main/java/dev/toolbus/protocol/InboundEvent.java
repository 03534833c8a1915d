package dev.toolbus.protocol;

/** An event a bot core sends to toolbus. */
public sealed interface InboundEvent permits ToolCallsEvent, ListToolsEvent, ListSkillsEvent, ControlEvent {

    /** The conversation. */
    String streamId();

    /** The W3C trace context the bot core sent ({@code traceparent}, {@code tracestate}), or {@code null}. */
    default TraceContext trace() {
        return null;
    }
}
