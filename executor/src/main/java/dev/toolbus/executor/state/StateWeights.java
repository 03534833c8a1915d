package dev.toolbus.executor.state;

import dev.toolbus.internal.weights.ResultWeights;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ControlEvent;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.OutboundEvent;
import java.util.List;

/** Estimated heap bytes of the events the in-memory turn state keeps besides turns' results. */
final class StateWeights {

    private static final long LIMIT = 1L << 30;

    private StateWeights() {
    }

    /** An {@code approval_request} or {@code input_request} (any other event as a turn's event). */
    static long of(OutboundEvent e) {
        if (e instanceof ApprovalRequestEvent a) {
            long n = 160 + chars(a.streamId()) + chars(a.turnId()) + chars(a.approvalId()) + chars(a.text());
            for (ApprovalRequestEvent.Call c : a.calls()) {
                n += 96 + chars(c.toolCallId()) + chars(c.name()) + chars(c.argumentsSummary());
            }
            return n;
        }
        if (e instanceof InputRequestEvent i) {
            return 160 + chars(i.streamId()) + chars(i.turnId()) + chars(i.toolCallId()) + chars(i.inputId())
                    + chars(i.message()) + ResultWeights.estimate(i.schema(), LIMIT);
        }
        return TurnWeights.of(List.of(e), LIMIT);
    }

    /** An {@code approval_response} or {@code input_response}. */
    static long of(ControlEvent e) {
        if (e instanceof InputResponseEvent i) {
            return 96 + chars(i.streamId()) + chars(i.inputId()) + ResultWeights.estimate(i.content(), LIMIT);
        }
        ApprovalResponseEvent a = (ApprovalResponseEvent) e;
        return 96 + chars(a.streamId()) + chars(a.approvalId());
    }

    static long chars(String s) {
        return s == null ? 0 : 2L * s.length();
    }
}
