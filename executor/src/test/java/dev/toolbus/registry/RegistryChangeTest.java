package dev.toolbus.registry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/** {@link ToolRegistry#onChange}: told of every change, and only of changes. */
class RegistryChangeTest {

    private static ToolSpec tool(String name) {
        return new ToolSpec(ToolDefinition.builder(name).description(name).build(), (a, c) -> Mono.just(ToolResult.text(name)));
    }

    @Test
    void listenersHearRegistrationsAndRemovals_notRefusals_andStopWhenDisposed() {
        ToolRegistry registry = ToolRegistry.create();
        AtomicInteger heard = new AtomicInteger();
        Disposable listening = registry.onChange(heard::incrementAndGet);
        registry.onChange(() -> {
            throw new IllegalStateException("a broken listener");
        });

        assertThat(registry.register(tool("a"), ToolSource.PLUGIN)).isTrue();
        assertThat(heard).hasValue(1);
        assertThat(registry.register(tool("a"), ToolSource.PLUGIN)).isFalse(); // first registered wins
        assertThat(heard).hasValue(1);
        assertThat(registry.register(tool("a"), ToolSource.CORE)).isTrue(); // core replaces
        assertThat(heard).hasValue(2);
        assertThat(registry.removeIf(e -> e.tool().name().equals("nope"))).isZero();
        assertThat(heard).hasValue(2);
        assertThat(registry.removeIf(e -> e.tool().name().equals("a"))).isEqualTo(1);
        assertThat(heard).hasValue(3);

        listening.dispose();
        registry.register(tool("b"), ToolSource.PLUGIN);
        assertThat(heard).hasValue(3);
        assertThat(registry.find("b")).isNotNull();
    }
}
