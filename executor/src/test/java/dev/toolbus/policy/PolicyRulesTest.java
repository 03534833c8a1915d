package dev.toolbus.policy;

import static dev.toolbus.policy.Fixtures.ctx;
import static dev.toolbus.policy.Fixtures.tool;
import static dev.toolbus.policy.Fixtures.visible;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.Visibility;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Source mode, source switches, disabled tools, channels, visibility, profiles. */
class PolicyRulesTest {

    private static ToolRegistry sources() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("core_t"), ToolSource.CORE);
        r.register(tool("java_t", b -> b.pluginId("javaplugin")), ToolSource.PLUGIN);
        r.register(tool("stdio_t", b -> b.pluginId("scripts")), ToolSource.STDIO);
        r.register(tool("mcp_t", b -> b.pluginId("github")), ToolSource.MCP);
        r.register(tool("mcp_noid"), ToolSource.MCP);
        return r;
    }

    @ParameterizedTest(name = "mode {0}, builtin={1} custom={2} mcp={3} → {4}")
    @CsvSource(delimiter = '|', value = {
            "hybrid      | true  | true  | true  | core_t java_t mcp_noid mcp_t stdio_t",
            "skills-only | true  | true  | true  | core_t java_t stdio_t",
            "mcp-only    | true  | true  | true  | mcp_noid mcp_t",
            "hybrid      | false | true  | true  | mcp_noid mcp_t stdio_t",
            "hybrid      | true  | false | true  | core_t java_t mcp_noid mcp_t",
            "hybrid      | true  | true  | false | core_t java_t stdio_t",
            "mcp-only    | true  | true  | false | ''",
            "skills-only | false | false | true  | ''"})
    void sourceMode(String mode, boolean builtin, boolean custom, boolean mcp, String expected) {
        ToolRegistry r = sources();
        PolicyConfig c = PolicyConfig.builder().mode(SourceMode.parse(mode))
                .sources(PolicyConfig.Sources.builder().builtinEnabled(builtin).customEnabled(custom).mcpEnabled(mcp)
                        .disabledTools(List.of()).build()).build();
        assertThat(String.join(" ", visible(ToolPolicies.from(c, r), r, ctx("member")))).isEqualTo(expected);
    }

    @Test
    void toolSearch_isExemptFromModeAndAllowLists_butNotFromDeny() {
        ToolRegistry r = sources();
        ConfiguredPolicy p0 = ToolPolicies.from(PolicyConfig.defaults(), r);
        r.register(ToolSearch.spec(r, p0, DescriptionLocale.EN), ToolSource.CORE);
        PolicyConfig mcpOnly = PolicyConfig.builder().mode(SourceMode.MCP_ONLY).allow(List.of("core_t", "mcp_t"))
                .build();
        assertThat(visible(ToolPolicies.from(mcpOnly, r), r, ctx("member"))).containsExactly("mcp_t", "tool_search");
        PolicyConfig denied = PolicyConfig.builder().deny(List.of("tool_*")).build();
        assertThat(visible(ToolPolicies.from(denied, r), r, ctx("member"))).doesNotContain("tool_search");
        PolicyConfig disabled = PolicyConfig.builder().disabledTools(List.of("tool_search")).build();
        assertThat(visible(ToolPolicies.from(disabled, r), r, ctx("member"))).doesNotContain("tool_search");
    }

    @Test
    void mcpToolsWithoutPluginId_countAsPluginTools() {
        ToolRegistry r = sources();
        // names only plugin tools (one MCP tool without id) → stripped, nothing hidden
        PolicyConfig c = PolicyConfig.builder().allow(List.of("mcp_noid")).build();
        assertThat(visible(ToolPolicies.from(c, r), r, ctx("member"))).hasSize(5);
        PolicyConfig plugins = PolicyConfig.builder().allow(List.of("core_t")).alsoAllow(List.of("group:plugins"))
                .build();
        assertThat(visible(ToolPolicies.from(plugins, r), r, ctx("member"))).hasSize(5);
    }

    @Test
    void disabledTools_applyToEverySource_andTakeGlobsAndPluginIds() {
        ToolRegistry r = sources();
        PolicyConfig c = PolicyConfig.builder().disabledTools(List.of("core_*", "github", "STDIO_T")).build();
        assertThat(visible(ToolPolicies.from(c, r), r, ctx("member"))).containsExactly("java_t", "mcp_noid");
    }

    @Test
    void channelScopedTools_onlyInTheirChannel() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("cli_only", b -> b.channels(List.of("CLI"))), ToolSource.CORE);
        r.register(tool("everywhere"), ToolSource.CORE);
        ConfiguredPolicy p = ToolPolicies.from(PolicyConfig.defaults(), r);
        CallContext cli = CallContext.builder().channel("cli").build();
        CallContext web = CallContext.builder().channel("web").build();
        assertThat(p.decide(r.find("cli_only").tool().definition(), "x", cli).allowed()).isTrue();
        assertThat(p.decide(r.find("cli_only").tool().definition(), "x", web).allowed()).isFalse();
        // no channel in the context: the stream id's prefix is the channel
        assertThat(p.decide(r.find("cli_only").tool().definition(), "cli:session:1", CallContext.EMPTY).allowed())
                .isTrue();
        assertThat(p.decide(r.find("cli_only").tool().definition(), "web:session:1", CallContext.EMPTY).allowed())
                .isFalse();
        assertThat(p.decide(r.find("cli_only").tool().definition(), "nochannel", CallContext.EMPTY).allowed())
                .isFalse();
        assertThat(p.decide(r.find("everywhere").tool().definition(), "nochannel", CallContext.EMPTY).allowed())
                .isTrue();
    }

    @Test
    void hiddenTools_neverAllowed_deferredOnlyAfterDiscovery() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("h", b -> b.visibility(Visibility.HIDDEN)), ToolSource.CORE);
        r.register(tool("d", b -> b.visibility(Visibility.DEFERRED)), ToolSource.CORE);
        ConfiguredPolicy p = ToolPolicies.from(PolicyConfig.builder().allow(List.of("*")).build(), r);
        var h = r.find("h").tool().definition();
        var d = r.find("d").tool().definition();
        assertThat(p.decide(h, "s1", CallContext.EMPTY).allowed()).isFalse();
        assertThat(p.decideForSearch(h, "s1", CallContext.EMPTY).allowed()).isFalse();
        assertThat(p.decide(d, "s1", CallContext.EMPTY).allowed()).isFalse();
        assertThat(p.decideForSearch(d, "s1", CallContext.EMPTY).allowed()).isTrue();
        p.discovery().found("s1", List.of("d"));
        assertThat(p.decide(d, "s1", CallContext.EMPTY).allowed()).isTrue();
        assertThat(p.decide(d, "s2", CallContext.EMPTY).allowed()).as("per stream").isFalse();
        PolicyConfig noGate = PolicyConfig.builder().search(new PolicyConfig.Search(false,
                java.time.Duration.ofMinutes(1), 10, 5)).build();
        assertThat(ToolPolicies.from(noGate, r).decide(d, "s2", CallContext.EMPTY).allowed()).isTrue();
    }

    @Test
    void profiles_agentProfileReplacesGlobal_fullAndUnknownRestrictNothing() {
        ToolRegistry r = Fixtures.peerRegistry();
        PolicyConfig c = Fixtures.withPeerGroups(PolicyConfig.builder()).profile("messaging")
                .agent("coder", PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of()).deny(List.of())
                        .profile("coding").build())
                .agent("free", PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of()).deny(List.of())
                        .profile("full").build())
                .agent("typo", PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of()).deny(List.of())
                        .profile("codng").build()).build();
        ConfiguredPolicy p = ToolPolicies.from(c, r);
        assertThat(visible(p, r, ctx("", "", ""))).containsExactly("message", "session_status", "sessions_list");
        assertThat(visible(p, r, ctx("", "", "coder"))).contains("exec").doesNotContain("message");
        assertThat(visible(p, r, ctx("", "", "free"))).contains("exec", "message", "flow");
        assertThat(visible(p, r, ctx("", "", "typo"))).contains("exec", "message", "flow");
        assertThat(p.warnings()).anySatisfy(w -> assertThat(w).contains("agents.typo.profile", "codng"));
    }

    @Test
    void agentAlsoAllow_replacesGlobalAlsoAllowAtTheProfileLayer() {
        ToolRegistry r = Fixtures.peerRegistry();
        PolicyConfig c = Fixtures.withPeerGroups(PolicyConfig.builder()).profile("coding")
                .alsoAllow(List.of("foo_tool"))
                .agent("a", PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of("flow")).deny(List.of())
                        .build()).build();
        ConfiguredPolicy p = ToolPolicies.from(c, r);
        assertThat(visible(p, r, ctx("", "", ""))).contains("foo_tool").doesNotContain("flow");
        assertThat(visible(p, r, ctx("", "", "a"))).contains("flow", "workflow_tool").doesNotContain("foo_tool");
    }

    @Test
    void providerProfile_isALayerToo() {
        ToolRegistry r = Fixtures.peerRegistry();
        PolicyConfig c = Fixtures.withPeerGroups(PolicyConfig.builder())
                .byProvider("gemini", PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of())
                        .deny(List.of()).profile("messaging").build()).build();
        ConfiguredPolicy p = ToolPolicies.from(c, r);
        assertThat(visible(p, r, ctx("gemini", "gemini-3", ""))).containsExactly("message", "session_status",
                "sessions_list");
        assertThat(visible(p, r, ctx("openai", "gpt-5.2", ""))).contains("exec");
    }

    @Test
    void unknownGroupReference_isWarnedAbout_andMatchesNothing() {
        ToolRegistry r = Fixtures.peerRegistry();
        PolicyConfig c = PolicyConfig.builder().deny(List.of("group:nope")).build();
        ConfiguredPolicy p = ToolPolicies.from(c, r);
        assertThat(p.warnings()).anySatisfy(w -> assertThat(w).contains("tools.deny", "group:nope"));
        assertThat(visible(p, r, ctx("member"))).hasSize(Fixtures.CORE.size() + 2);
    }

    @Test
    void switchablePolicy_swapsAtomically_andKeepsDiscoveries() {
        ToolRegistry r = Fixtures.peerRegistry();
        ToolDiscovery discovery = ToolDiscovery.create(PolicyConfig.Search.DEFAULTS);
        SwitchablePolicy p = ToolPolicies.switchable(ToolPolicies.from(PolicyConfig.defaults(), r, discovery));
        assertThat(visible(p, r, ctx("member"))).contains("exec");
        ConfiguredPolicy old = p.set(ToolPolicies.from(PolicyConfig.builder().deny(List.of("exec")).build(), r,
                p.discovery()));
        assertThat(visible(p, r, ctx("member"))).doesNotContain("exec");
        assertThat(visible(old, r, ctx("member"))).contains("exec");
        assertThat(p.discovery()).isSameAs(discovery);
    }
}
