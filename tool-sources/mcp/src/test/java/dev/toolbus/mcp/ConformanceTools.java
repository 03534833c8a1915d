package dev.toolbus.mcp;

import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.awt.Color;
import java.util.Base64;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The tools that {@code @modelcontextprotocol/conformance}'s server scenarios call by name
 * ({@code test_simple_text}, {@code test_image_content}, …), each an ordinary toolbus tool run through
 * the executor.
 */
final class ConformanceTools {

    /** A 44-byte WAV header with no samples: the smallest valid {@code audio/wav}. */
    static final String WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

    private ConformanceTools() {
    }

    static List<ToolSpec> all() {
        System.setProperty("java.awt.headless", "true");
        String png = Base64.getEncoder().encodeToString(SampleTools.png(Color.BLUE, 2));
        return List.of(
                tool("test_simple_text", ToolResult.text("This is a simple text response for testing.")),
                tool("test_image_content", ToolResult.builder().item(ContentItem.image(png, "image/png")).build()),
                tool("test_audio_content", ToolResult.builder().item(ContentItem.audio(WAV, "audio/wav")).build()),
                tool("test_embedded_resource", ToolResult.builder().item(new ContentItem("resource",
                        "This is an embedded resource content.", "", "text/plain", "test://embedded-resource", "", "",
                        null)).build()),
                tool("test_multiple_content_types", ToolResult.builder().content("Multiple content types test:")
                        .item(ContentItem.image(png, "image/png"))
                        .item(new ContentItem("resource", "{\"test\":\"data\",\"value\":123}", "", "application/json",
                                "test://mixed-content-resource", "", "", null)).build()),
                tool("test_error_handling", ToolResult.error("This tool intentionally returns an error for testing")));
    }

    private static ToolSpec tool(String name, ToolResult result) {
        return new ToolSpec(ToolDefinition.builder(name).description("conformance: " + name).build(),
                (args, ctx) -> Mono.just(result));
    }
}
