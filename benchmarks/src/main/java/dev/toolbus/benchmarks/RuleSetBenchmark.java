package dev.toolbus.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.rules.Caller;
import dev.toolbus.rules.Rule;
import dev.toolbus.rules.RuleAction;
import dev.toolbus.rules.RuleCall;
import dev.toolbus.rules.RuleContext;
import dev.toolbus.rules.RuleDecision;
import dev.toolbus.rules.RuleMetrics;
import dev.toolbus.rules.RuleOutcome;
import dev.toolbus.rules.RuleSet;
import dev.toolbus.rules.ToolFacts;
import dev.toolbus.rules.TurnCounts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What a rule set of ten rules costs one call, in isolation (no executor): the per-tool lookup, the
 * call's variables and the conditions evaluated. {@code named}: how many of the ten rules name the
 * called tool in their {@code tools} ({@code 0}: the tool matches none, nothing is evaluated;
 * {@code 1}: one condition is evaluated; {@code 10}: every rule names it and none fires, ten
 * conditions are evaluated). None of the conditions is true, so every rule that names the tool runs.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RuleSetBenchmark {

    /** Ten conditions over every variable; none is true for the call below. */
    static final List<String> CONDITIONS = List.of(
            "args.amount > 1000 && ctx.permission != 'owner'",
            "tool.side_effecting && turn.side_effecting_calls > 2",
            "caller.type == 'programmatic' && tool.risk == 'high'",
            "turn.by_tool[tool.name] >= 5",
            "ctx.channel == 'public' && tool.dangerous",
            "has(args.to) && args.to.startsWith('external:')",
            "'blocked' in tool.groups",
            "turn.calls > 20",
            "ctx.agent == 'untrusted-bot' && args.amount > 10",
            "args.?memo.orValue('').size() > 500");

    @Param({"0", "1", "10"})
    public int named;

    private RuleSet rules;
    private ToolFacts tool;
    private JsonNode args;
    private RuleContext ctx;
    private TurnCounts turn;
    private RuleMetrics metrics;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        RuleSet.Builder b = RuleSet.builder();
        List<Rule> list = new ArrayList<>();
        for (int i = 0; i < CONDITIONS.size(); i++) {
            String tools = i < named ? "transfer" : "other_tool_" + i;
            list.add(Rule.builder("rule-" + i).tools(tools).when(CONDITIONS.get(i))
                    .then(i % 2 == 0 ? RuleAction.ASK : RuleAction.DENY).build());
        }
        rules = b.rules(list).build();
        tool = ToolFacts.builder("transfer").source("core").risk("high").sideEffecting(true).build();
        args = new ObjectMapper().readTree("{\"to\": \"bob\", \"amount\": 150, \"memo\": \"rent for May\"}");
        ctx = RuleContext.builder().user("u1").permission("member").channel("group").agent("helper")
                .stream("qq:group:1").build();
        turn = TurnCounts.of(1, 1, 0, Map.of("transfer", 1L));
        metrics = RuleMetrics.create(new SimpleMeterRegistry());
        RuleDecision d = call();
        if (d.outcome() != RuleOutcome.NONE || rules.forTool(tool).ruleNames().size() != named) {
            throw new IllegalStateException("the benchmark's rules must all be evaluated and none fire: " + d);
        }
    }

    /** One call's evaluation, as the engine would make it after the policy check. */
    @Benchmark
    public RuleDecision call() {
        return rules.evaluate(tool, new RuleCall(args, ctx, turn, Caller.DIRECT), metrics);
    }
}
