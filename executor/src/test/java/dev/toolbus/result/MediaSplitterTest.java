package dev.toolbus.result;

import static dev.toolbus.result.Base64PayloadTest.PNG_1X1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.MediaRef;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolResult;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MediaSplitterTest {

    private static final MediaSplitter EN = MediaSplitter.create(DescriptionLocale.EN,
            MediaSplitter.DEFAULT_MAX_MEDIA_BYTES);
    private static final MediaSplitter ZH = MediaSplitter.create(DescriptionLocale.ZH,
            MediaSplitter.DEFAULT_MAX_MEDIA_BYTES);

    private static ContentItem item(String type, String data, String mime, String uri, String name) {
        return ContentItem.builder(type).data(data).mimeType(mime).uri(uri).name(name).build();
    }

    @Test
    void noItems_cheapPath_returnsContentItself() {
        ToolResult r = ToolResult.text("hello");
        SplitResult s = EN.split("c1", "f", r);
        assertThat(s.content()).isSameAs(r.content());
        assertThat(s.media()).isEmpty();
        assertThat(s.messages()).isEmpty();
        assertThat(s.error()).isNull();
    }

    @Test
    void textOfAResultWithoutItems_isTheSplitsContent_andNullWithItems() {
        ToolResult[] plain = {ToolResult.text(" hello "), ToolResult.empty(), ToolResult.error(" boom "),
            ToolResult.builder().success(false).build(), ToolResult.builder().data(Map.of("k", List.of(1, 2.5))).build(),
            ToolResult.builder().data("  raw  ").build()};
        for (ToolResult r : plain) {
            for (MediaSplitter s : new MediaSplitter[] {EN, ZH}) {
                assertThat(s.text("search", r)).isEqualTo(s.split("c", "search", r).content());
                assertThat(s.text(null, r)).isEqualTo(s.split("c", null, r).content());
            }
        }
        assertThat(EN.text("f", ToolResult.builder().item(ContentItem.text("t")).build())).isNull();
    }

    @Test
    void fallbacks_bothLocales() {
        assertThat(EN.split("c", "f", ToolResult.empty()).content()).isEqualTo("Tool executed successfully.");
        assertThat(ZH.split("c", "f", ToolResult.empty()).content()).isEqualTo("工具执行成功。");
        ToolResult failed = ToolResult.builder().success(false).build();
        assertThat(EN.split("c", "search", failed).content()).isEqualTo("Tool search failed.");
        assertThat(ZH.split("c", "search", failed).content()).isEqualTo("工具 search 执行失败。");
    }

    @Test
    void javaResult_sameRules() {
        assertThat(EN.split("c", "f", ToolResult.error(" boom ")).content()).isEqualTo("boom");
        ToolResult data = ToolResult.builder().data(Map.of("名", List.of(1, 2.5))).build();
        assertThat(EN.split("c", "f", data).content()).isEqualTo("{\"名\": [1, 2.5]}");
        ToolResult textData = ToolResult.builder().data("  raw  ").build();
        assertThat(EN.split("c", "f", textData).content()).isEqualTo("raw");
        ToolResult nullNode = ToolResult.builder().data(com.fasterxml.jackson.databind.node.NullNode.getInstance())
                .build();
        assertThat(EN.split("c", "f", nullNode).content()).isEqualTo("Tool executed successfully.");
        ToolResult errorOnly = ToolResult.builder().success(false).errorMessage(" why ").build();
        assertThat(EN.split("c", "f", errorOnly).content()).isEqualTo("why");
    }

    @Test
    void itemTexts_english() {
        ToolResult r = ToolResult.builder()
                .item(ContentItem.text("t"))
                .item(ContentItem.text("  "))
                .item(item("image", "", "", "", ""))
                .item(item("audio", "", "audio/wav", "", ""))
                .item(item("resource_link", "", "", "", ""))
                .item(item("resource_link", "", "", "https://x", ""))
                .item(item("resource", "", "", "file:///x", ""))
                .item(ContentItem.builder("resource").text("inline").name("n").build())
                .item(item("resource", "", "", "", ""))
                .item(item("binary", "", "", "", ""))
                .item(item("video", "", "", "", ""))
                .build();
        assertThat(EN.split("c", "f", r.toBuilder().build()).content()).startsWith(String.join("\n",
                "t", "[image content unknown]", "[audio content audio/wav]", "[resource link] resource link",
                "[resource link] https://x", "[embedded resource] file:///x", "inline",
                "[embedded resource] embedded resource", "[binary content unknown]", "[unknown content]")
                + "\n\n<tool_result_media_list>\n");
        assertThat(ZH.split("c", "f", r).content()).startsWith(String.join("\n",
                "t", "[图片内容 unknown]", "[音频内容 audio/wav]", "[资源链接] 资源链接",
                "[资源链接] https://x", "[嵌入资源] file:///x", "inline",
                "[嵌入资源] 嵌入资源", "[二进制内容 unknown]", "[unknown 内容]"));
    }

    @Test
    void image_english() {
        ToolResult r = ToolResult.builder().content("done")
                .item(ContentItem.imageBase64(PNG_1X1, "image/png").withName("out.png")).build();
        SplitResult s = EN.split("call_1", "draw", r);
        assertThat(s.content()).isEqualTo("done\n\n<tool_result_media_list>\n"
                + "  <media msg_id=\"tool_result:call_1:1\" type=\"image\" mime=\"image/png\" name=\"out.png\" />\n"
                + "</tool_result_media_list>");
        assertThat(s.media()).containsExactly(MediaRef.builder().index("tool_result:call_1:1").type("image")
                .mimeType("image/png").name("out.png").build());
        SplitResult.MediaMessage m = s.messages().get(0);
        assertThat(m.visibleText()).isEqualTo("<tool_result_media msg_id=\"tool_result:call_1:1\" />\n"
                + "image / image/png / out.png\n[image]");
        assertThat(m.content()).containsExactly(
                ContentPart.text("<tool_result_media msg_id=\"tool_result:call_1:1\" type=\"image\" "
                        + "mime=\"image/png\" name=\"out.png\" />"),
                ContentPart.imageBase64(PNG_1X1, "image/png"));
        assertThat(m.content().get(1).data()).isSameAs(PNG_1X1);
    }

    @Test
    void emptyText_blockAlone() {
        // a resource whose text is blank reads as that blank text, so nothing precedes the block
        ToolResult r = ToolResult.builder().success(false)
                .item(ContentItem.builder("resource").text(" ").name("n").build()).build();
        SplitResult s = EN.split("c", "f", r);
        assertThat(s.content()).isEqualTo("<tool_result_media_list>\n"
                + "  <media msg_id=\"tool_result:c:1\" type=\"resource\" name=\"n\" />\n"
                + "</tool_result_media_list>");
        assertThat(s.messages().get(0).content()).hasSize(1);
    }

    @Test
    void escaping_attrsEscapedVisibleTextRaw() {
        ContentItem it = ContentItem.builder("resource_link").mimeType("text/<x>").uri("u").name(" it's \"<&>\" ")
                .metadata(Map.of( "context_key", "a'b", "source_url", "https://x/?a=1&b=<2>", "other", "no")).build();
        SplitResult s = EN.split(" c'1 ", "f", ToolResult.builder().content("x").item(it).build());
        String attrs = "msg_id=\"tool_result:c&#x27;1:1\" type=\"resource_link\" mime=\"text/&lt;x&gt;\" "
                + "name=\"it&#x27;s &quot;&lt;&amp;&gt;&quot;\" context_key=\"a&#x27;b\" "
                + "source_url=\"https://x/?a=1&amp;b=&lt;2&gt;\"";
        assertThat(s.content()).isEqualTo("x\n\n<tool_result_media_list>\n  <media " + attrs + " />\n"
                + "</tool_result_media_list>");
        SplitResult.MediaMessage m = s.messages().get(0);
        assertThat(m.messageId()).isEqualTo("tool_result:c'1:1");
        assertThat(m.content()).containsExactly(ContentPart.text("<tool_result_media " + attrs + " />"));
        assertThat(m.visibleText()).isEqualTo("<tool_result_media msg_id=\"tool_result:c&#x27;1:1\" />\n"
                + "resource_link / text/<x> / it's \"<&>\" / context_key=a'b / source_url=https://x/?a=1&b=<2>");
    }

    @Test
    void metadataContainers_ignored() {
        ContentItem it = item("audio", "AAAA", "", "", "").withMetadata(Map.of(
                "context_key", List.of("k"), "source_url", Map.of("u", 1)));
        assertThat(EN.split("c", "f", ToolResult.builder().item(it).build()).messages().get(0).content().get(0).text())
                .isEqualTo("<tool_result_media msg_id=\"tool_result:c:1\" type=\"audio\" />");
    }

    @Test
    void blankCallId_fallsBackToToolName() {
        ToolResult r = ToolResult.builder().item(item("audio", "AAAA", "", "", "")).build();
        assertThat(EN.split(" ", " f ", r).messages().get(0).messageId()).isEqualTo("tool_result:f:1");
        assertThat(EN.split(null, "", r).messages().get(0).messageId()).isEqualTo("tool_result:tool:1");
    }

    @Test
    void imageMime_sniffedFromBytes() {
        byte[] jpeg = {(byte) 0xff, (byte) 0xd8, (byte) 0xff, (byte) 0xe0, 0, 16, 'J', 'F', 'I', 'F'};
        byte[] gif = "GIF89a\u0001\u0000\u0001\u0000".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] webp = "RIFF\u0000\u0000\u0000\u0000WEBPVP8 ".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        ToolResult r = ToolResult.builder()
                .item(item("binary", Base64.getEncoder().encodeToString(jpeg), "image/png", "", ""))
                .item(item("image", Base64.getEncoder().encodeToString(gif), "", "", ""))
                .item(ContentItem.image(webp, "image/webp"))
                .build();
        SplitResult s = EN.split("c", "f", r);
        assertThat(s.messages()).extracting(m -> m.content().get(1).mimeType())
                .containsExactly("image/jpeg", "image/gif", "image/webp");
    }

    @Test
    void notAnImage_headerOnlyNoError() {
        String pdf = Base64.getEncoder().encodeToString("%PDF-1.7 ...".getBytes());
        ToolResult r = ToolResult.builder()
                .item(item("image", pdf, "image/png", "", ""))
                .item(item("image", "!!!not base64!!!", "image/png", "", ""))
                .item(item("image", "====", "image/png", "", ""))
                .item(item("binary", PNG_1X1, "application/octet-stream", "", ""))
                .item(item("audio", PNG_1X1, "audio/wav", "", ""))
                .build();
        SplitResult s = ZH.split("c", "f", r);
        assertThat(s.error()).isNull();
        assertThat(s.messages()).hasSize(5).allSatisfy(m -> {
            assertThat(m.content()).hasSize(1);
            assertThat(m.visibleText()).doesNotContain("[图片]");
        });
    }

    @Test
    void unpaddedAndDataUrl_reencodedCanonical() {
        String unpadded = PNG_1X1.substring(0, 90) + "\n" + PNG_1X1.substring(90);
        ToolResult r = ToolResult.builder()
                .item(item("image", unpadded, "", "", ""))
                .item(item("image", "", "", "data:image/gif;base64," + PNG_1X1, ""))
                .build();
        SplitResult s = EN.split("c", "f", r);
        assertThat(s.content()).startsWith("[image content unknown]\n[image content unknown]\n\n");
        assertThat(s.messages()).extracting(m -> m.content().get(1))
                .containsExactly(ContentPart.imageBase64(PNG_1X1, "image/png"), ContentPart.imageBase64(PNG_1X1, "image/png"));
        assertThat(s.messages().get(0).visibleText()).endsWith("\nimage\n[image]");
    }

    @Test
    void sizeBound_exactLimitPassesOneLessFails() {
        ToolResult r = ToolResult.builder().content("t").item(ContentItem.text("x"))
                .item(ContentItem.imageBase64(PNG_1X1, "image/png")).build();
        assertThat(MediaSplitter.create(DescriptionLocale.EN, 69).split("c", "f", r).error()).isNull();
        SplitResult s = MediaSplitter.create(DescriptionLocale.EN, 68).split("c", "f", r);
        assertThat(s.error().code()).isEqualTo(ErrorCode.MEDIA_TOO_LARGE);
        assertThat(s.error().message()).isEqualTo(
                "Content item 2 (image) is about 69 bytes once decoded, above the media size limit of 68 bytes.");
        assertThat(s.content()).isEqualTo("t");
        assertThat(s.media()).isEmpty();
        assertThat(s.messages()).isEmpty();
        SplitResult zh = MediaSplitter.create(DescriptionLocale.ZH, 68).split("c", "f", r);
        assertThat(zh.error().message()).isEqualTo("第 2 个内容项（image）解码后约 69 字节，超过媒体大小上限 68 字节。");
    }

    @Test
    void sizeBound_tenMebibytesRefusedWithoutDecoding() {
        String huge = "A".repeat(10 * 1024 * 1024);
        ToolResult r = ToolResult.builder()
                .item(ContentItem.imageBase64(PNG_1X1, "image/png"))
                .item(ContentItem.builder("image").uri("data:image/png;base64," + huge).build())
                .build();
        MediaSplitter splitter = MediaSplitter.create(DescriptionLocale.EN, 1024 * 1024);
        splitter.split("c", "f", r); // warm up
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = mx.getCurrentThreadAllocatedBytes();
        SplitResult s = splitter.split("c", "f", r);
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertThat(s.error().code()).isEqualTo(ErrorCode.MEDIA_TOO_LARGE);
        assertThat(s.error().message()).isEqualTo("Content item 2 (image) is about 7864320 bytes once decoded, "
                + "above the media size limit of 1048576 bytes.");
        assertThat(s.content()).isEqualTo("[image content image/png]\n[image content unknown]");
        assertThat(s.messages()).isEmpty();
        assertThat(allocated).isLessThan(64 * 1024);
    }

    @Test
    void sizeBound_notAppliedToPayloadsNeverDecoded() {
        String big = "A".repeat(4096);
        ToolResult r = ToolResult.builder()
                .item(item("audio", big, "audio/wav", "", ""))
                .item(item("binary", big, "application/pdf", "", ""))
                .build();
        SplitResult s = MediaSplitter.create(DescriptionLocale.EN, 100).split("c", "f", r);
        assertThat(s.error()).isNull();
        assertThat(s.messages()).hasSize(2);
    }

    @Test
    void itemCount_bounded() {
        List<ContentItem> items = new ArrayList<>();
        for (int i = 0; i < MediaSplitter.MAX_CONTENT_ITEMS; i++) {
            items.add(ContentItem.text("t" + i));
        }
        assertThat(EN.split("c", "f", ToolResult.builder().items(items).build()).error()).isNull();
        items.add(ContentItem.text("one more"));
        SplitResult s = EN.split("c", "f", ToolResult.builder().content("c").items(items).build());
        assertThat(s.error().code()).isEqualTo(ErrorCode.MEDIA_TOO_LARGE);
        assertThat(s.error().message()).isEqualTo("The tool result has 257 content items, above the limit of 256.");
        assertThat(s.content()).isEqualTo("c");
        assertThat(s.messages()).isEmpty();
    }

    @Test
    void create_rejectsNonPositiveBound() {
        assertThatThrownBy(() -> MediaSplitter.create(DescriptionLocale.EN, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
