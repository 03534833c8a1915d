package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.policy.ConfiguredPolicy;
import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.policy.ToolPolicies;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Mono;

/**
 * Issue 11 item 5 in {@code toolbus.yaml}: a written {@code alsoAllow: []} is told from an absent one,
 * {@code byProvider} entries take {@code allow}, {@code deny}, {@code profile} and {@code alsoAllow},
 * and nonsense there fails closed (the file is refused as a policy error).
 */
class ToolsParityConfigTest {

    private static ConfigLoader.Loaded parse(String yaml) {
        return ConfigLoader.parse(yaml, name -> null);
    }

    private static ToolSpec tool(String name, String plugin) {
        return new ToolSpec(ToolDefinition.builder(name).description(name).pluginId(plugin).build(),
                (a, c) -> Mono.just(ToolResult.text(name)));
    }

    /** read, exec, web_fetch (core) and foo_tool (plugin foo) under this file's policy, for one context. */
    private static TreeSet<String> visible(String yaml, String provider, String agent) {
        ConfigLoader.Loaded l = parse(yaml);
        assertThat(l.policyErrors()).isEmpty();
        ToolRegistry r = ToolRegistry.create();
        for (String n : List.of("read", "exec", "web_fetch")) {
            r.register(tool(n, null), ToolSource.CORE);
        }
        r.register(tool("foo_tool", "foo"), ToolSource.STDIO);
        ConfiguredPolicy p = ToolPolicies.from(l.config().policy(), r);
        CallContext ctx = CallContext.builder().userId("u").permission("member").provider(provider).model("")
                .agentId(agent).build();
        TreeSet<String> out = new TreeSet<>();
        r.definitions().stream().filter(d -> p.decide(d, "s", ctx).allowed()).forEach(d -> out.add(d.name()));
        return out;
    }

    private static final String BASE = """
            tools:
              profiles:
                small: {allow: [read, exec]}
              profile: small
              alsoAllow: [foo_tool]
              agents:
            """;

    @Test
    void agentAlsoAllow_absentInherits_emptyReplaces() {
        String yaml = BASE + """
                    inherits: {deny: [exec]}
                    empties: {alsoAllow: []}
                    nulls: {alsoAllow: }
                """;
        ConfigLoader.Loaded l = parse(yaml);
        assertThat(l.config().tools().agents().get("inherits").rules().alsoAllowGiven()).isFalse();
        assertThat(l.config().tools().agents().get("empties").rules().alsoAllowGiven()).isTrue();
        assertThat(l.config().tools().agents().get("nulls").rules().alsoAllowGiven()).isTrue();
        assertThat(l.warnings()).singleElement().asString().startsWith("tools.agents.nulls.alsoAllow: is empty");

        assertThat(visible(yaml, "", "inherits")).containsExactly("foo_tool", "read");
        assertThat(visible(yaml, "", "empties")).containsExactly("exec", "read");
        assertThat(visible(yaml, "", "nulls")).containsExactly("exec", "read");
        assertThat(visible(yaml, "", "")).containsExactly("exec", "foo_tool", "read");
    }

    @Test
    void byProvider_readsItsFourKeys() {
        String yaml = """
                tools:
                  profiles:
                    small: {allow: [read]}
                  byProvider:
                    OpenAI: {profile: small, alsoAllow: [foo], deny: [web_*]}
                    anthropic: {allow: [exec], alsoAllow: [foo_tool]}
                """;
        ConfigLoader.Loaded l = parse(yaml);
        assertThat(l.warnings()).isEmpty();
        PolicyConfig.Rules openai = l.config().tools().byProvider().get("openai");
        assertThat(openai).isEqualTo(PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of("foo"))
                .deny(List.of("web_*")).profile("small").alsoAllowGiven(true).build());
        assertThat(visible(yaml, "openai", "")).containsExactly("foo_tool", "read");
        assertThat(visible(yaml, "anthropic", "")).containsExactly("exec", "foo_tool");
        assertThat(visible(yaml, "other", "")).containsExactly("exec", "foo_tool", "read", "web_fetch");
    }

    @Test
    void byProvider_alsoAllowEmpty_replacesTheInheritedOneAtTheProviderProfile() {
        String yaml = """
                tools:
                  profiles:
                    small: {allow: [read, exec]}
                  alsoAllow: [foo_tool]
                  byProvider:
                    openai: {profile: small}
                    anthropic: {profile: small, alsoAllow: []}
                """;
        assertThat(visible(yaml, "openai", "")).containsExactly("exec", "foo_tool", "read");
        assertThat(visible(yaml, "anthropic", "")).containsExactly("exec", "read");
    }

    @Test
    void byProvider_unknownKey_isWarnedAndIgnored() {
        ConfigLoader.Loaded l = parse("tools:\n  byProvider:\n    openai: {allow: [read], alsoallow: [exec]}\n");
        assertThat(l.warnings()).singleElement().asString()
                .isEqualTo("tools.byProvider.openai.alsoallow: is not a known setting; ignored");
        assertThat(l.policyErrors()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "tools:\n  byProvider:\n    openai: [read]\n",
            "tools:\n  byProvider: [openai]\n",
            "tools:\n  byProvider:\n    openai: {alsoAllow: {foo: 1}}\n",
            "tools:\n  byProvider:\n    openai: {deny: {exec: true}}\n",
            "tools:\n  agents:\n    main: {alsoAllow: {foo: 1}}\n",
            "tools:\n  agents:\n    main: {byProvider: {openai: 5}}\n"})
    void nonsenseValues_arePolicyErrors_soTheFileIsRefused(String yaml) {
        ConfigLoader.Loaded l = parse(yaml);
        assertThat(l.policyErrors()).as(yaml).isNotEmpty();
    }

    @Test
    void effectiveYaml_printsOnlyAWrittenAlsoAllow() {
        Config c = parse(BASE + "    inherits: {deny: [exec]}\n    empties: {alsoAllow: []}\n").config();
        String yaml = ConfigLoader.effectiveYaml(c);
        ConfigLoader.Loaded again = parse(yaml);

        assertThat(again.config().tools().agents()).isEqualTo(c.tools().agents());
        assertThat(again.config().tools().agents().get("inherits").rules().alsoAllowGiven()).isFalse();
        assertThat(again.config().tools().agents().get("empties").rules().alsoAllowGiven()).isTrue();
    }
}
