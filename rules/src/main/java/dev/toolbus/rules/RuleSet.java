package dev.toolbus.rules;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.cel.runtime.CelRuntime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A compiled, type-checked list of {@link Rule}s: the {@code rules} section of {@code toolbus.yaml}.
 * Immutable and thread-safe; build a new one to change the rules (a config reload does).
 *
 * <p>Per call: {@link #forTool} gives the rules that can match the called tool (computed once per
 * tool and kept, at most {@value #MAX_CACHED_TOOLS} tools), and {@link ToolRules#evaluate} runs their
 * conditions in order, first match wins. Rules come after the tool policy and can only narrow what it
 * allows: {@code deny} refuses, {@code ask} forces an approval, {@code allow} only stops the
 * evaluation.
 *
 * <pre>{@code
 * RuleSet rules = RuleSet.builder()
 *     .groups(Map.of("money", List.of("transfer", "refund")))
 *     .rule(Rule.builder("big-transfers").tools("group:money")
 *         .when("args.amount > 100 && ctx.permission != 'owner'").then(RuleAction.ASK).build())
 *     .build();                                  // throws InvalidRulesException naming each bad rule
 * RuleDecision d = rules.forTool(facts).evaluate(new RuleCall(args, ctx, counts, Caller.DIRECT), metrics);
 * }</pre>
 */
public final class RuleSet {

    /** The most rules in one set. */
    public static final int MAX_RULES = 1000;
    /** The most tools whose {@link ToolRules} are kept. */
    public static final int MAX_CACHED_TOOLS = 4096;

    /** No rules: every call's decision is {@link RuleDecision#NONE}. */
    public static final RuleSet NONE = builder().build();

    private final List<Rule> rules;
    private final Map<String, List<String>> groups;
    private final List<String> warnings;
    private final List<CompiledRule> compiled;
    private final Map<String, List<ToolPattern>> groupMembers;
    private final Cache<ToolFacts, ToolRules> byTool;

    private RuleSet(List<Rule> rules, Map<String, List<String>> groups, List<String> warnings,
                    List<CompiledRule> compiled, Map<String, List<ToolPattern>> groupMembers) {
        this.rules = rules;
        this.groups = groups;
        this.warnings = warnings;
        this.compiled = compiled;
        this.groupMembers = groupMembers;
        this.byTool = compiled.isEmpty() ? null : Caffeine.newBuilder().maximumSize(MAX_CACHED_TOOLS).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The rules, in order. */
    public List<Rule> rules() {
        return rules;
    }

    /** The configured groups the {@code group:} patterns refer to: name to member patterns. */
    public Map<String, List<String>> groups() {
        return groups;
    }

    /** Things worth saying that are not errors (a {@code group:} naming no configured group). */
    public List<String> warnings() {
        return warnings;
    }

    /** Whether there are no rules. */
    public boolean isEmpty() {
        return rules.isEmpty();
    }

    /** The rules that can match this tool, in order (kept per tool; cheap to call per call). */
    public ToolRules forTool(ToolFacts tool) {
        Objects.requireNonNull(tool, "tool");
        if (byTool == null) {
            return ToolRules.EMPTY;
        }
        return byTool.get(tool, this::compute);
    }

    /** {@code forTool(tool).evaluate(call, metrics)}. */
    public RuleDecision evaluate(ToolFacts tool, RuleCall call, RuleMetrics metrics) {
        return forTool(tool).evaluate(call, metrics);
    }

    private ToolRules compute(ToolFacts tool) {
        ToolPattern.Names bare = ToolPattern.Names.of(tool, Set.of());
        Set<String> gs = new LinkedHashSet<>(tool.groups());
        for (Map.Entry<String, List<ToolPattern>> e : groupMembers.entrySet()) {
            if (ToolPattern.any(e.getValue(), bare)) {
                gs.add(e.getKey());
            }
        }
        ToolPattern.Names names = ToolPattern.Names.of(tool, Set.copyOf(gs));
        List<CompiledRule> applicable = new ArrayList<>();
        for (CompiledRule r : compiled) {
            if (ToolPattern.any(r.tools, names)) {
                applicable.add(r);
            }
        }
        if (applicable.isEmpty()) {
            return ToolRules.EMPTY;
        }
        MapValue value = new MapValue.Fixed(Map.of("name", tool.name(), "source", tool.source(),
                "plugin", tool.pluginId() == null ? "" : tool.pluginId(), "risk", tool.risk(),
                "side_effecting", tool.sideEffecting(), "dangerous", tool.dangerous(), "groups", List.copyOf(gs)));
        return new ToolRules(applicable.toArray(new CompiledRule[0]), value);
    }

    /** Equal when the rules and groups are (the compiled form follows from them). */
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof RuleSet s && rules.equals(s.rules) && groups.equals(s.groups);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rules, groups);
    }

    @Override
    public String toString() {
        List<String> names = new ArrayList<>(rules.size());
        for (Rule r : rules) {
            names.add(r.name());
        }
        return "RuleSet" + names;
    }

    /** Collects rules and groups; {@link #build()} compiles them. */
    public static final class Builder {
        private final List<Rule> rules = new ArrayList<>();
        private final Map<String, List<String>> groups = new LinkedHashMap<>();

        private Builder() {
        }

        /** Adds a rule (after those added before). */
        public Builder rule(Rule rule) {
            rules.add(Objects.requireNonNull(rule, "rule"));
            return this;
        }

        /** Adds rules, in order. */
        public Builder rules(Collection<Rule> list) {
            for (Rule r : list) {
                rule(r);
            }
            return this;
        }

        /**
         * A configured group that {@code group:<name>} refers to (besides the groups tools declare);
         * its members are patterns as in {@code tools}, without {@code group:} references (groups do
         * not nest: they are ignored). The first definition of a name (case ignored) is used.
         */
        public Builder group(String name, Collection<String> members) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(members, "members");
            if (!name.isBlank()) {
                groups.putIfAbsent(ToolPattern.norm(name), List.copyOf(members));
            }
            return this;
        }

        /** {@link #group} for each entry. */
        public Builder groups(Map<String, ? extends Collection<String>> map) {
            map.forEach(this::group);
            return this;
        }

        /**
         * Compiles and type-checks every rule.
         *
         * @throws InvalidRulesException naming each rule whose condition does not parse, does not
         *     type-check or is not a {@code bool}, each name used twice (case ignored), and a list
         *     longer than {@value #MAX_RULES}
         */
        public RuleSet build() {
            List<InvalidRulesException.Problem> problems = new ArrayList<>();
            if (rules.size() > MAX_RULES) {
                problems.add(new InvalidRulesException.Problem(MAX_RULES, rules.get(MAX_RULES).name(),
                        "more than " + MAX_RULES + " rules"));
            }
            Map<String, String> seen = new HashMap<>();
            Map<String, List<ToolPattern>> members = new LinkedHashMap<>();
            groups.forEach((g, m) -> {
                List<ToolPattern> ps = new ArrayList<>();
                for (ToolPattern p : ToolPattern.compileAll(m)) {
                    if (p.kind() != ToolPattern.Kind.GROUP) {
                        ps.add(p);
                    }
                }
                members.put(g, List.copyOf(ps));
            });
            List<String> warnings = new ArrayList<>();
            List<CompiledRule> compiled = new ArrayList<>(rules.size());
            for (int i = 0; i < rules.size() && i < MAX_RULES; i++) {
                Rule r = rules.get(i);
                String first = seen.putIfAbsent(r.name().toLowerCase(Locale.ROOT), r.name());
                if (first != null) {
                    problems.add(new InvalidRulesException.Problem(i, r.name(),
                            "an earlier rule is named '" + first + "' too; rule names must be unique (case is ignored)"));
                }
                List<ToolPattern> tools = ToolPattern.compileAll(r.tools());
                for (ToolPattern p : tools) {
                    if (p.kind() == ToolPattern.Kind.GROUP && !members.containsKey(p.text())) {
                        warnings.add("rules[" + i + "] '" + r.name() + "': group:" + p.text()
                                + " is not a configured group; it matches only tools that declare it");
                    }
                }
                CelRuntime.Program program;
                try {
                    program = CelEnvironment.compile(r.when());
                } catch (IllegalArgumentException e) {
                    problems.add(new InvalidRulesException.Problem(i, r.name(), "when: " + e.getMessage()));
                    continue;
                }
                compiled.add(new CompiledRule(r, List.copyOf(tools), program));
            }
            if (!problems.isEmpty()) {
                throw new InvalidRulesException(problems);
            }
            Map<String, List<String>> gs = Collections.unmodifiableMap(new LinkedHashMap<>(groups));
            return new RuleSet(List.copyOf(rules), gs, List.copyOf(warnings), List.copyOf(compiled),
                    Collections.unmodifiableMap(members));
        }
    }
}
