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
    void declarationWinsOverEverything() {
        ApprovalSettings s = ApprovalSettings.builder().high(List.of("get_time")).build();
        assertThat(new RiskRules(s).classify(tool("get_time"), Risk.LOW)).isEqualTo(Risk.LOW);
        assertThat(new RiskRules(s).classify(tool("wipe"), Risk.HIGH)).isEqualTo(Risk.HIGH);
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
