package dev.toolbus.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import org.junit.jupiter.api.Test;

/**
 * Issue 11 item 5, the registry's two parity rules: tool names clash ignoring case, and a plugin whose
 * id is a core tool's name is blocked whole (HanzoBot's plugin tool rules).
 */
class RegistryParityTest {

    private static ToolSpec tool(String name, String plugin) {
        ToolDefinition def = ToolDefinition.builder(name).description(name).pluginId(plugin).build();
        return new ToolSpec(def, ToolHandler.sync((a, c) -> ToolResult.text(name)));
    }

    @Test
    void pluginToolDifferingOnlyInCase_isSkippedBesideTheCoreTool() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("web_fetch", null), ToolSource.CORE);

        assertThat(r.register(tool("Web_Fetch", "scraper"), ToolSource.STDIO)).isFalse();

        assertThat(r.find("Web_Fetch")).isNull();
        assertThat(r.definitions()).extracting(ToolDefinition::name).containsExactly("web_fetch");
        assertThat(r.diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.name()).isEqualTo("Web_Fetch");
            assertThat(d.loserPlugin()).isEqualTo("scraper");
            assertThat(d.winnerSource()).isEqualTo(ToolSource.CORE);
            assertThat(d.message()).isEqualTo("tool 'Web_Fetch' from stdio plugin 'scraper' is skipped: its name equals"
                    + " 'web_fetch' from core ignoring case (first registered wins)");
        });
    }

    @Test
    void coreToolArrivingLater_replacesAPluginToolDifferingOnlyInCase() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("WEB_FETCH", "scraper"), ToolSource.MCP);
        ToolSpec core = tool("web_fetch", null);

        assertThat(r.register(core, ToolSource.CORE)).isTrue();

        assertThat(r.find("WEB_FETCH")).isNull();
        assertThat(r.find("web_fetch").tool()).isSameAs(core);
        assertThat(r.diagnostics()).singleElement()
                .satisfies(d -> assertThat(d.message()).isEqualTo("tool 'WEB_FETCH' from mcp plugin 'scraper' is skipped: its name"
                        + " equals 'web_fetch' from core ignoring case (core tools win)"));
    }

    @Test
    void twoPluginToolsDifferingOnlyInCase_firstWins() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("Lookup", "a"), ToolSource.STDIO);

        assertThat(r.register(tool("lookup", "b"), ToolSource.STDIO)).isFalse();
        assertThat(r.definitions()).extracting(ToolDefinition::name).containsExactly("Lookup");
        assertThat(r.clash("LOOKUP").tool().definition().pluginId()).isEqualTo("a");
        assertThat(r.clash("other")).isNull();
    }

    @Test
    void pluginWhoseIdIsACoreToolName_isBlockedWhole() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("exec", null), ToolSource.CORE);

        assertThat(r.register(tool("exec_status", "Exec"), ToolSource.STDIO)).isFalse();
        assertThat(r.register(tool("exec_kill", "Exec"), ToolSource.STDIO)).isFalse();
        assertThat(r.register(tool("other", "fine"), ToolSource.STDIO)).isTrue();

        assertThat(r.definitions()).extracting(ToolDefinition::name).containsExactly("exec", "other");
        assertThat(r.diagnostics()).hasSize(2).allSatisfy(d -> {
            assertThat(d.loserPlugin()).isEqualTo("Exec");
            assertThat(d.message()).contains("the plugin id 'Exec' clashes with the core tool 'exec'",
                    "every tool of that plugin is blocked");
        });
    }

    @Test
    void pluginIdClashingWithAnInProcessToolWithoutPluginId_isBlocked() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("echo", null), ToolSource.PLUGIN);

        assertThat(r.register(tool("shout", "echo"), ToolSource.STDIO)).isFalse();
        assertThat(r.find("shout")).isNull();
    }

    @Test
    void coreToolArrivingLater_removesEveryToolOfThePluginNamedLikeIt() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("image_crop", "image"), ToolSource.STDIO);
        r.register(tool("image_rotate", "image"), ToolSource.STDIO);
        r.register(tool("other", "fine"), ToolSource.STDIO);

        assertThat(r.register(tool("image", null), ToolSource.CORE)).isTrue();

        assertThat(r.definitions()).extracting(ToolDefinition::name).containsExactly("other", "image");
        assertThat(r.diagnostics()).extracting(ToolRegistry.Diagnostic::name).containsExactly("image_crop", "image_rotate");
    }

    @Test
    void pluginIdMatchingAPluginToolName_isNotBlocked() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("flow", "flow"), ToolSource.PLUGIN);

        assertThat(r.register(tool("workflow_tool", "flow"), ToolSource.PLUGIN)).isTrue();
        assertThat(r.diagnostics()).isEmpty();
    }

    @Test
    void repeatedDiagnostics_areKeptOnceAndBounded() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("read", null), ToolSource.CORE);
        for (int i = 0; i < 3; i++) {
            r.register(tool("Read", "p"), ToolSource.STDIO);
        }
        assertThat(r.diagnostics()).hasSize(1);

        for (int i = 0; i < ToolRegistry.MAX_DIAGNOSTICS + 10; i++) {
            r.register(tool("read", "p" + i), ToolSource.STDIO);
        }
        assertThat(r.diagnostics()).hasSize(ToolRegistry.MAX_DIAGNOSTICS);
        assertThat(r.diagnostics().get(ToolRegistry.MAX_DIAGNOSTICS - 1).loserPlugin())
                .isEqualTo("p" + (ToolRegistry.MAX_DIAGNOSTICS + 9));
    }
}
