package dev.toolbus.config;

import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.rules.InvalidRulesException;
import dev.toolbus.rules.Rule;
import dev.toolbus.rules.RuleAction;
import dev.toolbus.rules.RuleSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the {@code rules} section of {@code toolbus.yaml} and compiles it ({@link RuleSet}):
 * <pre>{@code
 * rules:
 *   - name: big-transfers-need-the-owner
 *     tools: [transfer]                 # names, globs, plugin ids, group:<name>, group:plugins
 *     when: "args.amount > 100 && ctx.permission != 'owner'"
 *     then: ask                         # ask | deny | allow
 *     message: "Transfers over 100 need the owner's approval."
 * }</pre>
 * A policy section: a rule that cannot be read (no name, no tools, no condition, an unknown
 * {@code then}) or does not compile (the CEL compiler's message, with the rule's name) is a policy
 * error, so {@link ConfigWatcher} refuses the file and a running server keeps its last good rules.
 * The config then holds {@link #denyAll()} instead of the section, so a config used despite its errors
 * refuses every call rather than running without its rules.
 */
final class RulesSection {

    static final String KEY = "rules";
    private static final Set<String> KEYS = Set.of("name", "tools", "when", "then", "message");

    /** What a rules section that does not compile becomes: every call denied. */
    static final String DENY_ALL_NAME = "rules-do-not-compile";

    private RulesSection() {
    }

    @SuppressWarnings("unchecked")
    static RuleSet read(ConfigLoader.Reader in, Map<String, Object> root, List<PolicyConfig.Group> groups) {
        if (!root.containsKey(KEY)) {
            return RuleSet.NONE;
        }
        Object v = root.get(KEY);
        if (v == null) {
            in.warn(KEY, "is empty; no rules");
            return RuleSet.NONE;
        }
        if (!(v instanceof List<?> list)) {
            in.fallback(KEY, "must be a list of rules, got " + ConfigLoader.Reader.describe(v)
                    + "; every call is refused until it is fixed");
            return denyAll();
        }
        boolean bad = false;
        List<Rule> rules = new ArrayList<>();
        List<Integer> at = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String p = KEY + "[" + i + "]";
            if (!(list.get(i) instanceof Map)) {
                in.fallback(p, "must be a mapping, got " + ConfigLoader.Reader.describe(list.get(i)));
                bad = true;
                continue;
            }
            Map<String, Object> m = in.keys((Map<String, Object>) list.get(i), p, KEYS);
            Rule r = rule(in, m, p);
            if (r == null) {
                bad = true;
            } else {
                rules.add(r);
                at.add(i);
            }
        }
        if (rules.isEmpty() && !bad) {
            return RuleSet.NONE;
        }
        RuleSet.Builder b = RuleSet.builder().rules(rules);
        for (PolicyConfig.Group g : groups) {
            b.group(g.name(), g.tools());
        }
        RuleSet built;
        try {
            built = b.build();
        } catch (InvalidRulesException e) {
            for (InvalidRulesException.Problem problem : e.problems()) {
                int index = problem.index() < at.size() ? at.get(problem.index()) : problem.index();
                in.fallback(KEY + "[" + index + "]", "rule '" + problem.rule() + "': " + problem.message());
            }
            return denyAll();
        }
        for (String w : built.warnings()) {
            in.warn(KEY, w);
        }
        return bad ? denyAll() : built;
    }

    /** One rule, or {@code null} when it cannot be read (each reason is a policy error). */
    private static Rule rule(ConfigLoader.Reader in, Map<String, Object> m, String p) {
        boolean ok = true;
        String name = in.string(m, "name", p, null);
        if (name == null || name.isBlank()) {
            in.fallback(p + ".name", "is missing; every rule needs a name");
            ok = false;
            name = p;
        }
        String label = "rule '" + name.strip() + "': ";
        List<String> tools = in.strings(m, "tools", p, List.of());
        if (tools.isEmpty()) {
            in.fallback(p + ".tools", label + (m.containsKey("tools") ? "is empty" : "is missing")
                    + "; write [\"*\"] for every tool");
            ok = false;
        }
        String when = in.string(m, "when", p, null);
        if (when == null || when.isBlank()) {
            in.fallback(p + ".when", label + "is missing; write the condition in CEL (\"true\" for always)");
            ok = false;
        }
        String then = in.string(m, "then", p, null);
        RuleAction action = RuleAction.parse(then);
        if (action == null) {
            in.fallback(p + ".then", label + (then == null ? "is missing" : "'" + then + "' is not")
                    + " one of ask, deny, allow");
            ok = false;
        }
        String message = in.string(m, "message", p, "");
        if (!ok) {
            return null;
        }
        try {
            return new Rule(name, tools, when, action, message);
        } catch (IllegalArgumentException e) {
            in.fallback(p, e.getMessage());
            return null;
        }
    }

    /** The one rule of {@link #denyAll()}. */
    private static final Rule DENY_ALL = Rule.builder(DENY_ALL_NAME).tools("*").when("true").then(RuleAction.DENY)
            .message("The rules in toolbus.yaml do not compile; no call runs until they are fixed.").build();

    /** The rules of a section that does not compile: one rule that denies every call. */
    static RuleSet denyAll() {
        return RuleSet.builder().rule(DENY_ALL).build();
    }

    /** Whether these are the rules of a section that did not compile. */
    static boolean isDenyAll(RuleSet rules) {
        return rules.rules().size() == 1 && rules.rules().get(0).equals(DENY_ALL);
    }

    /** The section as {@code effectiveYaml} prints it. */
    static List<Object> effective(RuleSet rules) {
        List<Object> out = new ArrayList<>();
        for (Rule r : rules.rules()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", r.name());
            m.put("tools", r.tools());
            m.put("when", r.when());
            m.put("then", r.then().wireName());
            m.put("message", r.message());
            out.add(m);
        }
        return out;
    }
}
