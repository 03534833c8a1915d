package dev.toolbus.executor.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.approval.ApprovalStep;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Caller;
import dev.toolbus.protocol.CallerType;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.spi.CallRules;
import dev.toolbus.spi.GatedCall;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import java.util.Set;

/**
 * The decisions that read the call, after the policy and the argument checks and before the gate:
 * whether its caller is one the tool allows ({@code allowed_callers}), then the {@link CallRules}
 * (deny, ask, allow). A call that passes is counted in its turn for the next calls' rules. Without
 * rules a call pays a set look-up; the call's view for the rules is made only when there are rules.
 */
final class RuleStep implements CallRules.Call {

    /** What the step decided: go on, go on asking a person first ({@link #ask}), or end with {@link #refusal}. */
    record Decision(ErrorInfo refusal, GatedCall.RuleAsk ask) {
        static final Decision GO = new Decision(null, null);
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RuleStep.class);

    private final Pipeline p;
    private final TurnRun turn;
    private final ToolDefinition def;
    private final ToolSource source;
    private final ObjectNode args;
    private final Caller caller;
    private Risk risk;

    private RuleStep(Pipeline p, TurnRun turn, ToolDefinition def, ToolSource source, ObjectNode args, Caller caller) {
        this.p = p;
        this.turn = turn;
        this.def = def;
        this.source = source;
        this.args = args;
        this.caller = caller;
    }

    /** Decides one call (on the thread that starts the turn's calls). */
    static Decision decide(Pipeline p, TurnRun turn, ToolCall call, ToolDefinition def, ToolSource source,
                           ObjectNode args) {
        Caller caller = callerOf(call);
        CallRules rules = p.rules;
        Set<CallerType> allowed = rules == null ? def.allowedCallers() : rules.allowedCallers(def);
        if (!allowed.contains(caller.type())) {
            return new Decision(new ErrorInfo(ErrorCode.NOT_ALLOWED,
                    p.texts.callerNotAllowed(def.name(), caller.type().wireName(), names(allowed))), null);
        }
        if (rules == null) {
            return Decision.GO;
        }
        CallRules.Verdict v;
        try {
            v = rules.decide(new RuleStep(p, turn, def, source, args, caller));
        } catch (RuntimeException e) {
            // the rules must not throw; if they do, the call is refused (fail closed)
            LOG.error("the rules over the call failed for {}", def.name(), e);
            v = new CallRules.Verdict(CallRules.Outcome.DENY, "", "The rules over the call could not be evaluated ("
                    + CallFailure.message(e) + "); the call is refused.");
        }
        Decision d = switch (v.outcome()) {
            case DENY -> new Decision(new ErrorInfo(ErrorCode.NOT_ALLOWED, v.message()), null);
            case ASK -> p.gate != null && p.gate.asksForRules()
                    ? new Decision(null, new GatedCall.RuleAsk(v.rule(), v.message()))
                    : new Decision(new ErrorInfo(ErrorCode.NOT_ALLOWED,
                            p.texts.ruleAskWithoutApproval(def.name(), v.rule())), null);
            default -> Decision.GO;
        };
        if (d.refusal == null) {
            turn.countRuled(def.name(), def.sideEffecting(), rules.dangerous(def));
        }
        return d;
    }

    /** The call's caller. */
    static Caller callerOf(ToolCall call) {
        return call.caller();
    }

    private static String names(Set<CallerType> types) {
        StringBuilder b = new StringBuilder();
        for (CallerType t : types) {
            b.append(b.length() == 0 ? "" : ", ").append(t.wireName());
        }
        return b.toString();
    }

    @Override
    public ToolDefinition tool() {
        return def;
    }

    @Override
    public ToolSource source() {
        return source;
    }

    @Override
    public Risk risk() {
        Risk r = risk;
        if (r == null) {
            r = p.gate == null ? null : p.gate.risk(def);
            if (r == null) {
                r = ApprovalStep.defaultRisk(def);
            }
            risk = r;
        }
        return r;
    }

    @Override
    public String streamId() {
        return turn.turn.streamId();
    }

    @Override
    public CallContext context() {
        return turn.turn.context();
    }

    @Override
    public ObjectNode arguments() {
        return args;
    }

    @Override
    public Caller caller() {
        return caller;
    }

    @Override
    public CallRules.Counts turn() {
        return turn.ruledCalls();
    }
}
