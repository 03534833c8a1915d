package dev.toolbus.gateway;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.ToolCallsEvent;

/** Holds an inbound event against the scope of the token it came with. */
final class EventAdmission {

    /**
     * The event to run (its context clamped when the token says so), or the error that answers it.
     *
     * @param event the event to hand to the executor; {@code null} when refused
     * @param refusal the {@code PERMISSION_DENIED} error; {@code null} when admitted
     */
    record Result(InboundEvent event, ErrorEvent refusal) {
    }

    private EventAdmission() {
    }

    static Result admit(AccessTokens.Grant grant, InboundEvent event) {
        if (grant.scope().unrestricted()) {
            return new Result(event, null);
        }
        if (event instanceof ToolCallsEvent t) {
            TokenScope.Admission a = grant.admit(t.streamId(), t.context());
            if (!a.admitted()) {
                return refused(t.streamId(), t.turnId(), a.refusal());
            }
            return new Result(a.clamped() ? new ToolCallsEvent(t.streamId(), t.turnId(), t.calls(), a.context(),
                    t.message(), t.trace()) : t, null);
        }
        if (event instanceof ListToolsEvent l) {
            TokenScope.Admission a = grant.admit(l.streamId(), l.context());
            if (!a.admitted()) {
                return refused(l.streamId(), null, a.refusal());
            }
            return new Result(a.clamped() ? new ListToolsEvent(l.streamId(), l.requestId(), a.context(), l.format(), l.text(),
                    l.trace()) : l,
                    null);
        }
        if (event instanceof ListSkillsEvent l) {
            TokenScope.Admission a = grant.admit(l.streamId(), l.context());
            if (!a.admitted()) {
                return refused(l.streamId(), null, a.refusal());
            }
            return new Result(a.clamped() ? new ListSkillsEvent(l.streamId(), l.requestId(), a.context(), l.text(),
                    l.selected()) : l, null);
        }
        if (!grant.scope().allowsStream(event.streamId())) {
            return refused(event.streamId(), null, "token '" + grant.scope().name() + "' may not use stream '"
                    + event.streamId() + "'");
        }
        return new Result(event, null);
    }

    private static Result refused(String streamId, String turnId, String why) {
        return new Result(null, new ErrorEvent(streamId, turnId, ErrorCode.PERMISSION_DENIED, why));
    }
}
