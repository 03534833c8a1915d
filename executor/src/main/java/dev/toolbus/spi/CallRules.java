package dev.toolbus.spi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Caller;
import dev.toolbus.protocol.CallerType;
import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Decisions that read the call itself: its arguments, its session, the calls made so far in its turn
 * and its caller. The executor asks for every call the {@link ToolPolicy policy} allowed, after its
 * arguments were validated and before the approval step ({@code ToolExecutor.Builder.rules}); rules
 * narrow what the policy allows, never widen it. {@code toolbus-rules} implements it over the CEL rules
 * of {@code toolbus.yaml} (kept out of the executor, which does not depend on CEL).
 *
 * <p>An implementation is live: it reads the rules in force on each call, so a reload applies to the
 * next call. It is called on the thread that starts the call's turn and must not block.
 */
public interface CallRules {

    /** No rules: every call goes on; each tool's own {@code allowed_callers} apply. */
    CallRules NONE = call -> Verdict.NONE;

    /**
     * Decides one call. Must not throw: a rule that cannot be evaluated denies the call (fails closed),
     * naming itself in the verdict's message.
     */
    Verdict decide(Call call);

    /**
     * Who may call the tool: its declaration ({@link ToolDefinition#allowedCallers()}) unless the
     * operator overrides it. Also what listings show as {@code allowed_callers}.
     */
    default Set<CallerType> allowedCallers(ToolDefinition tool) {
        return tool.allowedCallers();
    }

    /**
     * Whether the tool counts as dangerous ({@code tool.dangerous}, {@code turn.dangerous_calls}): its
     * declaration, or the operator's list of dangerous tools.
     */
    default boolean dangerous(ToolDefinition tool) {
        return tool.dangerous();
    }

    /** What the rules read of one call. Made by the executor; valid only during {@link #decide}. */
    interface Call {
        /** The tool. */
        ToolDefinition tool();

        /** Where it was registered from. */
        ToolSource source();

        /** Its risk as the approval step classifies it (worked out when asked). */
        Risk risk();

        /** The conversation. */
        String streamId();

        /** Who and where, as the turn says. */
        CallContext context();

        /** The validated arguments (context fields filled in); do not modify. */
        ObjectNode arguments();

        /** Who makes the call. */
        Caller caller();

        /** The calls of the turn before this one. */
        Counts turn();
    }

    /**
     * The calls of a turn before the one being decided: those that passed the policy, their argument
     * checks and the rules (they may still wait for approval, a limit or a slot), in the turn's order.
     * The call being decided is not counted.
     */
    interface Counts {
        /** Every such call. */
        long calls();

        /** Those of side-effecting tools. */
        long sideEffectingCalls();

        /** Those of dangerous tools. */
        long dangerousCalls();

        /** Those by tool name (as registered); a tool not called yet may be absent. */
        Map<String, Long> byTool();
    }

    /** The outcome of the rules for one call. */
    enum Outcome {
        /** No rule decided: the call goes on as the policy and approval settings say. */
        NONE,
        /** An {@code allow} rule matched: no later rule is read; the call goes on. */
        ALLOW,
        /** A rule denied the call, or could not be evaluated: it ends {@code NOT_ALLOWED}. */
        DENY,
        /** A rule asks a person first: the approval step asks for this call, at high risk. */
        ASK
    }

    /**
     * The rules' answer.
     *
     * @param outcome what happens to the call
     * @param rule the rule that decided, {@code ""} for {@link Outcome#NONE}
     * @param message for {@code DENY} the error text, for {@code ASK} the text shown in the approval
     *     request; {@code ""} otherwise
     */
    record Verdict(Outcome outcome, String rule, String message) {

        /** No rule decided. */
        public static final Verdict NONE = new Verdict(Outcome.NONE, "", "");

        public Verdict {
            Objects.requireNonNull(outcome, "outcome");
            rule = rule == null ? "" : rule;
            message = message == null ? "" : message;
        }
    }
}
