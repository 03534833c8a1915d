package dev.toolbus.policy;

import static dev.toolbus.policy.Fixtures.ctx;
import static dev.toolbus.policy.Fixtures.tool;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.ToolPolicy.Decision;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSource;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The permission rules of peer-tools.md §A.4 as toolbus applies them: one four-level ladder
 * everywhere (ToolPermission's, not SkillsLoader's three-level one), unknown caller level → member,
 * unknown required level → nobody; groups and dangerous tools enforced on every path.
 * {@code ALLOW}, {@code NA} (not available), {@code PD} (permission denied).
 */
class PermissionRulesTest {

    private static String outcome(Decision d) {
        return d.allowed() ? "ALLOW" : d.code() == ErrorCode.PERMISSION_DENIED ? "PD" : "NA";
    }

    private static String decide(PolicyConfig config, UnaryOperator<ToolDefinition.Builder> tool, String user) {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("t", tool), ToolSource.PLUGIN);
        ConfiguredPolicy p = ToolPolicies.from(config, r);
        return outcome(p.decide(r.find("t").tool().definition(), "qq:group:g1", ctx(user)));
    }

    @ParameterizedTest(name = "caller {0}, tool requires {1} → {2}")
    @CsvSource({
            "member, member, ALLOW", "member, admin, PD", "member, owner, PD", "member, master, PD",
            "admin, member, ALLOW", "admin, admin, ALLOW", "admin, owner, PD", "admin, master, PD",
            "owner, admin, ALLOW", "owner, owner, ALLOW", "owner, master, PD",
            "master, master, ALLOW", "master, owner, ALLOW", "master, member, ALLOW",
            "ADMIN, Admin, ALLOW",
            "'', admin, PD", "'', member, ALLOW", "superuser, admin, PD", "moderator, member, ALLOW",
            "master, root, NA", "member, root, NA", "master, '', ALLOW"})
    void ladder_toolRequiredPermission(String user, String required, String expected) {
        assertThat(decide(PolicyConfig.defaults(), b -> b.requiredPermission(required), user)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "group requires {0}, caller {1} → {2}")
    @CsvSource({
            "admin, member, PD", "admin, admin, ALLOW", "admin, owner, ALLOW",
            // SkillsLoader's ladder made 'master' mean anyone; here only master qualifies
            "master, owner, PD", "master, master, ALLOW",
            "'', member, ALLOW", "root, master, NA"})
    void ladder_groupRequiredPermission(String required, String user, String expected) {
        PolicyConfig c = PolicyConfig.builder()
                .group(new PolicyConfig.Group("admin", "", List.of("t"), true, required)).build();
        assertThat(decide(c, b -> b, user)).isEqualTo(expected);
    }

    @Test
    void groups_applyOnEveryPath_notOnlyDispatch() {
        // ChatAI applied group permissions only on its dispatch path; here listing and calls both see them
        PolicyConfig c = PolicyConfig.builder()
                .group(new PolicyConfig.Group("admin", "", List.of("t"), true, "admin")).build();
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("t"), ToolSource.PLUGIN);
        ConfiguredPolicy p = ToolPolicies.from(c, r);
        assertThat(Fixtures.visible(p, r, ctx("member"))).isEmpty();
        assertThat(Fixtures.visible(p, r, ctx("admin"))).containsExactly("t");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "disabled group hides its tools | false | - | member | NA",
            "disabled group hides its tools from master too | false | - | master | NA",
            "enabled group, no permission | true | - | member | ALLOW"})
    void groups_enabled(String name, boolean enabled, String required, String user, String expected) {
        PolicyConfig c = PolicyConfig.builder().group(new PolicyConfig.Group("g", "", List.of("t"), enabled,
                required.equals("-") ? null : required)).build();
        assertThat(decide(c, b -> b, user)).isEqualTo(expected);
    }

    @Test
    void groups_toolInADisabledAndAnEnabledGroup_isAvailableThroughTheEnabledOne() {
        PolicyConfig c = PolicyConfig.builder()
                .group(new PolicyConfig.Group("shell", "", List.of("t"), false, "master"))
                .group(new PolicyConfig.Group("basic", "", List.of("t"), true, null)).build();
        assertThat(decide(c, b -> b, "member")).isEqualTo("ALLOW");
    }

    @Test
    void groups_lowestRequirementOfTheEnabledGroupsApplies() {
        PolicyConfig c = PolicyConfig.builder()
                .group(new PolicyConfig.Group("a", "", List.of("t"), true, "owner"))
                .group(new PolicyConfig.Group("b", "", List.of("t"), true, "admin")).build();
        assertThat(decide(c, b -> b, "member")).isEqualTo("PD");
        assertThat(decide(c, b -> b, "admin")).isEqualTo("ALLOW");
    }

    @Test
    void groups_membershipDeclaredOnTheDefinition_andByGlobOrPluginId() {
        PolicyConfig c = PolicyConfig.builder()
                .group(new PolicyConfig.Group("admin", "", List.of("mute_*", "moderation"), true, "admin")).build();
        assertThat(decide(c, b -> b.groups(List.of("ADMIN")), "member")).isEqualTo("PD");
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("mute_user"), ToolSource.PLUGIN);
        r.register(tool("ban", b -> b.pluginId("moderation")), ToolSource.PLUGIN);
        r.register(tool("other"), ToolSource.PLUGIN);
        ConfiguredPolicy p = ToolPolicies.from(c, r);
        assertThat(Fixtures.visible(p, r, ctx("member"))).containsExactly("other");
        assertThat(Fixtures.visible(p, r, ctx("admin"))).containsExactly("ban", "mute_user", "other");
    }

    @ParameterizedTest(name = "dangerous by {0}: allowDangerous={1}, requires {2}, caller {3} → {4}")
    @CsvSource({
            "flag, false, admin, master, NA",
            "name, false, admin, master, NA",
            "flag, true, admin, member, PD",
            "name, true, admin, member, PD",
            "flag, true, admin, admin, ALLOW",
            "name, true, master, owner, PD",
            "name, true, master, master, ALLOW",
            "flag, true, '', member, PD",
            "flag, true, '', admin, ALLOW",
            "name, true, sudo, master, NA"})
    void dangerous(String how, boolean allow, String required, String user, String expected) {
        PolicyConfig c = PolicyConfig.builder().security(new PolicyConfig.Security(
                how.equals("name") ? List.of("t") : List.of(), allow, required)).build();
        assertThat(decide(c, b -> b.dangerous(how.equals("flag")), user)).isEqualTo(expected);
    }

    @Test
    void dangerous_defaultListAndLevel_areChatAIs() {
        assertThat(PolicyConfig.Security.DEFAULTS.dangerousTools())
                .containsExactly("kick_member", "mute_member", "recall_message", "set_group_admin", "write_file");
        assertThat(PolicyConfig.Security.DEFAULTS.dangerousRequiredPermission()).isEqualTo("admin");
        assertThat(PolicyConfig.Security.DEFAULTS.allowDangerous()).isFalse();
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("kick_member"), ToolSource.PLUGIN);
        ConfiguredPolicy p = ToolPolicies.from(PolicyConfig.defaults(), r);
        assertThat(Fixtures.visible(p, r, ctx("master"))).isEmpty();
    }

    @Test
    void dangerous_highestOfAllRequirementsApplies() {
        PolicyConfig c = PolicyConfig.builder()
                .security(new PolicyConfig.Security(List.of(), true, "owner"))
                .group(new PolicyConfig.Group("g", "", List.of("t"), true, "admin")).build();
        assertThat(decide(c, b -> b.dangerous(true), "admin")).isEqualTo("PD");
        assertThat(decide(c, b -> b.dangerous(true), "owner")).isEqualTo("ALLOW");
    }

    @Test
    void permissionDenied_namesTheLevels_notAvailable_hasNoReason() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("t", b -> b.requiredPermission("owner")), ToolSource.PLUGIN);
        r.register(tool("u", b -> b.requiredPermission("nonsense")), ToolSource.PLUGIN);
        ConfiguredPolicy p = ToolPolicies.from(PolicyConfig.defaults(), r);
        Decision d = p.decide(r.find("t").tool().definition(), "s", ctx("admin"));
        assertThat(d.reason()).isEqualTo("Tool t needs the owner permission level; this session has admin.");
        assertThat(p.decide(r.find("u").tool().definition(), "s", ctx("admin")).reason()).isEmpty();
    }

    @Test
    void notAvailableWins_overPermissionDenied() {
        // disabled and too low: the session learns nothing about the level
        PolicyConfig c = PolicyConfig.builder().disabledTools(List.of("t")).build();
        assertThat(decide(c, b -> b.requiredPermission("master"), "member")).isEqualTo("NA");
    }

    @Test
    void unknownLevels_areWarnedAbout() {
        PolicyConfig c = PolicyConfig.builder()
                .security(new PolicyConfig.Security(List.of(), true, "sudo"))
                .group(new PolicyConfig.Group("g", "", List.of("t"), true, "root")).build();
        assertThat(ToolPolicies.from(c, ToolRegistry.create()).warnings())
                .anySatisfy(w -> assertThat(w).contains("sudo"))
                .anySatisfy(w -> assertThat(w).contains("root"));
    }
}
