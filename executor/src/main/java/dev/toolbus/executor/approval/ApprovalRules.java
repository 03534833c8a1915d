package dev.toolbus.executor.approval;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Decides per call whether it runs, waits for approval or is refused, following the settings in
 * force (read once per call, so a reload applies to the next call): mode {@code off} runs everything
 * without classifying; {@code ask} refuses everything; otherwise bypassed tools run, {@code auto}
 * runs low risk, a session grant runs what it covers, the rest asks. Holds the session grants.
 */
final class ApprovalRules {

    enum Kind { RUN, REFUSE, ASK }

    /**
     * A decision.
     *
     * @param kind run, refuse ({@code ask} mode) or ask
     * @param risk the call's risk ({@code null} when it was not classified)
     * @param byGrant whether it runs thanks to a session grant
     */
    record Verdict(Kind kind, Risk risk, boolean byGrant) {
        static final Verdict RUN = new Verdict(Kind.RUN, null, false);
        static final Verdict REFUSE = new Verdict(Kind.REFUSE, null, false);
    }

    private final Supplier<ApprovalSettings> settings;
    private final SessionGrants grants;
    private volatile Compiled compiled;

    private record Compiled(ApprovalSettings settings, RiskRules rules) {
    }

    ApprovalRules(Supplier<ApprovalSettings> settings, LongSupplier nanoClock) {
        this.settings = settings;
        this.grants = new SessionGrants(ApprovalSettings.GRANT_TTL, ApprovalSettings.GRANT_CAPACITY, nanoClock);
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
     * Decides for one call.
     *
     * @param declared the tool's declared risk, or {@code null}
     */
    Verdict check(ToolDefinition def, Risk declared, String streamId, CallContext ctx) {
        Compiled c = current();
        ApprovalMode mode = c.settings.modeFor(ctx);
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
        if (grantable(c.settings, risk) && grants.granted(streamId, ctx.userId(), def.name())) {
            return new Verdict(Kind.RUN, risk, true);
        }
        return new Verdict(Kind.ASK, risk, false);
    }

    /** Grants the tool for the user in the stream if the settings allow a grant of this risk; whether it did. */
    boolean grant(String streamId, String userId, String tool, Risk risk) {
        if (!grantable(settings(), risk)) {
            return false;
        }
        grants.grant(streamId, userId, tool);
        return true;
    }

    long grantCount() {
        return grants.size();
    }

    private static boolean grantable(ApprovalSettings s, Risk risk) {
        return s.sessionGrants() && risk.compareTo(s.sessionMaxRisk()) <= 0;
    }
}
