package dev.toolbus.rules;

import static dev.toolbus.rules.Fixtures.json;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The decisions of the worked examples in docs/policy.md, "Rules over the call". */
class PolicyDocExamplesTest {

    private static final RuleSet RULES = RuleSet.builder()
            .group("money", List.of("transfer", "refund_*"))
            .rule(Rule.builder("big-transfers-need-the-owner").tools("group:money")
                    .when("args.amount > 100 && ctx.permission != 'owner'").then(RuleAction.ASK)
                    .message("Transfers over 100 need the owner's approval.").build())
            .rule(Rule.builder("one-irreversible-call-per-turn").tools("*")
                    .when("tool.side_effecting && turn.side_effecting_calls > 0").then(RuleAction.ASK).build())
            .rule(Rule.builder("no-code-for-payments").tools("group:money")
                    .when("caller.type == 'programmatic'").then(RuleAction.DENY)
                    .message("Payments are not made from code.").build())
            .build();

    private static final ToolFacts TRANSFER = ToolFacts.builder("transfer").sideEffecting(true).build();
    private static final RuleContext MEMBER = RuleContext.builder().user("u1").permission("member").build();

    private static RuleDecision decide(ToolFacts tool, String args, RuleContext ctx, TurnCounts turn, Caller caller) {
        return RULES.evaluate(tool, new RuleCall(json(args), ctx, turn, caller), RuleMetrics.NONE);
    }

    @Test
    void aBigTransferByAMember_asks() {
        RuleDecision d = decide(TRANSFER, "{'to': 'bob', 'amount': 150}", MEMBER, null, null);
        assertThat(d).isEqualTo(new RuleDecision(RuleOutcome.ASK, "big-transfers-need-the-owner",
                "Transfers over 100 need the owner's approval.", false));
    }

    @Test
    void theSameByTheOwner_noRule() {
        RuleContext owner = RuleContext.builder().user("u1").permission("owner").build();
        assertThat(decide(TRANSFER, "{'to': 'bob', 'amount': 150}", owner, null, null)).isSameAs(RuleDecision.NONE);
    }

    @Test
    void aSecondSideEffectingCallInTheTurn_asks() {
        TurnCounts afterWrite = TurnCounts.of(1, 1, 1, Map.of("write_file", 1L));
        RuleDecision d = decide(TRANSFER, "{'to': 'bob', 'amount': 50}", MEMBER, afterWrite, null);
        assertThat(d.outcome()).isEqualTo(RuleOutcome.ASK);
        assertThat(d.rule()).isEqualTo("one-irreversible-call-per-turn");
    }

    @Test
    void aTransferFromCode_isDenied() {
        RuleDecision d = decide(TRANSFER, "{'to': 'bob', 'amount': 50}", MEMBER, null,
                Caller.programmatic("code_execution_1"));
        assertThat(d).isEqualTo(new RuleDecision(RuleOutcome.DENY, "no-code-for-payments",
                "Payments are not made from code.", false));
    }

    @Test
    void aTransferWithoutAnAmount_isDeniedNamingTheRule() {
        RuleDecision d = decide(TRANSFER, "{'to': 'bob'}", MEMBER, null, null);
        assertThat(d.outcome()).isEqualTo(RuleOutcome.DENY);
        assertThat(d.failed()).isTrue();
        assertThat(d.rule()).isEqualTo("big-transfers-need-the-owner");
    }

    @Test
    void echo_noRule() {
        assertThat(RULES.forTool(ToolFacts.builder("echo").build()).ruleNames())
                .containsExactly("one-irreversible-call-per-turn");
        assertThat(decide(ToolFacts.builder("echo").build(), "{'text': 'hi'}", MEMBER,
                TurnCounts.of(3, 2, 0, Map.of()), null)).isSameAs(RuleDecision.NONE);
    }

    @Test
    void theOptionalForm_doesNotFailWithoutAnAmount() {
        RuleSet optional = RuleSet.builder().rule(Rule.builder("big").tools("transfer")
                .when("args.?amount.orValue(0) > 100 && ctx.permission != 'owner'").then(RuleAction.ASK).build())
                .build();
        assertThat(optional.evaluate(TRANSFER, new RuleCall(json("{'to': 'bob'}"), MEMBER, null, null),
                RuleMetrics.NONE)).isSameAs(RuleDecision.NONE);
    }
}
