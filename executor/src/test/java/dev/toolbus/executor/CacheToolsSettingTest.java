package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Issue 10 item 6: caching is opt-in per plugin tool, and {@code execution.cacheTools} is the config's way
 * to opt a tool in (by name or plugin id, globs allowed) while {@code cacheResults} stays the master switch.
 */
class CacheToolsSettingTest {

    private final AtomicInteger runs = new AtomicInteger();

    /** A plugin-like tool: not cacheable unless {@code more} says so; counts its runs. */
    private ToolSpec tool(String name, String plugin, UnaryOperator<ToolDefinition.Builder> more) {
        ToolDefinition def = more.apply(ToolDefinition.builder(name).description(name).pluginId(plugin).cacheable(false))
                .build();
        return new ToolSpec(def, (a, c) -> Mono.fromSupplier(() -> ToolResult.text("run " + runs.incrementAndGet())));
    }

    /** How many of two identical calls of each tool came from the cache. */
    private static long cachedOfTwo(ToolExecutor ex, String tool) {
        return List.of("a", "b").stream().map(id -> TestTools.results(ex.execute(turn("s", tool + id,
                call(id, tool, "{\"q\":1}"))).collectList().block(Duration.ofSeconds(5))).get(0))
                .filter(ToolResultEvent::cached).count();
    }

    private ToolExecutor executor(ExecutionSettings settings) {
        return ToolExecutor.builder().settings(settings)
                .tool(tool("greet", "mai", b -> b))
                .tool(tool("lookup", "mai", b -> b))
                .tool(tool("claw_read", "claw", b -> b))
                .tool(tool("claw_write", "claw", b -> b.sideEffecting(true)))
                .tool(tool("claw_kick", "claw", b -> b.dangerous(true)))
                .tool(tool("declared", "other", b -> b.cacheable(true)))
                .build();
    }

    @Test
    void withoutTheList_onlyTheToolThatDeclaresItselfCacheableIsCached() {
        try (ToolExecutor ex = executor(ExecutionSettings.defaults())) {
            assertThat(cachedOfTwo(ex, "greet")).isZero();
            assertThat(cachedOfTwo(ex, "claw_read")).isZero();
            assertThat(cachedOfTwo(ex, "declared")).isEqualTo(1);
        }
    }

    @Test
    void listedByNameOrByPluginGlob_isCached_butNeverASideEffectingOrDangerousTool() {
        try (ToolExecutor ex = executor(ExecutionSettings.builder().cacheTools(List.of("LOOKUP", "cl*")).build())) {
            assertThat(cachedOfTwo(ex, "lookup")).isEqualTo(1);
            assertThat(cachedOfTwo(ex, "greet")).isZero();
            assertThat(cachedOfTwo(ex, "claw_read")).isEqualTo(1);
            assertThat(cachedOfTwo(ex, "claw_write")).isZero();
            assertThat(cachedOfTwo(ex, "claw_kick")).isZero();
        }
    }

    @Test
    void cacheResultsOff_isTheMasterSwitch() {
        try (ToolExecutor ex = executor(ExecutionSettings.builder().cacheTools(List.of("*")).cacheResults(false).build())) {
            assertThat(cachedOfTwo(ex, "lookup")).isZero();
            assertThat(cachedOfTwo(ex, "declared")).isZero();
        }
    }

}
