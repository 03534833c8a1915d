package dev.toolbus.rules;

import static dev.toolbus.rules.Fixtures.call;
import static dev.toolbus.rules.Fixtures.rule;
import static dev.toolbus.rules.Fixtures.set;
import static dev.toolbus.rules.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuleSetTest {

    private static final Rule BIG = Rule.builder("big-transfers").tools("transfer")
            .when("args.amount > 100 && ctx.permission != 'owner'").then(RuleAction.ASK)
            .message("Transfers over 100 need the owner's approval.").build();

    @Test
    void ask_whenTheConditionHolds_withTheRulesMessage() {
        RuleDecision d = set(BIG).evaluate(tool("transfer"), call("{'amount': 150}"), RuleMetrics.NONE);
        assertThat(d).isEqualTo(new RuleDecision(RuleOutcome.ASK, "big-transfers",
                "Transfers over 100 need the owner's approval.", false));
        assertThat(d.asks()).isTrue();
        assertThat(d.denies()).isFalse();
    }

    @Test
    void none_whenTheConditionIsFalse() {
        assertThat(set(BIG).evaluate(tool("transfer"), call("{'amount': 50}"), RuleMetrics.NONE))
                .isSameAs(RuleDecision.NONE);
        RuleCall owner = new RuleCall(Fixtures.json("{'amount': 500}"),
                RuleContext.builder().permission("owner").build(), null, null);
        assertThat(set(BIG).evaluate(tool("transfer"), owner, RuleMetrics.NONE)).isSameAs(RuleDecision.NONE);
    }

    @Test
    void deny_withTheRulesMessage_orADefaultNamingTheRule() {
        RuleSet s = set(Rule.builder("no-wipe").tools("wipe").when("true").then(RuleAction.DENY)
                .message("Never.").build(), rule("no-wipe-2", "wipe2", "true", RuleAction.DENY));
        assertThat(s.evaluate(tool("wipe"), call("{}"), RuleMetrics.NONE))
                .isEqualTo(new RuleDecision(RuleOutcome.DENY, "no-wipe", "Never.", false));
        RuleDecision d = s.evaluate(tool("wipe2"), call("{}"), RuleMetrics.NONE);
        assertThat(d.denies()).isTrue();
        assertThat(d.message()).isEqualTo("The rule 'no-wipe-2' does not allow this call.");
        assertThat(set(rule("a", "x", "true", RuleAction.ASK)).evaluate(tool("x"), call("{}"), RuleMetrics.NONE)
                .message()).isEqualTo("The rule 'a' asks for approval of this call.");
    }

    @Test
    void allow_stopsTheEvaluation_soALaterDenyDoesNotApply() {
        RuleSet s = set(rule("owners-may", "*", "ctx.permission == 'owner'", RuleAction.ALLOW),
                rule("nobody-else", "*", "true", RuleAction.DENY));
        RuleCall owner = new RuleCall(null, RuleContext.builder().permission("owner").build(), null, null);
        assertThat(s.evaluate(tool("t"), owner, RuleMetrics.NONE))
                .isEqualTo(new RuleDecision(RuleOutcome.ALLOW, "owners-may", "", false));
        assertThat(s.evaluate(tool("t"), call("{}"), RuleMetrics.NONE).rule()).isEqualTo("nobody-else");
    }

    @Test
    void firstMatchingRuleWins_inListOrder() {
        RuleSet askFirst = set(rule("ask", "t", "args.n > 1", RuleAction.ASK),
                rule("deny", "t", "args.n > 0", RuleAction.DENY));
        assertThat(askFirst.evaluate(tool("t"), call("{'n': 2}"), RuleMetrics.NONE).outcome())
                .isEqualTo(RuleOutcome.ASK);
        assertThat(askFirst.evaluate(tool("t"), call("{'n': 1}"), RuleMetrics.NONE).outcome())
                .isEqualTo(RuleOutcome.DENY);
        RuleSet denyFirst = set(rule("deny", "t", "args.n > 0", RuleAction.DENY),
                rule("ask", "t", "args.n > 1", RuleAction.ASK));
        assertThat(denyFirst.evaluate(tool("t"), call("{'n': 2}"), RuleMetrics.NONE).outcome())
                .isEqualTo(RuleOutcome.DENY);
    }

    @Test
    void aRuleWhoseToolsDoNotNameTheTool_isNotEvaluated() {
        // the condition would fail (no 'amount') if it ran for echo
        RuleSet s = set(rule("only-transfer", "transfer", "args.amount > 1", RuleAction.DENY));
        assertThat(s.forTool(tool("echo")).isEmpty()).isTrue();
        assertThat(s.evaluate(tool("echo"), call("{}"), RuleMetrics.NONE)).isSameAs(RuleDecision.NONE);
        assertThat(s.forTool(tool("transfer")).ruleNames()).containsExactly("only-transfer");
    }

    @Test
    void runTimeError_deniesNamingTheRule_andIsCounted() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RuleMetrics metrics = RuleMetrics.create(registry);
        RuleSet s = set(rule("needs-amount", "transfer", "args.amount > 100", RuleAction.ASK),
                rule("never-reached", "transfer", "true", RuleAction.ALLOW));
        RuleDecision d = s.evaluate(tool("transfer"), call("{'to': 'bob'}"), metrics);
        assertThat(d.outcome()).isEqualTo(RuleOutcome.DENY);
        assertThat(d.failed()).isTrue();
        assertThat(d.rule()).isEqualTo("needs-amount");
        assertThat(d.message()).startsWith("The rule 'needs-amount' could not be evaluated (")
                .contains("amount").endsWith("); the call is refused.");
        assertThat(registry.get(RuleMetrics.ERRORS).tag("rule", "needs-amount").counter().count()).isEqualTo(1.0);
        assertThat(registry.get(RuleMetrics.DECISIONS).tag("rule", "needs-amount").tag("outcome", "deny").counter()
                .count()).isEqualTo(1.0);
    }

    @Test
    void runTimeError_theTextDocsPolicyMdShows() {
        Rule documented = Rule.builder("big-transfers-need-the-owner").tools("group:money")
                .when("args.amount > 100 && ctx.permission != 'owner'").then(RuleAction.ASK).build();
        RuleDecision d = RuleSet.builder().group("money", List.of("transfer", "refund_*")).rule(documented).build()
                .evaluate(tool("transfer"), call("{'to': 'bob'}"), RuleMetrics.NONE);
        assertThat(d.message()).isEqualTo("The rule 'big-transfers-need-the-owner' could not be evaluated"
                + " (evaluation error at <input>:4: key 'amount' is not present in map.); the call is refused.");
    }

    @Test
    void runTimeTypeError_failsClosed() {
        // args is map(string, dyn): the checker lets this through, the value is a string at run time
        RuleSet s = set(rule("typed", "t", "args.amount > 100", RuleAction.ASK));
        RuleDecision d = s.evaluate(tool("t"), call("{'amount': 'lots'}"), RuleMetrics.NONE);
        assertThat(d.failed()).isTrue();
        assertThat(d.denies()).isTrue();
        assertThat(d.message()).contains("'typed'");
    }

    @Test
    void tooManyComprehensionSteps_failClosed() {
        StringBuilder big = new StringBuilder("{'xs': [");
        for (int i = 0; i < CelEnvironment.MAX_ITERATIONS + 1; i++) {
            big.append(i == 0 ? "" : ",").append(i);
        }
        RuleSet s = set(rule("scan", "t", "args.xs.exists(x, x < 0)", RuleAction.DENY));
        RuleDecision d = s.evaluate(tool("t"), call(big.append("]}").toString()), RuleMetrics.NONE);
        assertThat(d.failed()).isTrue();
        assertThat(s.evaluate(tool("t"), call("{'xs': [1, 2, -3]}"), RuleMetrics.NONE).failed()).isFalse();
    }

    @Test
    void decisionsAreCountedByRuleAndOutcome_noMatchIsNot() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RuleMetrics metrics = RuleMetrics.create(registry);
        RuleSet s = set(rule("a", "t", "args.n == 1", RuleAction.ALLOW), rule("b", "t", "args.n == 2", RuleAction.ASK),
                rule("c", "t", "args.n == 3", RuleAction.DENY));
        for (int n : new int[] {1, 2, 2, 3, 3, 3, 4}) {
            s.evaluate(tool("t"), call("{'n': " + n + "}"), metrics);
        }
        assertThat(registry.get(RuleMetrics.DECISIONS).tag("rule", "a").tag("outcome", "allow").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.get(RuleMetrics.DECISIONS).tag("rule", "b").tag("outcome", "ask").counter().count())
                .isEqualTo(2.0);
        assertThat(registry.get(RuleMetrics.DECISIONS).tag("rule", "c").tag("outcome", "deny").counter().count())
                .isEqualTo(3.0);
        assertThat(registry.get(RuleMetrics.ERRORS).counters()).allMatch(c -> c.count() == 0);
        double total = registry.get(RuleMetrics.DECISIONS).counters().stream().mapToDouble(c -> c.count()).sum();
        assertThat(total).isEqualTo(6.0);
    }

    @Test
    void forTool_isComputedOncePerTool() {
        RuleSet s = set(BIG);
        ToolRules a = s.forTool(tool("transfer"));
        assertThat(s.forTool(ToolFacts.builder("transfer").build())).isSameAs(a);
        assertThat(s.forTool(ToolFacts.builder("transfer").risk("high").build())).isNotSameAs(a);
    }

    @Test
    void noRules_decideNothing() {
        assertThat(RuleSet.NONE.isEmpty()).isTrue();
        assertThat(RuleSet.NONE.forTool(tool("x")).isEmpty()).isTrue();
        assertThat(RuleSet.NONE.evaluate(tool("x"), call("{}"), RuleMetrics.NONE)).isSameAs(RuleDecision.NONE);
    }

    @Test
    void equalWhenRulesAndGroupsAre() {
        RuleSet a = RuleSet.builder().rule(BIG).group("money", List.of("transfer")).build();
        RuleSet b = RuleSet.builder().rule(BIG).group("money", List.of("transfer")).build();
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(RuleSet.builder().rule(BIG).build());
        assertThat(a.rules()).containsExactly(BIG);
    }

    @Test
    void ruleValuesValidate() {
        assertThatThrownBy(() -> Rule.builder(" ").tools("x").when("true").then(RuleAction.DENY).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> Rule.builder("r").when("true").then(RuleAction.DENY).build())
                .hasMessageContaining("tools is empty");
        assertThatThrownBy(() -> Rule.builder("r").tools("x", " ").when("true").then(RuleAction.DENY).build())
                .hasMessageContaining("blank");
        assertThatThrownBy(() -> Rule.builder("r").tools("x").when(" ").then(RuleAction.DENY).build())
                .hasMessageContaining("when is empty");
        assertThatThrownBy(() -> Rule.builder("r").tools("x").when("true").build())
                .isInstanceOf(NullPointerException.class);
        assertThat(RuleAction.parse(" Deny ")).isEqualTo(RuleAction.DENY);
        assertThat(RuleAction.parse("block")).isNull();
        assertThatThrownBy(() -> ToolFacts.builder("t").risk("extreme")).hasMessageContaining("risk");
        assertThatThrownBy(() -> ToolFacts.builder("t").source("web")).hasMessageContaining("source");
        assertThatThrownBy(() -> new Caller("robot", "")).hasMessageContaining("direct or programmatic");
        assertThatThrownBy(() -> new RuleCall(Fixtures.json("[1]"), null, null, null))
                .hasMessageContaining("JSON object");
        assertThatThrownBy(() -> TurnCounts.of(-1, 0, 0, java.util.Map.of())).hasMessageContaining("negative");
    }
}
