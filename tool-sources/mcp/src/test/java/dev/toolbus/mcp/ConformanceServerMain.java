package dev.toolbus.mcp;

import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.awt.Color;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The sample server plus the tools that {@code @modelcontextprotocol/conformance}'s server scenarios
 * call by name ({@code test_simple_text}, {@code test_image_content}, …), each an ordinary toolbus tool
 * run through the executor. Used by hand, as docs/mcp.md describes:
 * {@code java -cp CP dev.toolbus.mcp.ConformanceServerMain --http 3939}, then
 * {@code npx conformance server --url http://127.0.0.1:3939/mcp}.
 */
public final class ConformanceServerMain {

    private ConformanceServerMain() {
    }

    public static void main(String[] args) throws Exception {
        String png = java.util.Base64.getEncoder().encodeToString(SampleTools.png(Color.BLUE, 2));
        String wav = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";
        McpServerMain.run(args, List.of(
                tool("test_simple_text", ToolResult.text("This is a simple text response for testing.")),
                tool("test_image_content", ToolResult.builder().item(ContentItem.image(png, "image/png")).build()),
                tool("test_audio_content", ToolResult.builder().item(ContentItem.audio(wav, "audio/wav")).build()),
                tool("test_embedded_resource", ToolResult.builder().item(new ContentItem("resource",
                        "This is an embedded resource content.", "", "text/plain", "test://embedded-resource", "", "",
                        null)).build()),
                tool("test_multiple_content_types", ToolResult.builder().content("Multiple content types test:")
                        .item(ContentItem.image(png, "image/png"))
                        .item(new ContentItem("resource", "{\"test\":\"data\"}", "", "application/json",
                                "test://mixed-content-resource", "", "", null)).build()),
                tool("test_error_handling", ToolResult.error("This tool intentionally returns an error for testing"))));
    }

    private static ToolSpec tool(String name, ToolResult result) {
        return new ToolSpec(ToolDefinition.builder(name).description("conformance: " + name).build(),
                (args, ctx) -> Mono.just(result));
    }
}
