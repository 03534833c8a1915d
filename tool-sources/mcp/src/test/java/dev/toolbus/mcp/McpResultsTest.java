package dev.toolbus.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.mcp.fixtures.ConformanceTools;
import dev.toolbus.mcp.fixtures.Turns;
import dev.toolbus.mcp.server.McpDemoTools;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolResult;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class McpResultsTest {

    final ObjectMapper mapper = new ObjectMapper();

    @Test
    void toToolResult_mapsEveryContentType() {
        McpSchema.CallToolResult r = McpSchema.CallToolResult.builder()
                .addTextContent("first")
                .addContent(McpSchema.ImageContent.builder("aW1n", "image/png").build())
                .addContent(McpSchema.AudioContent.builder("YXVk", "audio/wav").build())
                .addContent(McpSchema.ResourceLink.builder().uri("file:///a/report.pdf").name("report")
                        .description("the report").mimeType("application/pdf").build())
                .addContent(McpSchema.EmbeddedResource.builder(
                        new McpSchema.TextResourceContents("file:///a/notes.txt", "text/plain", "hello")).build())
                .addContent(McpSchema.EmbeddedResource.builder(
                        new McpSchema.BlobResourceContents("file:///a/b.bin", "application/octet-stream", "AAE="))
                                .build())
                .addTextContent("second")
                .structuredContent(Map.of("k", 1))
                .isError(false)
                .build();
        ToolResult t = McpResults.toToolResult("srv", "tool", r, mapper);
        assertThat(t.isError()).isFalse();
        assertThat(t.content()).isEqualTo("first\nsecond");
        assertThat(t.data().toString()).isEqualTo("{\"k\":1}");
        assertThat(t.metadata()).containsEntry("mcp_server", "srv");
        List<ContentItem> items = t.contentItems();
        assertThat(items).extracting(ContentItem::type)
                .containsExactly("image", "audio", "resource_link", "resource", "resource");
        assertThat(items.get(0).data()).isEqualTo("aW1n");
        assertThat(items.get(0).mimeType()).isEqualTo("image/png");
        assertThat(items.get(1).mimeType()).isEqualTo("audio/wav");
        assertThat(items.get(2).uri()).isEqualTo("file:///a/report.pdf");
        assertThat(items.get(2).name()).isEqualTo("report");
        assertThat(items.get(2).description()).isEqualTo("the report");
        assertThat(items.get(3).text()).isEqualTo("hello");
        assertThat(items.get(3).name()).isEqualTo("notes.txt");
        assertThat(items.get(4).data()).isEqualTo("AAE=");
    }

    @Test
    void toToolResult_isErrorIsAnErrorResult() {
        ToolResult t = McpResults.toToolResult("srv", "tool",
                McpSchema.CallToolResult.builder().addTextContent("disk full").isError(true).build(), mapper);
        assertThat(t.isError()).isTrue();
        assertThat(t.errorMessage()).isEqualTo("disk full");

        ToolResult empty = McpResults.toToolResult("srv", "tool",
                McpSchema.CallToolResult.builder().isError(true).build(), mapper);
        assertThat(empty.errorMessage()).isEqualTo("MCP tool 'tool' on server 'srv' reported an error");
    }

    @Test
    void toCallToolResult_textImagesErrorAndData() {
        List<OutboundEvent> events = List.of(
                ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c1").name("draw").content("a square")
                        .data(Map.of("sum", 3)).attempts(1).elapsedMs(5).build(),
                UserMessageEvent.builder().streamId("s").turnId("t").messageId("tool_result:c1:1").toolCallId("c1")
                        .content(List.of(ContentPart.text("<tool_result_media ... />"),
                                ContentPart.imageBase64("iVBO", "image/png")))
                        .visibleText("").build(),
                new TurnCompletedEvent("s", "t", List.of("c1"), 0, 5));
        McpSchema.CallToolResult r = McpResults.toCallToolResult(events, mapper);
        assertThat(r.isError()).isFalse();
        assertThat(r.content()).hasSize(2);
        assertThat(((McpSchema.TextContent) r.content().get(0)).text()).isEqualTo("a square");
        assertThat(((McpSchema.ImageContent) r.content().get(1)).data()).isEqualTo("iVBO");
        assertThat(r.structuredContent()).isEqualTo(Map.of("sum", 3));

        McpSchema.CallToolResult err = McpResults.toCallToolResult(List.of(
                ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c1").name("x").content("")
                        .isError(true).error(new ErrorInfo(ErrorCode.TIMEOUT, "too slow")).data("text data")
                        .attempts(1).elapsedMs(5).build()), mapper);
        assertThat(err.isError()).isTrue();
        assertThat(((McpSchema.TextContent) err.content().get(0)).text()).isEqualTo("too slow");
        assertThat(err.structuredContent()).isNull();
        assertThat(err.meta()).containsEntry("dev.toolbus/error_code", "TIMEOUT");
    }

    @Test
    void toCallToolResult_everyMediaTypeThroughTheExecutor() {
        String png = java.util.Base64.getEncoder().encodeToString(McpDemoTools.png(java.awt.Color.RED, 2));
        dev.toolbus.tool.ToolResult result = dev.toolbus.tool.ToolResult.builder().content("mixed")
                .item(dev.toolbus.tool.ContentItem.imageBase64(png, "image/png"))
                .item(dev.toolbus.tool.ContentItem.audioBase64(ConformanceTools.WAV, "audio/wav"))
                .item(dev.toolbus.tool.ContentItem.builder("resource").text("hello").mimeType("text/plain")
                        .uri("test://text").build())
                .item(dev.toolbus.tool.ContentItem.builder("resource").data("AAEC")
                        .mimeType("application/octet-stream").uri("test://blob").build())
                .item(dev.toolbus.tool.ContentItem.builder("resource_link").mimeType("text/html")
                        .uri("https://example.org/a").name("a page").description("the page").build())
                .item(dev.toolbus.tool.ContentItem.builder("binary").data("AAEC").mimeType("application/zip")
                        .name("x.zip").build())
                .build();
        try (dev.toolbus.executor.ToolExecutor executor = dev.toolbus.executor.ToolExecutor.builder()
                .tool(new dev.toolbus.tool.ToolSpec(dev.toolbus.tool.ToolDefinition.builder("mixed").build(),
                        (args, ctx) -> reactor.core.publisher.Mono.just(result))).build()) {
            List<OutboundEvent> events = Turns.run(executor, "mixed", "{}");
            McpSchema.CallToolResult r = McpResults.toCallToolResult(events, mapper);
            assertThat(r.isError()).isFalse();
            assertThat(r.content()).extracting(McpSchema.Content::type)
                    .containsExactly("text", "image", "audio", "resource", "resource", "resource_link", "resource");
            assertThat(((McpSchema.TextContent) r.content().get(0)).text()).startsWith("mixed");
            McpSchema.AudioContent audio = (McpSchema.AudioContent) r.content().get(2);
            assertThat(audio.data()).isEqualTo(ConformanceTools.WAV);
            assertThat(audio.mimeType()).isEqualTo("audio/wav");
            McpSchema.TextResourceContents text = (McpSchema.TextResourceContents)
                    ((McpSchema.EmbeddedResource) r.content().get(3)).resource();
            assertThat(text.uri()).isEqualTo("test://text");
            assertThat(text.text()).isEqualTo("hello");
            McpSchema.BlobResourceContents blob = (McpSchema.BlobResourceContents)
                    ((McpSchema.EmbeddedResource) r.content().get(4)).resource();
            assertThat(blob.blob()).isEqualTo("AAEC");
            McpSchema.ResourceLink link = (McpSchema.ResourceLink) r.content().get(5);
            assertThat(link.uri()).isEqualTo("https://example.org/a");
            assertThat(link.name()).isEqualTo("a page");
            McpSchema.BlobResourceContents zip = (McpSchema.BlobResourceContents)
                    ((McpSchema.EmbeddedResource) r.content().get(6)).resource();
            assertThat(zip.mimeType()).isEqualTo("application/zip");
            assertThat(zip.uri()).startsWith("toolbus://media/tool_result:");
            // the wire is unchanged: the audio's user_message carries its header only
            String wire = dev.toolbus.protocol.EventCodec.defaults().encode(Turns.media(events).get(1));
            assertThat(wire).doesNotContain(ConformanceTools.WAV).contains("\"type\":\"text\"");
        }
    }
}
