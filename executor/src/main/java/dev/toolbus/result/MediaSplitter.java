package dev.toolbus.result;

import dev.toolbus.tool.DescriptionLocale;
import dev.toolbus.tool.ToolResult;
import java.util.List;
import java.util.Objects;

/**
 * Turns a {@link ToolResult} into the tool-message text and the media follow-ups, as MaiBot's host
 * does (reference vectors V1–V19). Placeholder.
 */
public final class MediaSplitter {

    /** Default bound of one decoded media item: 8 MiB. */
    public static final long DEFAULT_MAX_MEDIA_BYTES = 8L * 1024 * 1024;

    private final DescriptionLocale locale;
    private final long maxMediaBytes;

    private MediaSplitter(DescriptionLocale locale, long maxMediaBytes) {
        this.locale = Objects.requireNonNull(locale, "locale");
        if (maxMediaBytes < 1) {
            throw new IllegalArgumentException("maxMediaBytes must be positive");
        }
        this.maxMediaBytes = maxMediaBytes;
    }

    /** A splitter for the locale, with a bound on each decoded media item. */
    public static MediaSplitter create(DescriptionLocale locale, long maxMediaBytes) {
        return new MediaSplitter(locale, maxMediaBytes);
    }

    public DescriptionLocale locale() {
        return locale;
    }

    public long maxMediaBytes() {
        return maxMediaBytes;
    }

    /**
     * Splits one result.
     *
     * @param toolCallId the call id (media indices are {@code tool_result:<id>:<n>})
     * @param toolName the tool name (used in the failure fallback text)
     * @param result the result
     */
    public SplitResult split(String toolCallId, String toolName, ToolResult result) {
        String text = result.content().strip();
        if (text.isEmpty()) {
            text = result.isError() ? (locale == DescriptionLocale.ZH ? "工具 " + toolName + " 执行失败。"
                    : "Tool " + toolName + " failed.")
                    : (locale == DescriptionLocale.ZH ? "工具执行成功。" : "Tool executed successfully.");
        }
        return new SplitResult(text, List.of(), List.of(), null);
    }
}
