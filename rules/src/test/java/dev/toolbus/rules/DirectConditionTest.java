package dev.toolbus.rules;

import dev.toolbus.protocol.Caller;
import static org.assertj.core.api.Assertions.assertThat;

import dev.cel.runtime.CelEvaluationException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The direct evaluation against CEL's own: for every condition and every call below, where the direct
 * form answers, CEL's program gives the same answer; where CEL fails, the direct form does not answer.
 */
class DirectConditionTest {

    /** Conditions of every kind the direct form evaluates, and some it leaves to CEL. */
    static final List<String> CONDITIONS = List.of(
            "args.amount > 100",
            "args.amount > 99.5",
            "args.amount >= 100 && ctx.permission != 'owner'",
            "args.amount < 0 || args.amount > 1000",
            "!(args.amount <= 100)",
            "args.amount == 150",
            "args.amount == 150.0",
            "args.amount != 3",
            "args.amount + 1 > 151",
            "args.amount - 1 == 149",
            "args.amount * 2 == 300",
            "-args.amount < 0",
            "args.price * 2.0 > 3.0",
            "args.price + 0.5 == 2.0",
            "args.big + 1 > 0",
            "args.big * 2 > 0",
            "args.big - (-1) > 0",
            "args.big > 9007199254740993.0",
            "args.nan_text == 'NaN'",
            "has(args.amount)",
            "has(args.fee)",
            "has(args.to.name)",
            "has(args.to) && args.to.startsWith('external:')",
            "args.to.endsWith('bob')",
            "args.to.contains('o')",
            "args.to == 'bob'",
            "args.to + '!' == 'bob!'",
            "args.to.size() == 3",
            "size(args.to) == 3",
            "size(args.tags) == 2",
            "size(args) > 2",
            "args.tags[0] == 'red'",
            "args.tags[5] == 'red'",
            "'red' in args.tags",
            "'blue' in args.tags",
            "1 in args.tags",
            "'to' in args",
            "'nope' in args",
            "args.nested.deep.value == 7",
            "args.nested['deep'].value > 6",
            "args.flag == true",
            "args.flag == true ? args.amount > 10 : false",
            "args.missing > 1",
            "args.missing == null",
            "args.nothing == null",
            "args.?fee.orValue(0) > 100",
            "args.?amount.orValue(0) > 100",
            "args.?nested.?deep.?value.orValue(0) == 7",
            "args.?nested.?none.?value.orValue(-1) == -1",
            "ctx.user == 'u1' && ctx.group == 'g1'",
            "ctx.channel == 'qq'",
            "ctx.permission in ['admin', 'owner']",
            "ctx.stream.startsWith('qq:')",
            "tool.name == 'transfer' && tool.side_effecting",
            "tool.risk == 'high' || tool.dangerous",
            "'money' in tool.groups",
            "size(tool.groups) > 0",
            "tool.source == 'core' && tool.plugin == ''",
            "turn.calls > 0",
            "turn.side_effecting_calls >= 1 && turn.dangerous_calls == 0",
            "turn.by_tool['transfer'] >= 2",
            "turn.by_tool[tool.name] > 0",
            "turn.by_tool['never'] == 0",
            "caller.type == 'programmatic'",
            "caller.id.startsWith('srvtoolu_')",
            "caller.type == 'direct' || caller.id != ''",
            "args.amount > 100 ? true : args.to == 'x'",
            "args.tags.exists(t, t == 'red')",
            "args.to.matches('^b.*')",
            "int(args.price) == 1",
            "args.to.lowerAscii() == 'bob'",
            "args.amount / 2 == 75",
            "[1, 2, args.amount].size() == 3",
            "args.amount in [150, 200]",
            "args.amount in [150.0]",
            "true",
            "false",
            "1 == 1 && 'a' < 'b'");

    /**
     * Conditions the direct form compiles but never answers for the calls below: they fail for every
     * call (CEL gives the error), or order strings, which the direct form leaves to CEL.
     */
    static final java.util.Set<String> ALWAYS_CEL = java.util.Set.of("args.tags[5] == 'red'", "args.missing > 1",
            "args.missing == null", "1 == 1 && 'a' < 'b'");

    /** Calls: arguments of many shapes, two sessions, two tools, two callers. */
    static List<RuleCall> calls() {
        List<String> args = List.of(
                "{'to': 'bob', 'amount': 150, 'price': 1.5, 'tags': ['red', 'green'], 'flag': true,"
                        + " 'nested': {'deep': {'value': 7}}, 'nothing': null, 'big': 9223372036854775807}",
                "{'to': 'external:x', 'amount': 50, 'price': 2, 'tags': [], 'flag': false, 'nested': {},"
                        + " 'big': -9223372036854775808}",
                "{'to': 42, 'amount': 'lots', 'price': 'free', 'tags': 'red', 'flag': 'yes', 'nested': 3}",
                "{'amount': 100.0, 'fee': 101, 'to': {'name': 'x'}, 'tags': [1, 'red'], 'big': 1e300}",
                "{}",
                "{'amount': 9007199254740993, 'big': 3, 'nan_text': 'NaN', 'price': -0.0, 'nested': {'deep': {'value': 7.0}}}");
        List<RuleContext> contexts = List.of(
                RuleContext.builder().user("u1").group("g1").permission("admin").stream("qq:group:1").build(),
                RuleContext.builder().permission("owner").channel("web").stream("s").build());
        List<TurnCounts> turns = List.of(TurnCounts.NONE, TurnCounts.of(3, 1, 0, Map.of("transfer", 2L)));
        List<Caller> callers = List.of(Caller.DIRECT, Caller.programmatic("srvtoolu_1"));
        List<RuleCall> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            out.add(new RuleCall(Fixtures.json(args.get(i)), contexts.get(i % 2), turns.get(i % 2), callers.get(i % 2)));
            out.add(new RuleCall(Fixtures.json(args.get(i)), contexts.get((i + 1) % 2), turns.get((i + 1) % 2),
                    callers.get((i + 1) % 2)));
        }
        return out;
    }

    static final List<ToolFacts> TOOLS = List.of(
            ToolFacts.builder("transfer").risk("high").sideEffecting(true).groups(List.of("money")).build(),
            ToolFacts.builder("echo").source("stdio").pluginId("p1").risk("low").build());

    @Test
    void whereTheDirectFormAnswersCelAgrees() {
        int answered = 0;
        int total = 0;
        List<String> neverDirect = new ArrayList<>();
        for (String when : CONDITIONS) {
            CelEnvironment.Compiled c = CelEnvironment.compile(when);
            if (c.direct() == null) {
                neverDirect.add(when);
                continue;
            }
            int answeredBefore = answered;
            for (ToolFacts t : TOOLS) {
                MapValue.Struct tool = RuleSet.builder().rule(Fixtures.rule("r", "*", "true", RuleAction.DENY)).build()
                        .forTool(t).toolValue();
                for (RuleCall call : calls()) {
                    total++;
                    Object cel;
                    try {
                        cel = c.program().eval(new CallVariables(call, tool));
                    } catch (CelEvaluationException e) {
                        cel = e;
                    }
                    Boolean direct;
                    try {
                        direct = c.direct().test(new CallVariables(call, tool));
                    } catch (DirectCondition.Fallback f) {
                        direct = null;
                    }
                    if (direct != null) {
                        answered++;
                        assertThat(cel).as("%s for %s on %s", when, call, t).isEqualTo(direct);
                    }
                }
            }
            if (ALWAYS_CEL.contains(when)) {
                assertThat(answered).as("%s is left to CEL for every call", when).isEqualTo(answeredBefore);
            } else {
                assertThat(answered).as("%s is answered directly for some call", when).isGreaterThan(answeredBefore);
            }
        }
        assertThat(neverDirect).as("conditions left to CEL").containsExactlyInAnyOrder(
                "args.tags.exists(t, t == 'red')", "args.to.matches('^b.*')", "int(args.price) == 1",
                "args.to.lowerAscii() == 'bob'", "args.amount / 2 == 75");
        // the calls above are mostly wrong on purpose; still more than half is answered directly
        assertThat(answered).as("answered directly of %d", total).isGreaterThan(total / 2);
    }

    @Test
    void aRuleSetDecidesTheSameWithAndWithoutTheDirectForm() {
        for (String when : CONDITIONS) {
            RuleSet set = Fixtures.set(Fixtures.rule("r", "*", when, RuleAction.ASK));
            for (ToolFacts t : TOOLS) {
                for (RuleCall call : calls()) {
                    RuleDecision withDirect = set.evaluate(t, call, RuleMetrics.NONE);
                    RuleDecision celOnly = set.forTool(t).withoutDirect().evaluate(call, RuleMetrics.NONE);
                    assertThat(withDirect).as("%s for %s", when, call).isEqualTo(celOnly);
                }
            }
        }
    }
}
