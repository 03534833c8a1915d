package dev.toolbus.policy;

import static dev.toolbus.policy.Fixtures.CORE;
import static dev.toolbus.policy.Fixtures.ctx;
import static dev.toolbus.policy.Fixtures.peerRegistry;
import static dev.toolbus.policy.Fixtures.set;
import static dev.toolbus.policy.Fixtures.visible;
import static dev.toolbus.policy.Fixtures.withPeerGroups;
import static dev.toolbus.policy.Fixtures.without;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.registry.ToolRegistry;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The worked examples of peer-tools.md §B.4, with core tools C, plugin {@code flow} = {flow,
 * workflow_tool (optional)} and plugin {@code foo} = {foo_tool}. Examples 8 (sandbox) and 10
 * (subagents) have no counterpart: toolbus has no sandbox or subagent layer.
 */
class WorkedExamplesTest {

    static Stream<Arguments> examples() {
        return Stream.of(
                example("1: allow names only an optional plugin tool → stripped, core stays, tool materialised",
                        b -> b.allow(List.of("workflow_tool")), ctx("member"),
                        set(CORE, "flow", "workflow_tool", "foo_tool")),
                example("2: allow names a core and a plugin tool → kept as a restriction",
                        b -> b.allow(List.of("read", "workflow_tool")), ctx("member"),
                        set(List.of("read", "workflow_tool"))),
                example("3: allow names only an unknown entry → stripped (with a warning), optional stays off",
                        b -> b.allow(List.of("lobster")), ctx("member"),
                        set(CORE, "flow", "foo_tool")),
                example("4: allow * does not enable optional tools; other plugin tools survive",
                        b -> b.allow(List.of("*")), ctx("member"),
                        set(CORE, "flow", "foo_tool")),
                example("5: profile coding removes a non-optional plugin tool",
                        b -> b.profile("coding"), ctx("member"),
                        set(List.of("read", "write", "edit", "apply_patch", "exec", "process", "session_status",
                                "sessions_list", "image"))),
                example("5 fix: alsoAllow names the plugin tool",
                        b -> b.profile("coding").alsoAllow(List.of("foo_tool")), ctx("member"),
                        set(List.of("read", "write", "edit", "apply_patch", "exec", "process", "session_status",
                                "sessions_list", "image", "foo_tool"))),
                example("5 fix: alsoAllow names the plugin id",
                        b -> b.profile("coding").alsoAllow(List.of("foo")), ctx("member"),
                        set(List.of("read", "write", "edit", "apply_patch", "exec", "process", "session_status",
                                "sessions_list", "image", "foo_tool"))),
                example("5: a plain allow cannot re-add what the profile removed (layers intersect)",
                        b -> b.profile("coding").allow(List.of("read", "foo_tool")), ctx("member"),
                        set(List.of("read"))),
                example("6: profile coding + deny group:runtime → exec, process removed, apply_patch stays",
                        b -> b.profile("coding").deny(List.of("group:runtime")), ctx("member"),
                        set(List.of("read", "write", "edit", "apply_patch", "session_status", "sessions_list",
                                "image"))),
                example("7: allow * + deny web_* → web tools removed",
                        b -> b.allow(List.of("*")).deny(List.of("web_*")), ctx("member"),
                        set(without(CORE, "web_search", "web_fetch"), "flow", "foo_tool")),
                example("9: byProvider openai/gpt-5.2 wins over openai for gpt-5.2",
                        b -> b.byProvider("openai/gpt-5.2", PolicyConfig.Rules.of(List.of("group:fs"), List.of()))
                                .byProvider("openai", PolicyConfig.Rules.of(List.of("exec"), List.of())),
                        ctx("openai", "gpt-5.2", ""), set(List.of("read", "write", "edit", "apply_patch"))),
                example("9: byProvider falls back to openai for gpt-4o",
                        b -> b.byProvider("openai/gpt-5.2", PolicyConfig.Rules.of(List.of("group:fs"), List.of()))
                                .byProvider("openai", PolicyConfig.Rules.of(List.of("exec"), List.of())),
                        ctx("OpenAI", "gpt-4o", ""), set(List.of("exec"))),
                example("9: a model id with a slash is used as is",
                        b -> b.byProvider("openrouter/anthropic/claude", PolicyConfig.Rules.of(List.of("read"), List.of())),
                        ctx("openrouter", "openrouter/anthropic/claude", ""), set(List.of("read"))),
                example("11: deny a plugin id → all of its tools denied",
                        b -> b.deny(List.of("flow")).allow(List.of("*", "workflow_tool")), ctx("member"),
                        set(CORE, "foo_tool")),
                example("doc caveat: profile messaging + allow of plugin tools keeps only the profile's tools",
                        b -> b.profile("messaging").allow(List.of("foo_tool", "flow")), ctx("member"),
                        set(List.of("message", "sessions_list", "session_status"))),
                example("optional via group:plugins",
                        b -> b.alsoAllow(List.of("group:plugins")), ctx("member"),
                        set(CORE, "flow", "workflow_tool", "foo_tool")),
                example("optional via the plugin id in an agent's allow list",
                        b -> b.agent("main", PolicyConfig.Rules.of(List.of("read", "flow"), List.of())),
                        ctx("", "", "main"), set(List.of("read", "flow", "workflow_tool"))),
                example("agent layer does not apply to another agent",
                        b -> b.agent("main", PolicyConfig.Rules.of(List.of("read", "flow"), List.of())),
                        ctx("", "", "other"), set(CORE, "flow", "foo_tool")),
                example("deny in any layer wins over allow in another",
                        b -> b.allow(List.of("read", "exec")).agent("main", PolicyConfig.Rules.of(List.of(), List.of("exec"))),
                        ctx("", "", "main"), set(List.of("read"))),
                example("an empty allow list allows all",
                        b -> b.allow(List.of()), ctx("member"), set(CORE, "flow", "foo_tool")),
                example("alsoAllow alone is allow-all plus the named tools",
                        b -> b.alsoAllow(List.of("workflow_tool")), ctx("member"),
                        set(CORE, "flow", "workflow_tool", "foo_tool")),
                example("matching is case-insensitive",
                        b -> b.allow(List.of("READ", "Web_*")), ctx("member"),
                        set(List.of("read", "web_search", "web_fetch"))));
    }

    private static Arguments example(String name, UnaryOperator<PolicyConfig.Builder> config, CallContext ctx,
                                     Set<String> expected) {
        return Arguments.of(name, config, ctx, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void workedExample(String name, UnaryOperator<PolicyConfig.Builder> config, CallContext ctx, Set<String> expected) {
        ToolRegistry registry = peerRegistry();
        ConfiguredPolicy policy = ToolPolicies.from(config.apply(withPeerGroups(PolicyConfig.builder())).build(), registry);
        assertThat(visible(policy, registry, ctx)).as(name).isEqualTo(expected);
    }

    @Test
    void example1_pluginOnlyAllowList_noWarning() {
        ToolRegistry registry = peerRegistry();
        ConfiguredPolicy policy = ToolPolicies.from(PolicyConfig.builder().allow(List.of("workflow_tool")).build(), registry);
        assertThat(policy.warnings()).isEmpty();
    }

    @Test
    void example3_unknownEntry_warnsThatTheListIsIgnored() {
        ToolRegistry registry = peerRegistry();
        ConfiguredPolicy policy = ToolPolicies.from(PolicyConfig.builder().allow(List.of("lobster")).build(), registry);
        assertThat(policy.warnings()).singleElement().asString()
                .contains("tools", "lobster", "does not restrict core tools");
    }

    @Test
    void unknownEntryBesideACoreEntry_warnsWithoutStripping() {
        ToolRegistry registry = peerRegistry();
        ConfiguredPolicy policy = ToolPolicies.from(PolicyConfig.builder().allow(List.of("read", "lobster")).build(),
                registry);
        assertThat(policy.warnings()).singleElement().asString().contains("lobster", "without effect");
        assertThat(visible(policy, registry, ctx("member"))).containsExactly("read");
    }

    @Test
    void stripping_followsTheRegistry_whenAPluginToolArrivesLater() {
        ToolRegistry registry = peerRegistry();
        ConfiguredPolicy policy = ToolPolicies.from(PolicyConfig.builder().allow(List.of("read", "late_tool")).build(),
                registry);
        assertThat(visible(policy, registry, ctx("member"))).containsExactly("read");
        registry.register(Fixtures.tool("late_tool", b -> b.pluginId("late")), dev.toolbus.tool.ToolSource.PLUGIN);
        assertThat(visible(policy, registry, ctx("member"))).containsExactly("late_tool", "read");
        assertThat(policy.warnings()).isEmpty();
    }
}
