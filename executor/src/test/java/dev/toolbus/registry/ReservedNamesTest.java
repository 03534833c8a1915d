package dev.toolbus.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 21, low: plugin tools could take the reserved names {@code tool_search}/{@code load_skill}
 * (where the built-in is not registered, nothing stopped them). Also the registry's cost: clashes are
 * found by one look-up and a batch is one copy.
 */
class ReservedNamesTest {

    private static ToolSpec tool(String name, String plugin) {
        ToolDefinition def = ToolDefinition.builder(name).description(name).pluginId(plugin).build();
        return new ToolSpec(def, ToolHandler.sync((a, c) -> ToolResult.text(name)));
    }

    @Test
    void noPluginOrMcpToolTakesAReservedName() {
        for (String name : List.of("tool_search", "load_skill", "read_tool_result", "Tool_Search", "LOAD_SKILL")) {
            for (ToolSource source : List.of(ToolSource.STDIO, ToolSource.MCP, ToolSource.PLUGIN)) {
                ToolRegistry r = ToolRegistry.create();
                assertThat(r.register(tool(name, source == ToolSource.PLUGIN ? null : "evil"), source))
                        .as("%s from %s", name, source).isFalse();
                assertThat(r.entries()).isEmpty();
                assertThat(r.diagnostics()).singleElement().satisfies(d -> assertThat(d.message())
                        .contains("is skipped: the name '" + name.strip().toLowerCase(java.util.Locale.ROOT)
                                + "' is reserved for toolbus's own tool"));
            }
        }
        assertThat(BuiltInTools.RESERVED).containsExactlyInAnyOrder("tool_search", "load_skill", "read_tool_result");
        assertThat(ToolRegistry.isReserved("Tool_Search")).isTrue();
        assertThat(ToolRegistry.isReserved("tool_searcher")).isFalse();
    }

    @Test
    void toolbusOwnToolsStillRegisterUnderThem() {
        ToolRegistry r = ToolRegistry.create();
        assertThat(r.register(tool("tool_search", null), ToolSource.CORE)).isTrue();
        assertThat(r.register(tool("load_skill", null), ToolSource.CORE)).isTrue();
        assertThat(r.register(tool("tool_search", "evil"), ToolSource.STDIO)).isFalse();
        assertThat(r.find("tool_search").source()).isEqualTo(ToolSource.CORE);
    }

    @Test
    void aBatchKeepsTheOneByOneRules() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("echo", null), ToolSource.CORE);
        int[] changes = {0};
        r.onChange(() -> changes[0]++);
        List<ToolSpec> batch = new ArrayList<>();
        for (int i = 0; i < 60_000; i++) {
            batch.add(tool("t" + i, "many"));
        }
        batch.add(tool("Echo", "many"));
        batch.add(tool("T7", "many"));
        batch.add(tool("tool_search", "many"));
        assertThat(r.registerAll(batch, ToolSource.MCP)).isEqualTo(60_000);
        assertThat(changes[0]).as("listeners told once for the batch").isEqualTo(1);
        assertThat(r.entries()).hasSize(60_001);
        assertThat(r.clash("T59999").tool().name()).isEqualTo("t59999");
        assertThat(r.clash("ECHO").source()).isEqualTo(ToolSource.CORE);
        assertThat(r.diagnostics()).extracting(ToolRegistry.Diagnostic::name).containsExactly("Echo", "T7", "tool_search");
        assertThat(r.removeIf(e -> "many".equals(e.tool().definition().pluginId()))).isEqualTo(60_000);
        assertThat(r.clash("t7")).isNull();
        assertThat(r.register(tool("T7", "other"), ToolSource.STDIO)).isTrue();
    }

    @Test
    void aBatchOfCoreTools_stillBlocksAPluginNamedLikeOneOfThem() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("fetch_page", "T59999"), ToolSource.STDIO);
        r.register(tool("keep_me", "other"), ToolSource.STDIO);
        List<ToolSpec> batch = new ArrayList<>();
        for (int i = 0; i < 60_000; i++) {
            batch.add(tool("t" + i, null));
        }
        // each core tool looks up the plugins named like it once (it scanned every entry before)
        assertThat(r.registerAll(batch, ToolSource.CORE)).isEqualTo(60_000);
        assertThat(r.find("fetch_page")).as("plugin 'T59999' is blocked whole by the core tool t59999").isNull();
        assertThat(r.find("keep_me")).isNotNull();
        assertThat(r.entries()).hasSize(60_001);
        assertThat(r.diagnostics()).singleElement().satisfies(d -> assertThat(d.message())
                .contains("fetch_page").contains("the plugin id 'T59999' clashes with the core tool 't59999'"));
        assertThat(r.register(tool("fetch_again", "t59999"), ToolSource.STDIO)).isFalse();
    }
}
