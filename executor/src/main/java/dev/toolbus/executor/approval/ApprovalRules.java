package dev.toolbus.executor.approval;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Risk;
import dev.toolbus.spi.Principal;
import dev.toolbus.tool.ToolDefinition;
import java.util.function.Supplier;

/**
 * Decides per call whether it runs, may run on a session grant, waits for approval or is refused,
 * following the settings in force (read once per call, so a reload applies to the next call): mode
 * {@code off} runs everything without classifying; {@code ask} refuses everything; otherwise bypassed
 * tools run, {@code auto} runs low risk, the rest asks unless a session grant covers it (the grant
 * lives in the turn state: the caller looks it up). A turn's {@code context.approval_mode} may loosen
 * the mode only when its principal has the approval override.
 */
final class ApprovalRules {

    enum Kind { RUN, REFUSE, ASK }

    /**
     * A decision.
     *
     * @param kind run, refuse ({@code ask} mode) or ask
     * @param risk the call's risk ({@code null} when it was not classified)
     * @param grantable whether a session grant of the tool would let it run without asking
     */
    record Verdict(Kind kind, Risk risk, boolean grantable) {
        static final Verdict RUN = new Verdict(Kind.RUN, null, false);
        static final Verdict REFUSE = new Verdict(Kind.REFUSE, null, false);
    }

    private final Supplier<ApprovalSettings> settings;
    private volatile Compiled compiled;

    private record Compiled(ApprovalSettings settings, RiskRules rules) {
    }

    ApprovalRules(Supplier<ApprovalSettings> settings) {
        this.settings = settings;
    }

    /** The settings in force and their compiled lists. */
    private Compiled current() {
        ApprovalSettings s = java.util.Objects.requireNonNull(settings.get(), "approval settings supplier returned null");
        Compiled c = compiled;
        if (c == null || c.settings != s) {
            c = new Compiled(s, new RiskRules(s));
            compiled = c;
        }
        return c;
    }

    /** The settings in force. */
    ApprovalSettings settings() {
        return current().settings;
    }

    /**
     * Decides for one call of a turn sent by {@code principal}.
     *
     * @param declared the tool's declared risk, or {@code null}
     */
    Verdict check(ToolDefinition def, Risk declared, CallContext ctx, Principal principal) {
        Compiled c = current();
        ApprovalMode mode = c.settings.modeFor(ctx, principal.approvalOverride());
        if (mode == ApprovalMode.OFF) {
            return Verdict.RUN;
        }
        if (mode == ApprovalMode.ASK) {
            return Verdict.REFUSE;
        }
        if (c.rules.bypassed(def)) {
            return Verdict.RUN;
        }
        Risk risk = c.rules.classify(def, declared);
        if (mode == ApprovalMode.AUTO && risk == Risk.LOW) {
            return new Verdict(Kind.RUN, risk, false);
        }
        return new Verdict(Kind.ASK, risk, grantable(c.settings, risk));
    }

    /** The tool's risk under the settings in force. */
    Risk classify(ToolDefinition def) {
        return current().rules.classify(def, def.risk());
    }

    /** Whether the settings in force let a grant of this risk be made or honoured. */
    boolean grantable(Risk risk) {
        return grantable(settings(), risk);
    }

    private static boolean grantable(ApprovalSettings s, Risk risk) {
        return s.sessionGrants() && risk.compareTo(s.sessionMaxRisk()) <= 0;
    }
}
