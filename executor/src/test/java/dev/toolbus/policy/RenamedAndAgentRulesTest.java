package dev.toolbus.policy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.CallContext;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 9: a tool renamed on a clash stays under its rules; agent ids match case-insensitively. */
class RenamedAndAgentRulesTest {

    /** A core {@code add} and the MCP server {@code ext}'s {@code add}, registered as {@code ext__add}. */
    private static ToolRegistry clash() {
        ToolRegistry r = ToolRegistry.create();
        r.register(Fixtures.tool("add"), ToolSource.CORE);
        r.register(Fixtures.tool("ext__add", b -> b.pluginId("ext").originalName("add")), ToolSource.MCP);
        r.register(Fixtures.tool("ext__mul", b -> b.pluginId("ext").originalName("mul")), ToolSource.MCP);
        return r;
    }

    private static boolean allowed(ConfiguredPolicy p, ToolRegistry r, String name, CallContext ctx) {
        ToolDefinition d = r.find(name).tool().definition();
        return p.decide(d, "qq:group:g1", ctx).allowed();
    }

    private static final CallContext ADMIN = Fixtures.ctx("admin");

    @Test
    void denyMatchesTheOriginalNameAndServerColonTool() {
        ToolRegistry r = clash();
        for (String entry : List.of("add", "ext:add", "EXT:Add", "ext:*")) {
            ConfiguredPolicy p = ToolPolicies.from(PolicyConfig.builder().deny(List.of(entry)).build(), r);
            assertThat(allowed(p, r, "ext__add", ADMIN)).as("deny %s", entry).isFalse();
        }
        ConfiguredPolicy byName = ToolPolicies.from(PolicyConfig.builder().deny(List.of("add")).build(), r);
        assertThat(allowed(byName, r, "ext__mul", ADMIN)).isTrue();
        ConfiguredPolicy glob = ToolPolicies.from(PolicyConfig.builder().deny(List.of("ad*")).build(), r);
        assertThat(allowed(glob, r, "ext__add", ADMIN)).as("a glob on the original name").isFalse();
        assertThat(allowed(glob, r, "ext__mul", ADMIN)).as("a plain glob ignores the server part").isTrue();
        // granting lists: server:tool grants, the bare original name stays the core tool's
        ConfiguredPolicy allowList = ToolPolicies.from(PolicyConfig.builder().allow(List.of("ext:mul", "add")).build(),
                r);
        assertThat(allowed(allowList, r, "ext__mul", ADMIN)).isTrue();
        assertThat(allowed(allowList, r, "add", ADMIN)).isTrue();
        assertThat(allowed(allowList, r, "ext__add", ADMIN)).isFalse();
    }

    @Test
    void disabledToolsAndDangerousToolsMatchTheOriginalName() {
        ToolRegistry r = clash();
        ConfiguredPolicy disabled = ToolPolicies.from(PolicyConfig.builder().disabledTools(List.of("add")).build(), r);
        assertThat(allowed(disabled, r, "ext__add", ADMIN)).isFalse();
        ConfiguredPolicy dangerous = ToolPolicies.from(PolicyConfig.builder()
                .security(new PolicyConfig.Security(List.of("ext:add"), true, "master")).build(), r);
        assertThat(allowed(dangerous, r, "ext__add", ADMIN)).as("dangerous: needs master").isFalse();
        assertThat(allowed(dangerous, r, "ext__add", Fixtures.ctx("master"))).isTrue();
        assertThat(allowed(dangerous, r, "ext__mul", ADMIN)).isTrue();
    }

    @Test
    void agentRulesApplyWhateverTheCaseOfTheAgentId() {
        ToolRegistry r = clash();
        ConfiguredPolicy p = ToolPolicies.from(PolicyConfig.builder()
                .agent("Coder", PolicyConfig.Rules.of(List.of(), List.of("add"))).build(), r);
        for (String id : List.of("coder", "CODER", " Coder ", "cOdEr")) {
            assertThat(allowed(p, r, "add", Fixtures.ctx("", "", id))).as("agent %s", id).isFalse();
        }
        assertThat(allowed(p, r, "add", Fixtures.ctx("", "", "other"))).isTrue();
    }

    /**
     * The policy keeps a tool's facts and a context's layers between calls: a tool replaced under its name
     * (here by the same core tool with a plugin id, which {@code group:plugins} denies) is decided by its
     * new definition, and another agent by its own rules.
     */
    @Test
    void whatThePolicyKeepsBetweenCalls_followsAReplacedToolAndEachAgent() {
        ToolRegistry r = ToolRegistry.create();
        r.register(Fixtures.tool("t"), ToolSource.CORE);
        ConfiguredPolicy p = ToolPolicies.from(PolicyConfig.builder()
                .tools(PolicyConfig.Rules.of(List.of(), List.of("group:plugins")))
                .agent("Coder", PolicyConfig.Rules.of(List.of(), List.of("t"))).build(), r);
        assertThat(allowed(p, r, "t", ADMIN)).isTrue();
        assertThat(allowed(p, r, "t", ADMIN)).isTrue();
        assertThat(allowed(p, r, "t", Fixtures.ctx("", "", "coder"))).isFalse();
        assertThat(allowed(p, r, "t", ADMIN)).isTrue();
        assertThat(r.replace(Fixtures.tool("t", b -> b.pluginId("flow")), ToolSource.CORE)).isTrue();
        assertThat(allowed(p, r, "t", ADMIN)).isFalse();
    }
}
