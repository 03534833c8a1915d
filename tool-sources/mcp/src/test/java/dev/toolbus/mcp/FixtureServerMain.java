package dev.toolbus.mcp;

import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The sample MCP server plus tools for failure tests: {@code sleep(ms)} (prints
 * {@code fixture: sleep cancelled} on stderr when its call is cancelled), {@code crash} (the process
 * dies mid-call) and {@code pid}.
 */
public final class FixtureServerMain {

    private FixtureServerMain() {
    }

    public static void main(String[] args) throws Exception {
        McpServerMain.run(args, List.of(sleep(), crash(), pid()));
    }

    static ToolSpec sleep() {
        ToolDefinition def = ToolDefinition.builder("sleep").description("Sleep, then answer.")
                .parameter(ToolParameter.of("ms", ToolParamType.INTEGER, "How long")).timeout(Duration.ofMinutes(5)).build();
        return new ToolSpec(def, (args, ctx) -> {
            ctx.onCancel().subscribe(null, null, () -> System.err.println("fixture: sleep cancelled"));
            return Mono.delay(Duration.ofMillis(args.integer("ms", 1000))).thenReturn(ToolResult.text("slept"));
        });
    }

    static ToolSpec crash() {
        ToolDefinition def = ToolDefinition.builder("crash").description("Kill this server process.").build();
        return new ToolSpec(def, (args, ctx) -> Mono.fromCallable(() -> {
            System.err.println("fixture: crashing");
            Runtime.getRuntime().halt(3);
            return ToolResult.text("unreachable");
        }));
    }

    static ToolSpec pid() {
        ToolDefinition def = ToolDefinition.builder("pid").description("This server's process id.").build();
        return new ToolSpec(def, (args, ctx) -> Mono.just(ToolResult.text(Long.toString(ProcessHandle.current().pid()))));
    }
}
