package dev.toolbus.executor.state;

import dev.toolbus.internal.weights.ResultWeights;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.protocol.UserMessageEvent;
import java.util.List;

/** Estimated heap bytes of a turn's recorded events, without serialising them (see {@link ResultWeights}). */
final class TurnWeights {

    private static final long EVENT = 160;
    private static final long PART = 256;

    private TurnWeights() {
    }

    /** The estimate, counted up to just past {@code limit}. */
    static long of(List<OutboundEvent> events, long limit) {
        long n = 64;
        for (OutboundEvent e : events) {
            if (n > limit) {
                return n;
            }
            n += EVENT + chars(e.streamId());
            if (e instanceof ToolResultEvent r) {
                n += chars(r.turnId()) + chars(r.toolCallId()) + chars(r.name()) + chars(r.content())
                        + ResultWeights.estimate(r.data(), limit) + ResultWeights.estimate(r.metadata(), limit)
                        + r.media().size() * PART + (r.error() == null ? 0 : PART + chars(r.error().message()));
            } else if (e instanceof TurnCompletedEvent t) {
                n += chars(t.turnId()) + ResultWeights.estimate(t.toolCallIds(), limit);
            } else if (e instanceof UserMessageEvent u) {
                n += chars(u.turnId()) + chars(u.messageId()) + chars(u.toolCallId()) + chars(u.visibleText());
                for (ContentPart p : u.content()) {
                    n += PART + chars(p.text()) + chars(p.data());
                }
            } else if (e instanceof ErrorEvent x) {
                n += chars(x.turnId()) + chars(x.message());
            } else {
                n += ResultWeights.estimate(e, limit);
            }
        }
        return n;
    }

    private static long chars(String s) {
        return s == null ? 0 : 2L * s.length();
    }
}
