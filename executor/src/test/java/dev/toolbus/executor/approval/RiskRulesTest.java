package dev.toolbus.executor.approval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.Risk;
import dev.toolbus.tool.ToolDefinition;
import java.util.List;
import org.junit.jupiter.api.Test;

class RiskRulesTest {

    private static ToolDefinition tool(String name) {
        return ToolDefinition.builder(name).build();
    }

    private static Risk risk(ApprovalSettings s, ToolDefinition def) {
        return new RiskRules(s).classify(def, null);
    }

    private static Risk risk(String name) {
        return risk(ApprovalSettings.defaults(), tool(name));
    }

    @Test
    void readOnlyVerbsWinOverMediumNouns() {
        assertThat(risk("get_file_url")).isEqualTo(Risk.LOW);
        assertThat(risk("search_image")).isEqualTo(Risk.LOW);
        assertThat(risk("list_messages")).isEqualTo(Risk.LOW);
        assertThat(risk("query_memory")).isEqualTo(Risk.LOW);
        assertThat(risk("read_context")).isEqualTo(Risk.LOW);
        assertThat(risk("search")).isEqualTo(Risk.LOW);
        assertThat(risk("Get_Weather")).isEqualTo(Risk.LOW);
        assertThat(risk("web_search")).isEqualTo(Risk.LOW);
        assertThat(risk("calculator")).isEqualTo(Risk.LOW);
    }

    @Test
    void mediumNounsAndEverythingElseAreMedium() {
        assertThat(risk("send_text")).isEqualTo(Risk.MEDIUM);
        assertThat(risk("download_url")).isEqualTo(Risk.MEDIUM);
        assertThat(risk("echo")).isEqualTo(Risk.MEDIUM);
        assertThat(risk("add")).isEqualTo(Risk.MEDIUM);
        assertThat(risk("getter")).isEqualTo(Risk.MEDIUM);
        assertThat(risk("wipe")).isEqualTo(Risk.MEDIUM);
    }

    @Test
    void aDeclarationStandsWhereConfigurationSaysNothing() {
        ApprovalSettings s = ApprovalSettings.builder().high(List.of("get_time")).build();
        assertThat(new RiskRules(s).classify(tool("wipe"), Risk.HIGH)).isEqualTo(Risk.HIGH);
        assertThat(new RiskRules(s).classify(tool("delete_all"), Risk.LOW)).isEqualTo(Risk.LOW);
        assertThat(new RiskRules(s).classify(
                ToolDefinition.builder("get_rm").metadata(RiskRules.DESTRUCTIVE_HINT, true).build(), Risk.LOW))
                .as("a declaration before the annotations").isEqualTo(Risk.LOW);
    }

    /** Issue 21 M3: a plugin's own {@code risk: low} beat approval.high, security.dangerousTools and the known-high names. */
    @Test
    void aDeclarationRaisesButNeverLowersWhatConfigurationGives() {
        ApprovalSettings s = ApprovalSettings.builder().high(List.of("get_time")).medium(List.of("notes"))
                .low(List.of("lookup")).dangerousTools(List.of("drop_table")).build();
        RiskRules r = new RiskRules(s);
        assertThat(r.classify(tool("get_time"), Risk.LOW)).as("approval.high").isEqualTo(Risk.HIGH);
        assertThat(r.classify(tool("notes"), Risk.LOW)).as("approval.medium").isEqualTo(Risk.MEDIUM);
        assertThat(r.classify(tool("drop_table"), Risk.LOW)).as("security.dangerousTools").isEqualTo(Risk.HIGH);
        assertThat(r.classify(tool("kick_member"), Risk.LOW)).as("a known-high name").isEqualTo(Risk.HIGH);
        assertThat(r.classify(ToolDefinition.builder("x").dangerous(true).build(), Risk.MEDIUM)).isEqualTo(Risk.HIGH);
        assertThat(r.classify(tool("notes"), Risk.HIGH)).as("raised").isEqualTo(Risk.HIGH);
        assertThat(r.classify(tool("lookup"), Risk.MEDIUM)).as("raised above approval.low").isEqualTo(Risk.MEDIUM);
        assertThat(r.classify(tool("lookup"), Risk.LOW)).isEqualTo(Risk.LOW);
    }

    /**
     * Issue 21 M4: an MCP tool renamed {@code ext__wipe} on a clash escaped {@code approval.high: [wipe]}.
     * Every list matches the registered name, the source's name and {@code <plugin>:<name>} alike.
     */
    @Test
    void everyListMatchesTheRegisteredTheOriginalAndTheQualifiedName() {
        ToolDefinition renamed = ToolDefinition.builder("ext__wipe").originalName("wipe").pluginId("ext").build();
        for (String entry : List.of("wipe", "ext__wipe", "ext:wipe", "EXT:Wipe", "wi*", "ext:w*")) {
            ApprovalSettings s = ApprovalSettings.builder().high(List.of(entry)).build();
            assertThat(risk(s, renamed)).as("approval.high: [%s]", entry).isEqualTo(Risk.HIGH);
            assertThat(new RiskRules(s).classify(renamed, Risk.LOW)).as("declared low, high: [%s]", entry)
                    .isEqualTo(Risk.HIGH);
            assertThat(risk(ApprovalSettings.builder().dangerousTools(List.of(entry)).build(), renamed))
                    .as("dangerousTools: [%s]", entry).isEqualTo(Risk.HIGH);
            assertThat(risk(ApprovalSettings.builder().low(List.of(entry)).build(), renamed))
                    .as("approval.low: [%s]", entry).isEqualTo(Risk.LOW);
            assertThat(new RiskRules(ApprovalSettings.builder().bypass(List.of(entry)).build()).bypassed(renamed))
                    .as("bypass: [%s]", entry).isTrue();
        }
        assertThat(risk(ApprovalSettings.builder().high(List.of("other:wipe", "*:wipe")).build(), renamed))
                .as("another server's qualified name").isEqualTo(Risk.HIGH);
        assertThat(risk(ApprovalSettings.builder().high(List.of("other:wipe")).build(), renamed))
                .isEqualTo(Risk.MEDIUM);
        assertThat(risk(ApprovalSettings.defaults(),
                ToolDefinition.builder("ext__write_file").originalName("write_file").pluginId("ext").build()))
                .as("a known-high original name").isEqualTo(Risk.HIGH);
    }

    @Test
    void configListsInOrderHighMediumLowThenDangerous() {
        ApprovalSettings s = ApprovalSettings.builder()
                .high(List.of("get_secret", "both"))
                .medium(List.of("both", "kick_member", "get_*"))
                .low(List.of("rename_*", "myplugin"))
                .build();
        assertThat(risk(s, tool("get_secret"))).isEqualTo(Risk.HIGH);
        assertThat(risk(s, tool("both"))).isEqualTo(Risk.HIGH);
        assertThat(risk(s, tool("kick_member"))).as("config list before the known-high names").isEqualTo(Risk.MEDIUM);
        assertThat(risk(s, tool("get_time"))).as("glob").isEqualTo(Risk.MEDIUM);
        assertThat(risk(s, tool("RENAME_file"))).isEqualTo(Risk.LOW);
        assertThat(risk(s, ToolDefinition.builder("anything").pluginId("myplugin").build()))
                .as("plugin id").isEqualTo(Risk.LOW);
    }

    @Test
    void dangerousIsHighBeforeAnnotationsAndNames() {
        ApprovalSettings s = ApprovalSettings.builder().dangerousTools(List.of("get_everything")).build();
        assertThat(risk(s, tool("get_everything"))).isEqualTo(Risk.HIGH);
        assertThat(risk(s, ToolDefinition.builder("list_x").dangerous(true).build())).isEqualTo(Risk.HIGH);
        assertThat(risk(s, ToolDefinition.builder("delete_file").metadata(RiskRules.READ_ONLY_HINT, true).build()))
                .as("known destructive name").isEqualTo(Risk.HIGH);
        assertThat(risk("execute_command")).isEqualTo(Risk.HIGH);
    }

    @Test
    void mcpAnnotationsComeBeforeNames() {
        assertThat(risk(ApprovalSettings.defaults(),
                ToolDefinition.builder("get_rm").metadata(RiskRules.DESTRUCTIVE_HINT, true).build())).isEqualTo(Risk.HIGH);
        assertThat(risk(ApprovalSettings.defaults(),
                ToolDefinition.builder("send_report").metadata(RiskRules.READ_ONLY_HINT, true).build())).isEqualTo(Risk.LOW);
        assertThat(risk(ApprovalSettings.defaults(),
                ToolDefinition.builder("send_report").metadata(RiskRules.READ_ONLY_HINT, false).build()))
                .isEqualTo(Risk.MEDIUM);
    }

    @Test
    void bypassMatchesNamesGlobsAndPlugins() {
        RiskRules r = new RiskRules(ApprovalSettings.builder().bypass(List.of("echo", "safe_*", "plug")).build());
        assertThat(r.bypassed(tool("echo"))).isTrue();
        assertThat(r.bypassed(tool("safe_delete"))).isTrue();
        assertThat(r.bypassed(ToolDefinition.builder("x").pluginId("plug").build())).isTrue();
        assertThat(r.bypassed(tool("wipe"))).isFalse();
        assertThat(new RiskRules(ApprovalSettings.defaults()).bypassed(tool("echo"))).isFalse();
    }
}
