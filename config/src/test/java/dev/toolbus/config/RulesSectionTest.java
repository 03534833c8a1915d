package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.rules.RuleAction;
import dev.toolbus.rules.RuleCall;
import dev.toolbus.rules.RuleContext;
import dev.toolbus.rules.RuleDecision;
import dev.toolbus.rules.RuleMetrics;
import dev.toolbus.rules.RuleOutcome;
import dev.toolbus.rules.RuleSet;
import dev.toolbus.rules.ToolFacts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;

/** The {@code rules} section: read, compiled, refused when it does not compile, reloaded live. */
class RulesSectionTest {

    private static final String GOOD = """
            groups:
              - {name: money, tools: [transfer, refund_*]}
            rules:
              - name: big-transfers-need-the-owner
                tools: [group:money]
                when: "args.amount > 100 && ctx.permission != 'owner'"
                then: ask
                message: "Transfers over 100 need the owner's approval."
              - name: one-irreversible-call-per-turn
                tools: ["*"]
                when: "tool.side_effecting && turn.side_effecting_calls > 0"
                then: deny
            """;

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, Map.<String, String>of()::get);
    }

    private static RuleDecision decide(RuleSet rules, String tool, String args) throws Exception {
        return rules.evaluate(ToolFacts.builder(tool).build(),
                new RuleCall(new ObjectMapper().readTree(args), RuleContext.EMPTY, null, null), RuleMetrics.NONE);
    }

    @Test
    void absentSection_noRules() {
        assertThat(parse("mode: hybrid\n").config().rules()).isSameAs(RuleSet.NONE);
        assertThat(Config.defaults().rules()).isSameAs(RuleSet.NONE);
        ConfigLoader.Loaded empty = parse("rules:\n");
        assertThat(empty.config().rules().isEmpty()).isTrue();
        assertThat(empty.warnings()).containsExactly("rules: is empty; no rules");
        assertThat(empty.policyErrors()).isEmpty();
    }

    @Test
    void everyKeyIsRead_andGroupsComeFromTheGroupsSection() throws Exception {
        ConfigLoader.Loaded l = parse(GOOD);
        assertThat(l.warnings()).isEmpty();
        assertThat(l.policyErrors()).isEmpty();
        RuleSet rules = l.config().rules();
        assertThat(rules.rules()).hasSize(2);
        assertThat(rules.rules().get(0).then()).isEqualTo(RuleAction.ASK);
        assertThat(rules.rules().get(0).message()).isEqualTo("Transfers over 100 need the owner's approval.");
        assertThat(rules.rules().get(1).message()).isEmpty();
        RuleDecision d = decide(rules, "refund_all", "{\"amount\": 500}");
        assertThat(d.outcome()).isEqualTo(RuleOutcome.ASK);
        assertThat(d.rule()).isEqualTo("big-transfers-need-the-owner");
        assertThat(decide(rules, "refund_all", "{\"amount\": 5}").outcome()).isEqualTo(RuleOutcome.NONE);
        assertThat(decide(rules, "echo", "{}").outcome()).isEqualTo(RuleOutcome.NONE);
    }

    @Test
    void scalarsAreReadAsText_andUnknownKeysWarned() {
        ConfigLoader.Loaded l = parse("rules:\n  - {name: always, tools: echo, when: true, then: DENY, mesage: x}\n");
        assertThat(l.policyErrors()).isEmpty();
        assertThat(l.config().rules().rules().get(0).when()).isEqualTo("true");
        assertThat(l.config().rules().rules().get(0).tools()).containsExactly("echo");
        assertThat(l.warnings()).containsExactly("rules[0].mesage: is not a known setting; ignored",
                "rules[0].tools: should be a list; read as [echo]");
    }

    @Test
    void aRuleThatDoesNotCompile_isAPolicyError_withItsNameAndTheCompilersMessage() throws Exception {
        ConfigLoader.Loaded l = parse("""
                rules:
                  - {name: fine, tools: [a], when: "true", then: allow}
                  - {name: typo, tools: [a], when: "ctx.usr == 'x'", then: deny}
                  - {name: not-bool, tools: [a], when: "turn.calls", then: deny}
                """);
        assertThat(l.policyErrors()).containsExactly(
                "rules[1]: rule 'typo': when: undefined field 'usr' (line 1, column 4)",
                "rules[2]: rule 'not-bool': when: the condition has type int, not bool");
        assertThat(l.warnings()).containsAll(l.policyErrors());
        assertThat(l.reloadProblems()).isEqualTo(l.policyErrors());
        // used despite its errors, the config denies every call
        RuleDecision d = decide(l.config().rules(), "anything", "{}");
        assertThat(d.outcome()).isEqualTo(RuleOutcome.DENY);
        assertThat(d.message()).contains("do not compile");
    }

    @Test
    void syntaxErrorAndUnknownVariable() {
        ConfigLoader.Loaded l = parse("rules:\n  - {name: a, tools: ['*'], when: 'args.x >', then: ask}\n"
                + "  - {name: b, tools: ['*'], when: 'argz.x > 1', then: ask}\n");
        assertThat(l.policyErrors()).hasSize(2);
        assertThat(l.policyErrors().get(0)).startsWith("rules[0]: rule 'a': when: ").contains("mismatched input");
        assertThat(l.policyErrors().get(1)).isEqualTo(
                "rules[1]: rule 'b': when: undeclared reference to 'argz' (in container '') (line 1, column 1)");
    }

    @Test
    void rulesThatCannotBeRead_arePolicyErrors() throws Exception {
        ConfigLoader.Loaded l = parse("""
                rules:
                  - {tools: [a], when: "true", then: deny}
                  - {name: no-tools, when: "true", then: deny}
                  - {name: no-when, tools: [a], then: deny}
                  - {name: bad-then, tools: [a], when: "true", then: block}
                  - just a string
                  - {name: dup, tools: [a], when: "true", then: ask}
                  - {name: DUP, tools: [b], when: "true", then: ask}
                """);
        assertThat(l.policyErrors()).containsExactly(
                "rules[0].name: is missing; every rule needs a name",
                "rules[1].tools: rule 'no-tools': is missing; write [\"*\"] for every tool",
                "rules[2].when: rule 'no-when': is missing; write the condition in CEL (\"true\" for always)",
                "rules[3].then: rule 'bad-then': 'block' is not one of ask, deny, allow",
                "rules[4]: must be a mapping, got 'just a string'",
                "rules[6]: rule 'DUP': an earlier rule is named 'dup' too; rule names must be unique (case is ignored)");
        assertThat(decide(l.config().rules(), "a", "{}").outcome()).isEqualTo(RuleOutcome.DENY);
        assertThat(parse("rules: {name: x}\n").policyErrors()).containsExactly(
                "rules: must be a list of rules, got a mapping; every call is refused until it is fixed");
    }

    @Test
    void anUnknownGroupIsWarned() {
        ConfigLoader.Loaded l = parse("rules:\n  - {name: r, tools: [group:nope], when: 'true', then: deny}\n");
        assertThat(l.policyErrors()).isEmpty();
        assertThat(l.warnings()).containsExactly(
                "rules: rules[0] 'r': group:nope is not a configured group; it matches only tools that declare it");
    }

    @Test
    void effectiveYamlRoundTrips() {
        ConfigLoader.Loaded l = parse(GOOD);
        String yaml = ConfigLoader.effectiveYaml(l.config());
        assertThat(yaml).contains("rules:", "name: big-transfers-need-the-owner", "then: ask",
                "when: args.amount > 100 && ctx.permission != 'owner'");
        ConfigLoader.Loaded again = parse(yaml);
        assertThat(again.policyErrors()).isEmpty();
        assertThat(again.config()).isEqualTo(l.config());
        assertThat(ConfigLoader.effectiveYaml(Config.defaults())).contains("rules: []");
    }

    @Test
    void liveConfig_appliesNewRules_andKeepsTheLastGoodOnesWhenGivenRulesThatDoNotCompile() throws Exception {
        LiveConfig live = LiveConfig.create(parse(GOOD).config(), ToolRegistry.create());
        RuleSet first = live.rules().get();
        assertThat(first.rules()).hasSize(2);
        live.apply(parse("rules:\n  - {name: only, tools: [x], when: 'true', then: deny}\n").config());
        assertThat(live.rules().get().rules()).extracting(r -> r.name()).containsExactly("only");
        live.apply(parse("rules:\n  - {name: broken, tools: [x], when: 'nope', then: deny}\ntools: {deny: [y]}\n")
                .config());
        assertThat(live.rules().get().rules()).extracting(r -> r.name()).containsExactly("only");
        assertThat(live.policy().config().tools().deny()).as("the rest applies").containsExactly("y");
        live.apply(parse("").config());
        assertThat(live.rules().get().isEmpty()).as("removing the section is a valid edit").isTrue();
    }

    @Test
    void hotReload_aBadEditKeepsTheLastGoodRules_untilFixed(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, GOOD);
        try (ConfigWatcher watcher = ConfigWatcher.start(file, Duration.ofMillis(50), Map.<String, String>of()::get)) {
            LiveConfig live = LiveConfig.create(watcher.current().config(), ToolRegistry.create());
            Disposable following = live.follow(watcher);
            try {
                assertThat(decide(live.rules().get(), "transfer", "{\"amount\": 500}").outcome())
                        .isEqualTo(RuleOutcome.ASK);
                Files.writeString(file, GOOD.replace("then: ask", "then: deny").replace("args.amount", "args.amont +"));
                await().atMost(Duration.ofSeconds(10)).until(() -> watcher.lastError() != null);
                assertThat(watcher.lastError()).contains("rules[0]: rule 'big-transfers-need-the-owner': when: ");
                assertThat(decide(live.rules().get(), "transfer", "{\"amount\": 500}").outcome())
                        .as("the last good rules stay").isEqualTo(RuleOutcome.ASK);
                Files.writeString(file, GOOD.replace("then: ask", "then: deny"));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> live.rules().get().rules().get(0).then() == RuleAction.DENY);
                assertThat(watcher.lastError()).isNull();
                assertThat(decide(live.rules().get(), "transfer", "{\"amount\": 500}").outcome())
                        .isEqualTo(RuleOutcome.DENY);
            } finally {
                following.dispose();
            }
        }
    }

    @Test
    void atStart_rulesThatDoNotCompileRefuseTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "rules:\n  - {name: r, tools: ['*'], when: 'tool.nam == \"x\"', then: deny}\n");
        assertThatThrownBy(() -> ConfigWatcher.start(file, Duration.ofMillis(50), Map.<String, String>of()::get))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rules[0]: rule 'r': when: undefined field 'nam'");
    }
}
