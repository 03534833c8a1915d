package dev.toolbus.benchmarks;

import dev.toolbus.protocol.ToolCallsEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns under ids no run has used. The executor keeps a finished call in its call journal (issue 20): a
 * turn run again under the same stream, turn and call ids is answered from there and its tool does not
 * run, so a benchmark that submitted one fixed batch every invocation would measure replays. Each round
 * gives the batch's turns new turn ids and keeps everything else (streams, calls, arguments, context,
 * trace); building it costs one {@code String} and one event per turn, which the scores include.
 */
public final class FreshTurns {

    private final List<ToolCallsEvent> template;
    private long round;

    public FreshTurns(List<ToolCallsEvent> template) {
        this.template = List.copyOf(template);
    }

    /** The batch again under turn ids of a new round. */
    public List<ToolCallsEvent> next() {
        String suffix = "~" + (++round);
        List<ToolCallsEvent> out = new ArrayList<>(template.size());
        for (ToolCallsEvent t : template) {
            out.add(renamed(t, t.turnId() + suffix));
        }
        return out;
    }

    /** The batch's first turn under the turn id of a new round. */
    public ToolCallsEvent nextOne() {
        ToolCallsEvent t = template.get(0);
        return renamed(t, t.turnId() + "~" + (++round));
    }

    private static ToolCallsEvent renamed(ToolCallsEvent t, String turnId) {
        return new ToolCallsEvent(t.streamId(), turnId, t.calls(), t.context(), t.message(), t.trace());
    }
}
