package dev.toolbus.rules;

import static dev.toolbus.rules.Fixtures.rule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Conditions that do not compile are refused when the rule set is built, each naming its rule. */
class RuleCompileTest {

    private static InvalidRulesException invalid(Rule... rules) {
        return catchThrowableOfType(InvalidRulesException.class,
                () -> RuleSet.builder().rules(List.of(rules)).build());
    }

    @Test
    void syntaxError() {
        InvalidRulesException e = invalid(rule("ok", "*", "true", RuleAction.ALLOW),
                rule("broken", "*", "args.amount >", RuleAction.DENY));
        assertThat(e.problems()).hasSize(1);
        InvalidRulesException.Problem p = e.problems().get(0);
        assertThat(p.index()).isEqualTo(1);
        assertThat(p.rule()).isEqualTo("broken");
        assertThat(p.message()).startsWith("when: ").contains("mismatched input").contains("line 1, column");
        assertThat(e.getMessage()).contains("rules[1] 'broken': when: ");
    }

    @Test
    void unknownVariable() {
        InvalidRulesException e = invalid(rule("typo", "*", "arg.amount > 1", RuleAction.DENY));
        assertThat(e.problems().get(0).message()).contains("undeclared reference to 'arg'")
                .contains("line 1, column 1");
    }

    @Test
    void unknownFieldOfADeclaredVariable() {
        InvalidRulesException e = invalid(rule("typo", "*", "ctx.usr == 'x'", RuleAction.DENY),
                rule("typo2", "*", "turn.writes > 0", RuleAction.DENY));
        assertThat(e.problems()).extracting(InvalidRulesException.Problem::rule).containsExactly("typo", "typo2");
        assertThat(e.problems().get(0).message()).contains("undefined field 'usr'").contains("column 4");
        assertThat(e.problems().get(1).message()).contains("undefined field 'writes'");
    }

    @Test
    void notABool() {
        assertThat(invalid(rule("int", "*", "turn.calls + 1", RuleAction.DENY)).problems().get(0).message())
                .isEqualTo("when: the condition has type int, not bool");
        assertThat(invalid(rule("dyn", "*", "args.flag", RuleAction.DENY)).problems().get(0).message())
                .contains("has type dyn, not bool").contains("args.flag == true");
        assertThat(invalid(rule("str", "*", "ctx.user", RuleAction.DENY)).problems().get(0).message())
                .contains("type string, not bool");
    }

    @Test
    void typeErrorFoundByTheChecker() {
        assertThat(invalid(rule("cmp", "*", "ctx.user > 3", RuleAction.DENY)).problems().get(0).message())
                .contains("found no matching overload for '_>_'");
        assertThat(invalid(rule("cmp", "*", "tool.dangerous == 'yes'", RuleAction.DENY)).problems().get(0).message())
                .contains("found no matching overload");
    }

    @Test
    void duplicateNames_caseIgnored() {
        InvalidRulesException e = invalid(rule("one", "*", "true", RuleAction.ASK),
                rule("two", "*", "true", RuleAction.ASK), rule("ONE", "*", "true", RuleAction.DENY));
        assertThat(e.problems()).singleElement().satisfies(p -> {
            assertThat(p.index()).isEqualTo(2);
            assertThat(p.rule()).isEqualTo("ONE");
            assertThat(p.message()).isEqualTo("an earlier rule is named 'one' too; rule names must be unique (case is ignored)");
        });
    }

    @Test
    void everyProblemIsReported() {
        InvalidRulesException e = invalid(rule("a", "*", "(", RuleAction.ASK), rule("b", "*", "true", RuleAction.ASK),
                rule("c", "*", "nope", RuleAction.ASK), rule("b", "*", "1", RuleAction.ASK));
        assertThat(e.problems()).extracting(InvalidRulesException.Problem::index).containsExactly(0, 2, 3, 3);
    }

    @Test
    void anUnknownGroupIsAWarning_notAnError() {
        RuleSet s = RuleSet.builder().group("money", List.of("transfer"))
                .rule(rule("r", "group:money,group:mony", "true", RuleAction.DENY)).build();
        assertThat(s.warnings()).containsExactly(
                "rules[0] 'r': group:mony is not a configured group; it matches only tools that declare it");
    }
}
