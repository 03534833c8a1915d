package dev.toolbus.rules;

import static dev.toolbus.rules.Fixtures.call;
import static dev.toolbus.rules.Fixtures.holds;
import static dev.toolbus.rules.Fixtures.json;
import static dev.toolbus.rules.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each variable a condition can read, with true and false cases so a wrong value shows. */
class RuleVariablesTest {

    private static final RuleCall ARGS = call("{'amount': 150, 'ratio': 0.5, 'to': {'name': 'Bob', 'tags': ['vip', 'eu']},"
            + " 'items': [{'sku': 'a', 'qty': 2}, {'sku': 'b', 'qty': 5}], 'note': null, 'urgent': true,"
            + " 'huge': 12345678901234567890, 'whole': 100.0}");

    @Test
    void args_scalarsNestedObjectsAndLists() {
        ToolFacts t = tool("t");
        assertThat(holds("args.amount == 150", t, ARGS)).isTrue();
        assertThat(holds("args.amount > 100 && args.amount < 151", t, ARGS)).isTrue();
        assertThat(holds("args.amount > 150", t, ARGS)).isFalse();
        assertThat(holds("args.amount > 149.5", t, ARGS)).isTrue();
        assertThat(holds("args.ratio < 1", t, ARGS)).isTrue();
        assertThat(holds("args.to.name == 'Bob'", t, ARGS)).isTrue();
        assertThat(holds("args.to.name == 'Alice'", t, ARGS)).isFalse();
        assertThat(holds("'vip' in args.to.tags", t, ARGS)).isTrue();
        assertThat(holds("args.to.tags.size() == 2 && args.to.tags[1] == 'eu'", t, ARGS)).isTrue();
        assertThat(holds("args.items.exists(i, i.qty > 4)", t, ARGS)).isTrue();
        assertThat(holds("args.items.all(i, i.qty > 4)", t, ARGS)).isFalse();
        assertThat(holds("args.items.map(i, i.qty).exists(q, q == 2)", t, ARGS)).isTrue();
        assertThat(holds("args.note == null", t, ARGS)).isTrue();
        assertThat(holds("args.urgent == true", t, ARGS)).isTrue();
        assertThat(holds("args.huge > 1e19", t, ARGS)).isTrue();
        assertThat(holds("args.whole == 100", t, ARGS)).isTrue();
        assertThat(holds("type(args.whole) == double && type(args.amount) == int", t, ARGS)).isTrue();
    }

    @Test
    void args_missingFields_canBeTestedWithHasAndOptionals() {
        ToolFacts t = tool("t");
        assertThat(holds("has(args.amount)", t, ARGS)).isTrue();
        assertThat(holds("has(args.fee)", t, ARGS)).isFalse();
        assertThat(holds("'fee' in args", t, ARGS)).isFalse();
        assertThat(holds("args.?fee.orValue(0) > 10", t, ARGS)).isFalse();
        assertThat(holds("args.?amount.orValue(0) > 10", t, ARGS)).isTrue();
        assertThat(holds("has(args.to.name)", t, ARGS)).isTrue();
        assertThat(holds("size(args) == 8", t, ARGS)).isTrue();
    }

    @Test
    void args_stringFunctions() {
        ToolFacts t = tool("t");
        assertThat(holds("args.to.name.lowerAscii() == 'bob'", t, ARGS)).isTrue();
        assertThat(holds("args.to.name.startsWith('B') && args.to.name.matches('^[A-Z][a-z]+$')", t, ARGS)).isTrue();
        assertThat(holds("args.to.name.contains('x')", t, ARGS)).isFalse();
    }

    @Test
    void theDocumentedFunctions() {
        ToolFacts t = tool("t");
        RuleCall c = call("{'s': '  Hello World ', 'xs': [1, 2, 3], 'words': ['a', 'b']}");
        for (String when : List.of("args.s.trim() == 'Hello World'", "args.s.lowerAscii().contains('hello')",
                "args.s.upperAscii().contains('WORLD')", "args.s.trim().split(' ').size() == 2",
                "args.s.replace('World', 'There').endsWith('There ')", "args.s.trim().substring(0, 5) == 'Hello'",
                "args.s.indexOf('o') == 6 && args.s.lastIndexOf('o') == 9", "args.s.charAt(2) == 'H'",
                "args.words.join('-') == 'a-b'", "'abc'.reverse() == 'cba'",
                "args.xs.exists_one(x, x == 2)", "args.xs.filter(x, x > 1).size() == 2",
                "args.xs.map(x, x * 2)[2] == 6", "int('42') == 42 && double(args.xs[0]) == 1.0",
                "string(args.xs[1]) == '2'", "args.s.matches('W.rld')", "size(args.s) == 14")) {
            assertThat(holds(when, t, c)).as(when).isTrue();
        }
    }

    @Test
    void ctx_everyField() {
        RuleContext c = RuleContext.builder().user("u1").permission("Admin").group("g1").platform("qq")
                .channel("discord").agent("helper").stream("discord:42").build();
        RuleCall rc = new RuleCall(null, c, null, null);
        ToolFacts t = tool("t");
        assertThat(holds("ctx.user == 'u1' && ctx.permission == 'admin' && ctx.group == 'g1'", t, rc)).isTrue();
        assertThat(holds("ctx.platform == 'qq' && ctx.channel == 'discord' && ctx.agent == 'helper'", t, rc)).isTrue();
        assertThat(holds("ctx.stream == 'discord:42'", t, rc)).isTrue();
        assertThat(holds("ctx.user == 'u2'", t, rc)).isFalse();
        assertThat(holds("ctx.permission == 'owner'", t, rc)).isFalse();
    }

    @Test
    void ctx_unknownFieldsAreEmpty_permissionReadsAsThePolicyDoes_channelFromTheStream() {
        RuleCall none = new RuleCall(null, RuleContext.builder().stream("cli:session:1").build(), null, null);
        ToolFacts t = tool("t");
        assertThat(holds("ctx.user == '' && ctx.group == '' && ctx.agent == ''", t, none)).isTrue();
        assertThat(holds("ctx.permission == 'member'", t, none)).isTrue();
        assertThat(holds("ctx.channel == 'cli'", t, none)).isTrue();
        RuleCall guest = new RuleCall(null, RuleContext.builder().permission("guest").build(), null, null);
        assertThat(holds("ctx.permission == 'member'", t, guest)).isTrue();
        assertThat(RuleContext.builder().permission(" MASTER ").build().get("permission")).isEqualTo("master");
    }

    @Test
    void tool_everyFact() {
        ToolFacts t = ToolFacts.builder("transfer").pluginId("bank").source("stdio").risk("HIGH").sideEffecting(true)
                .dangerous(true).groups(List.of("Money")).build();
        RuleCall c = call("{}");
        assertThat(holds("tool.name == 'transfer' && tool.source == 'stdio' && tool.plugin == 'bank'", t, c)).isTrue();
        assertThat(holds("tool.risk == 'high' && tool.side_effecting && tool.dangerous", t, c)).isTrue();
        assertThat(holds("'money' in tool.groups", t, c)).isTrue();
        ToolFacts plain = tool("echo");
        assertThat(holds("tool.name == 'echo' && tool.source == 'core' && tool.plugin == ''", plain, c)).isTrue();
        assertThat(holds("tool.risk == 'medium' && !tool.side_effecting && !tool.dangerous", plain, c)).isTrue();
        assertThat(holds("tool.groups.size() == 0", plain, c)).isTrue();
    }

    @Test
    void tool_groupsIncludeConfiguredOnes() {
        RuleSet s = RuleSet.builder().group("payments", List.of("transfer", "refund_*"))
                .rule(Fixtures.rule("r", "*", "'payments' in tool.groups", RuleAction.DENY)).build();
        assertThat(s.evaluate(tool("refund_all"), call("{}"), RuleMetrics.NONE).denies()).isTrue();
        assertThat(s.evaluate(tool("echo"), call("{}"), RuleMetrics.NONE).denies()).isFalse();
    }

    @Test
    void turn_countsByKindAndByTool() {
        TurnCounts counts = TurnCounts.of(3, 2, 1, Map.of("transfer", 2L, "echo", 1L));
        RuleCall c = new RuleCall(null, null, counts, null);
        ToolFacts t = tool("transfer");
        assertThat(holds("turn.calls == 3 && turn.side_effecting_calls == 2 && turn.dangerous_calls == 1", t, c))
                .isTrue();
        assertThat(holds("turn.by_tool['transfer'] == 2 && turn.by_tool[tool.name] == 2", t, c)).isTrue();
        assertThat(holds("turn.by_tool['never_called'] == 0", t, c)).isTrue();
        assertThat(holds("turn.side_effecting_calls > 2", t, c)).isFalse();
        RuleCall first = call("{}");
        assertThat(holds("turn.calls == 0 && turn.by_tool['transfer'] == 0", t, first)).isTrue();
    }

    @Test
    void caller_directByDefault_programmaticWithItsId() {
        ToolFacts t = tool("t");
        assertThat(holds("caller.type == 'direct' && caller.id == ''", t, call("{}"))).isTrue();
        RuleCall code = new RuleCall(null, null, null, Caller.programmatic("code_execution_1"));
        assertThat(holds("caller.type == 'programmatic' && caller.id == 'code_execution_1'", t, code)).isTrue();
        assertThat(holds("caller.type == 'direct'", t, code)).isFalse();
    }

    /** An object whose fields cannot be walked: reading one field by name must not walk them. */
    private static final class NoWalk extends com.fasterxml.jackson.databind.node.ObjectNode {
        NoWalk() {
            super(com.fasterxml.jackson.databind.node.JsonNodeFactory.instance);
        }

        @Override
        public java.util.Iterator<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>> fields() {
            throw new AssertionError("the arguments were walked");
        }

        @Override
        public java.util.Set<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>> properties() {
            throw new AssertionError("the arguments were walked");
        }
    }

    @Test
    void args_readingAFieldDoesNotWalkTheObject() {
        NoWalk args = new NoWalk();
        args.put("amount", 150);
        args.set("to", new NoWalk().put("name", "Bob"));
        RuleCall c = new RuleCall(args, null, null, null);
        assertThat(holds("args.amount > 100 && args.to.name == 'Bob' && has(args.to) && 'amount' in args", tool("t"),
                c)).isTrue();
        assertThat(holds("args.?fee.orValue(0) == 0 && size(args) == 2", tool("t"), c)).isTrue();
    }

    @Test
    void args_areConvertedOnlyWhenRead() {
        // a rule that never reads args does not touch them: an object of many fields costs nothing
        StringBuilder big = new StringBuilder("{");
        for (int i = 0; i < 50_000; i++) {
            big.append(i == 0 ? "" : ",").append("\"f").append(i).append("\":").append(i);
        }
        RuleCall c = new RuleCall(json(big.append('}').toString()), null, null, null);
        assertThat(holds("tool.name == 't'", tool("t"), c)).isTrue();
        assertThat(holds("args.f49999 == 49999", tool("t"), c)).isTrue();
    }
}
