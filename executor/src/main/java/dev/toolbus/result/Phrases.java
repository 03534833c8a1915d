package dev.toolbus.result;

import dev.toolbus.tool.DescriptionLocale;
import java.util.Locale;

/**
 * The generated text of results, per locale. {@link #ZH} is MaiBot's text byte for byte; {@link #EN}
 * mirrors it one for one (docs/results-and-media.md lists both).
 */
enum Phrases {
    ZH("图片内容", "音频内容", "资源链接", "嵌入资源", "二进制内容", "内容", "工具执行成功。", "工具 %s 执行失败。",
            "[图片]", "插件工具执行失败",
            "第 %d 个内容项（%s）解码后约 %d 字节，超过媒体大小上限 %d 字节。",
            "工具结果包含 %d 个内容项，超过上限 %d 个。"),
    EN("image content", "audio content", "resource link", "embedded resource", "binary content", "content",
            "Tool executed successfully.", "Tool %s failed.", "[image]", "Plugin tool execution failed",
            "Content item %d (%s) is about %d bytes once decoded, above the media size limit of %d bytes.",
            "The tool result has %d content items, above the limit of %d.");

    final String image;
    final String audio;
    final String resourceLink;
    final String embeddedResource;
    final String binary;
    final String otherSuffix;
    final String success;
    private final String failure;
    final String imageMarker;
    final String foreignFailure;
    private final String tooLarge;
    private final String tooMany;

    Phrases(String image, String audio, String resourceLink, String embeddedResource, String binary,
            String otherSuffix, String success, String failure, String imageMarker, String foreignFailure,
            String tooLarge, String tooMany) {
        this.image = image;
        this.audio = audio;
        this.resourceLink = resourceLink;
        this.embeddedResource = embeddedResource;
        this.binary = binary;
        this.otherSuffix = otherSuffix;
        this.success = success;
        this.failure = failure;
        this.imageMarker = imageMarker;
        this.foreignFailure = foreignFailure;
        this.tooLarge = tooLarge;
        this.tooMany = tooMany;
    }

    static Phrases of(DescriptionLocale locale) {
        return locale == DescriptionLocale.ZH ? ZH : EN;
    }

    /** The text when a failed call left nothing to read. */
    String failure(String toolName) {
        return String.format(Locale.ROOT, failure, toolName);
    }

    String tooLarge(int itemNumber, String type, long bytes, long limit) {
        return String.format(Locale.ROOT, tooLarge, itemNumber, type, bytes, limit);
    }

    String tooMany(int items, int limit) {
        return String.format(Locale.ROOT, tooMany, items, limit);
    }
}
