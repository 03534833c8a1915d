package dev.toolbus.rules;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Shared helpers of the rules tests. */
final class Fixtures {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Fixtures() {
    }

    static JsonNode json(String text) {
        try {
            return JSON.readTree(text.replace('\'', '"'));
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    static Rule rule(String name, String tools, String when, RuleAction then) {
        return Rule.builder(name).tools(tools.split(",")).when(when).then(then).build();
    }

    static RuleSet set(Rule... rules) {
        return RuleSet.builder().rules(java.util.List.of(rules)).build();
    }

    static ToolFacts tool(String name) {
        return ToolFacts.builder(name).build();
    }

    static RuleCall call(String args) {
        return new RuleCall(json(args), null, null, null);
    }

    /** Whether {@code when} is true for a call of {@code tool} with {@code call}. */
    static boolean holds(String when, ToolFacts tool, RuleCall call) {
        RuleDecision d = set(rule("r", "*", when, RuleAction.DENY)).evaluate(tool, call, RuleMetrics.NONE);
        if (d.failed()) {
            throw new AssertionError(when + ": " + d.message());
        }
        return d.denies();
    }
}
