package dev.toolbus.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolRegistryTest {

    private static ToolSpec tool(String name, String plugin, String text) {
        ToolDefinition def = ToolDefinition.builder(name).description(text).pluginId(plugin).build();
        return new ToolSpec(def, ToolHandler.sync((a, c) -> ToolResult.text(text)));
    }

    @Test
    void register_firstRegisteredWins() {
        ToolRegistry r = ToolRegistry.create();
        ToolSpec first = tool("search", "p1", "first");
        assertThat(r.register(first, ToolSource.PLUGIN)).isTrue();
        assertThat(r.register(tool("search", "p2", "second"), ToolSource.STDIO)).isFalse();

        assertThat(r.find("search").tool()).isSameAs(first);
        assertThat(r.diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.name()).isEqualTo("search");
            assertThat(d.loserSource()).isEqualTo(ToolSource.STDIO);
            assertThat(d.loserPlugin()).isEqualTo("p2");
            assertThat(d.winnerSource()).isEqualTo(ToolSource.PLUGIN);
            assertThat(d.winnerPlugin()).isEqualTo("p1");
            assertThat(d.message()).contains("skipped").contains("first registered wins");
        });
    }

    @Test
    void register_coreWinsOverAnEarlierPlugin() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("read", "p1", "plugin"), ToolSource.PLUGIN);
        ToolSpec core = tool("read", null, "core");
        assertThat(r.register(core, ToolSource.CORE)).isTrue();

        assertThat(r.find("read").tool()).isSameAs(core);
        assertThat(r.find("read").source()).isEqualTo(ToolSource.CORE);
        assertThat(r.diagnostics()).singleElement().satisfies(d -> {
            assertThat(d.loserSource()).isEqualTo(ToolSource.PLUGIN);
            assertThat(d.winnerSource()).isEqualTo(ToolSource.CORE);
            assertThat(d.message()).contains("core tools win");
        });
    }

    @Test
    void register_laterPluginLosesToCore() {
        ToolRegistry r = ToolRegistry.create();
        ToolSpec core = tool("read", null, "core");
        r.register(core, ToolSource.CORE);
        assertThat(r.register(tool("read", "p1", "plugin"), ToolSource.MCP)).isFalse();
        assertThat(r.find("read").tool()).isSameAs(core);
        assertThat(r.diagnostics()).hasSize(1);
    }

    @Test
    void register_secondCoreLosesToFirstCore() {
        ToolRegistry r = ToolRegistry.create();
        ToolSpec first = tool("x", null, "a");
        r.register(first, ToolSource.CORE);
        assertThat(r.register(tool("x", null, "b"), ToolSource.CORE)).isFalse();
        assertThat(r.find("x").tool()).isSameAs(first);
    }

    @Test
    void entries_keepRegistrationOrder() {
        ToolRegistry r = ToolRegistry.of(List.of(tool("b", null, "b"), tool("a", null, "a"), tool("c", null, "c")));
        assertThat(r.definitions()).extracting(ToolDefinition::name).containsExactly("b", "a", "c");
        assertThat(r.entries()).allSatisfy(e -> assertThat(e.source()).isEqualTo(ToolSource.PLUGIN));
        assertThat(r.diagnostics()).isEmpty();
    }

    @Test
    void removeIf_removesOnePluginsTools() {
        ToolRegistry r = ToolRegistry.create();
        r.registerAll(List.of(tool("a", "p1", "a"), tool("b", "p2", "b"), tool("c", "p1", "c")), ToolSource.PLUGIN);
        int removed = r.removeIf(e -> "p1".equals(e.tool().definition().pluginId()));
        assertThat(removed).isEqualTo(2);
        assertThat(r.definitions()).extracting(ToolDefinition::name).containsExactly("b");
        assertThat(r.find("a")).isNull();
    }

    @Test
    void find_unknownIsNull() {
        assertThat(ToolRegistry.create().find("nope")).isNull();
    }

    @Test
    void readersKeepTheirSnapshot() {
        ToolRegistry r = ToolRegistry.create();
        r.register(tool("a", null, "a"), ToolSource.PLUGIN);
        var snapshot = r.entries();
        r.register(tool("b", null, "b"), ToolSource.PLUGIN);
        assertThat(snapshot).hasSize(1);
        assertThat(r.entries()).hasSize(2);
    }
}
