package dev.toolbus.policy;

import static dev.toolbus.policy.Fixtures.CORE;
import static dev.toolbus.policy.Fixtures.ctx;
import static dev.toolbus.policy.Fixtures.set;
import static dev.toolbus.policy.Fixtures.tool;
import static dev.toolbus.policy.Fixtures.visible;
import static dev.toolbus.policy.Fixtures.withPeerGroups;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Issue 11 item 5: the policy's parity rules with OpenClaw (byProvider's four keys, deny by plugin id
 * and glob, an empty alsoAllow replacing the inherited one) and the seed's rules kept where OpenClaw's
 * code departs (what enables an optional tool; plugin-only allow lists). The registry's two rules are
 * in {@code RegistryParityTest}.
 */
class ParityRulesTest {

    private static final List<String> CODING = List.of("read", "write", "edit", "apply_patch", "exec", "process",
            "session_status", "sessions_list", "image");
    private static final CallContext MEMBER = ctx("member");
    private static final CallContext OPENAI = ctx("openai", "gpt-5.2", "");
    private static final CallContext ANTHROPIC = ctx("anthropic", "claude", "");

    /** §B.4's registry plus plugin {@code memory-lancedb} = {recall, remember} and MCP server {@code github} = {issues}. */
    private static ToolRegistry registry() {
        ToolRegistry r = Fixtures.peerRegistry();
        r.register(tool("recall", b -> b.pluginId("memory-lancedb")), ToolSource.STDIO);
        r.register(tool("remember", b -> b.pluginId("memory-lancedb")), ToolSource.STDIO);
        r.register(tool("issues", b -> b.pluginId("github")), ToolSource.MCP);
        return r;
    }

    private static final List<String> PLUGINS = List.of("flow", "foo_tool", "recall", "remember", "issues");

    private static Set<String> visibleWith(UnaryOperator<PolicyConfig.Builder> config, CallContext ctx) {
        ToolRegistry registry = registry();
        return visible(ToolPolicies.from(config.apply(withPeerGroups(PolicyConfig.builder())).build(), registry),
                registry, ctx);
    }

    private static Set<String> all(String... more) {
        Set<String> s = set(CORE, more);
        s.addAll(PLUGINS);
        return s;
    }

    private static PolicyConfig.Rules rules(List<String> allow, List<String> also, List<String> deny, String profile) {
        return PolicyConfig.Rules.builder().allow(allow).alsoAllow(also).deny(deny).profile(profile)
                .alsoAllowGiven(also != null).build();
    }

    @Nested
    class ByProviderTakesAllowDenyProfileAndAlsoAllow {

        @Test
        void allowPlusAlsoAllow_isTheProvidersAllowList() {
            UnaryOperator<PolicyConfig.Builder> c = b -> b.byProvider("openai",
                    rules(List.of("read"), List.of("foo_tool"), List.of(), null));
            assertThat(visibleWith(c, OPENAI)).containsExactlyInAnyOrder("read", "foo_tool");
            assertThat(visibleWith(c, ANTHROPIC)).isEqualTo(all());
        }

        @Test
        void deny_removesForThatProviderOnly() {
            UnaryOperator<PolicyConfig.Builder> c = b -> b.byProvider("openai",
                    rules(List.of(), null, List.of("group:web", "flow"), null));
            Set<String> expected = all();
            expected.removeAll(List.of("web_search", "web_fetch", "flow"));
            assertThat(visibleWith(c, OPENAI)).isEqualTo(expected);
            assertThat(visibleWith(c, ANTHROPIC)).isEqualTo(all());
        }

        @Test
        void profilePlusAlsoAllow_extendsTheProviderProfile() {
            UnaryOperator<PolicyConfig.Builder> c = b -> b.byProvider("openai",
                    rules(List.of(), List.of("memory-lancedb"), List.of(), "coding"));
            assertThat(visibleWith(c, OPENAI)).isEqualTo(set(CODING, "recall", "remember"));
            assertThat(visibleWith(c, ANTHROPIC)).isEqualTo(all());
        }

        @Test
        void alsoAllowAlone_enablesAnOptionalToolForThatProvider() {
            UnaryOperator<PolicyConfig.Builder> c = b -> b.byProvider("openai",
                    rules(List.of(), List.of("workflow_tool"), List.of(), null));
            assertThat(visibleWith(c, OPENAI)).isEqualTo(all("workflow_tool"));
            assertThat(visibleWith(c, ANTHROPIC)).doesNotContain("workflow_tool");
        }

        @Test
        void providerAlsoAllow_replacesTheInheritedOneAtTheProviderProfile() {
            // tools.alsoAllow [foo_tool] reaches the provider profile unless the provider writes its own
            UnaryOperator<PolicyConfig.Builder> inherits = b -> b.alsoAllow(List.of("foo_tool"))
                    .byProvider("openai", rules(List.of(), null, List.of(), "coding"));
            UnaryOperator<PolicyConfig.Builder> replaces = b -> b.alsoAllow(List.of("foo_tool"))
                    .byProvider("openai", rules(List.of(), List.of(), List.of(), "coding"));
            assertThat(visibleWith(inherits, OPENAI)).isEqualTo(set(CODING, "foo_tool"));
            assertThat(visibleWith(replaces, OPENAI)).isEqualTo(set(CODING));
        }

        @Test
        void agentProviderAlsoAllow_replacesTheGlobalProvidersOne() {
            UnaryOperator<PolicyConfig.Builder> c = b -> b
                    .byProvider("openai", rules(List.of(), List.of("foo_tool"), List.of(), "coding"))
                    .agent("main", new PolicyConfig.AgentRules(PolicyConfig.Rules.NONE,
                            Map.of("openai", rules(List.of(), List.of("recall"), List.of(), null))));
            assertThat(visibleWith(c, OPENAI)).isEqualTo(set(CODING, "foo_tool"));
            assertThat(visibleWith(c, ctx("openai", "gpt-5.2", "main"))).isEqualTo(set(CODING, "recall"));
        }
    }

    @Nested
    class DenyMatchesPluginIds {

        @Test
        void anExactPluginId_deniesEveryToolOfIt() {
            Set<String> expected = all();
            expected.removeAll(List.of("recall", "remember"));
            assertThat(visibleWith(b -> b.deny(List.of("memory-lancedb")), MEMBER)).isEqualTo(expected);
        }

        @Test
        void aGlob_matchesPluginIds_caseInsensitively() {
            Set<String> expected = all();
            expected.removeAll(List.of("recall", "remember"));
            assertThat(visibleWith(b -> b.deny(List.of("MEMORY-*")), MEMBER)).isEqualTo(expected);
        }

        @Test
        void aGlob_matchesAnMcpServersName() {
            Set<String> expected = all();
            expected.remove("issues");
            assertThat(visibleWith(b -> b.deny(List.of("git*")), MEMBER)).isEqualTo(expected);
        }

        @Test
        void aGlob_inDisabledToolsAndAgentDeny_too() {
            Set<String> expected = all();
            expected.removeAll(List.of("recall", "remember"));
            assertThat(visibleWith(b -> b.disabledTools(List.of("*lancedb")), MEMBER)).isEqualTo(expected);
            assertThat(visibleWith(b -> b.agent("main", PolicyConfig.Rules.of(List.of(), List.of("mem*"))),
                    ctx("", "", "main"))).isEqualTo(expected);
        }

        @Test
        void aGlobThatMatchesNoIdOrName_removesNothing() {
            assertThat(visibleWith(b -> b.deny(List.of("lance*")), MEMBER)).isEqualTo(all());
        }

        @Test
        void anAllowGlob_grantsByPluginId_asAPlainIdDoes() {
            assertThat(visibleWith(b -> b.allow(List.of("read", "memory-*")), MEMBER))
                    .containsExactlyInAnyOrder("read", "recall", "remember");
        }
    }

    @Nested
    class AnEmptyListReplacesTheInheritedOne {

        private final UnaryOperator<PolicyConfig.Builder> base = b -> b.profile("coding")
                .alsoAllow(List.of("foo_tool"));

        @Test
        void agentWithoutAlsoAllow_inheritsTheGlobalOne() {
            UnaryOperator<PolicyConfig.Builder> c = b -> base.apply(b).agent("main", PolicyConfig.Rules.NONE);
            assertThat(visibleWith(c, ctx("", "", "main"))).isEqualTo(set(CODING, "foo_tool"));
        }

        @Test
        void agentWithAnEmptyAlsoAllow_dropsTheGlobalOne() {
            UnaryOperator<PolicyConfig.Builder> c = b -> base.apply(b)
                    .agent("main", rules(List.of(), List.of(), List.of(), null));
            assertThat(visibleWith(c, ctx("", "", "main"))).isEqualTo(set(CODING));
            assertThat(visibleWith(c, ctx("", "", "other"))).isEqualTo(set(CODING, "foo_tool"));
        }

        @Test
        void agentWithItsOwnAlsoAllow_replacesRatherThanAdds() {
            UnaryOperator<PolicyConfig.Builder> c = b -> base.apply(b)
                    .agent("main", rules(List.of(), List.of("recall"), List.of(), null));
            assertThat(visibleWith(c, ctx("", "", "main"))).isEqualTo(set(CODING, "recall"));
        }

        @Test
        void fourArgumentRules_countAnEmptyListAsUnwritten() {
            assertThat(PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of()).deny(List.of()).build()
                    .alsoAllowGiven()).isFalse();
            assertThat(PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of("x")).deny(List.of()).build()
                    .alsoAllowGiven()).isTrue();
            assertThat(PolicyConfig.Rules.builder().allow(List.of()).alsoAllow(List.of()).deny(List.of())
                    .alsoAllowGiven(true).build().alsoAllowGiven()).isTrue();
        }
    }

    @Nested
    class OptionalToolsNeedAnExplicitName {

        @Test
        void enabledByTheToolName_thePluginId_orGroupPlugins() {
            assertThat(visibleWith(b -> b.alsoAllow(List.of("workflow_tool")), MEMBER)).contains("workflow_tool");
            assertThat(visibleWith(b -> b.alsoAllow(List.of("flow")), MEMBER)).contains("workflow_tool");
            assertThat(visibleWith(b -> b.alsoAllow(List.of("group:plugins")), MEMBER)).contains("workflow_tool");
            assertThat(visibleWith(b -> b.allow(List.of("read", "WorkFlow_Tool")), MEMBER))
                    .containsExactlyInAnyOrder("read", "workflow_tool");
        }

        @Test
        void notByStar_globs_groups_orProfileFull() {
            assertThat(visibleWith(b -> b.allow(List.of("*")), MEMBER)).doesNotContain("workflow_tool");
            assertThat(visibleWith(b -> b.alsoAllow(List.of("workflow*")), MEMBER)).doesNotContain("workflow_tool");
            assertThat(visibleWith(b -> b.alsoAllow(List.of("fl*")), MEMBER)).doesNotContain("workflow_tool");
            assertThat(visibleWith(b -> b.group(Fixtures.group("wf", "workflow_tool")).alsoAllow(List.of("group:wf")),
                    MEMBER)).doesNotContain("workflow_tool");
            assertThat(visibleWith(b -> b.profile("full"), MEMBER)).isEqualTo(all());
            assertThat(visibleWith(b -> b.defineProfile("everything", PolicyConfig.Rules.of(List.of("*"), List.of()))
                    .profile("everything"), MEMBER)).isEqualTo(all());
        }

        @Test
        void namedButDenied_staysOff() {
            assertThat(visibleWith(b -> b.alsoAllow(List.of("workflow_tool")).deny(List.of("workflow_*")), MEMBER))
                    .doesNotContain("workflow_tool");
        }
    }

    @Nested
    class PluginOnlyAllowListsDoNotRestrictCoreTools {

        @Test
        void atTheGlobalLayer() {
            assertThat(visibleWith(b -> b.allow(List.of("foo_tool")), MEMBER)).isEqualTo(all());
            assertThat(visibleWith(b -> b.allow(List.of("memory-lancedb", "github:issues")), MEMBER)).isEqualTo(all());
            assertThat(visibleWith(b -> b.allow(List.of("group:plugins")), MEMBER)).isEqualTo(all("workflow_tool"));
        }

        @Test
        void atTheProviderAndAgentLayers() {
            assertThat(visibleWith(b -> b.byProvider("openai", PolicyConfig.Rules.of(List.of("recall"), List.of())),
                    OPENAI)).isEqualTo(all());
            assertThat(visibleWith(b -> b.agent("main", PolicyConfig.Rules.of(List.of("flow"), List.of())),
                    ctx("", "", "main"))).isEqualTo(all("workflow_tool"));
        }

        @Test
        void aPluginOnlyProfile_too() {
            assertThat(visibleWith(b -> b.defineProfile("plugins", PolicyConfig.Rules.of(List.of("foo_tool"), List.of()))
                    .profile("plugins"), MEMBER)).isEqualTo(all());
        }

        @Test
        void itsDenyStillApplies() {
            Set<String> expected = all();
            expected.removeAll(List.of("exec", "foo_tool"));
            assertThat(visibleWith(b -> b.allow(List.of("foo_tool")).deny(List.of("exec", "foo_tool")), MEMBER))
                    .isEqualTo(expected);
        }

        @Test
        void oneCoreEntry_makesItARestriction() {
            assertThat(visibleWith(b -> b.allow(List.of("foo_tool", "web_*")), MEMBER))
                    .containsExactlyInAnyOrder("foo_tool", "web_search", "web_fetch");
        }
    }
}
