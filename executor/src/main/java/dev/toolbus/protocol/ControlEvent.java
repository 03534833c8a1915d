package dev.toolbus.protocol;

/**
 * An inbound event that steers turns already sent: {@link CancelEvent}, {@link ApprovalResponseEvent}
 * or {@link InputResponseEvent}. Control events act at once; they never wait behind the turns of their
 * stream. Each may carry the W3C trace context of the span that sent it ({@link #trace()}): toolbus's span
 * of the control joins that trace.
 */
public sealed interface ControlEvent extends InboundEvent
        permits CancelEvent, ApprovalResponseEvent, InputResponseEvent {
}
