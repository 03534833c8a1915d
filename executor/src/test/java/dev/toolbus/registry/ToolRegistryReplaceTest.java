package dev.toolbus.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

class ToolRegistryReplaceTest {

    private static ToolSpec tool(String description) {
        return new ToolSpec(ToolDefinition.builder("t").description(description).build(),
                (a, c) -> Mono.just(ToolResult.text(description)));
    }

    @Test
    void replace_swapsACoreToolInPlace_andRegistersWhenAbsent_butNeverTakesAnotherSourcesName() {
        ToolRegistry r = ToolRegistry.create();
        assertThat(r.replace(tool("one"), ToolSource.CORE)).isTrue();
        assertThat(r.replace(tool("two"), ToolSource.CORE)).isTrue();
        assertThat(r.entries()).hasSize(1);
        assertThat(r.find("t").tool().definition().description(DescriptionLocale.EN)).isEqualTo("two");
        assertThat(r.diagnostics()).isEmpty();
        // a plugin tool of that name does not replace the core one
        assertThat(r.replace(tool("plugin"), ToolSource.PLUGIN)).isFalse();
        assertThat(r.find("t").tool().definition().description(DescriptionLocale.EN)).isEqualTo("two");
    }
}
