package dev.toolbus.result;

import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.MediaRef;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.text.Texts;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolResult;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;

/**
 * Turns a {@link ToolResult} into the tool-message text and the media follow-ups, as MaiBot's host
 * does (reference vectors V1–V19).
 *
 * <p>The text is the result's content, else its item texts, else its structured data (a string, or
 * Python-style JSON), else its error message; when that is empty, a fixed success or failure line.
 * Items of type image, audio, resource_link, resource and binary that carry any of data, uri, name,
 * description or MIME type are media: each gets the index {@code tool_result:<call id>:<n>}, with
 * {@code n} counted from 1 over all items, and the text gets a {@code <tool_result_media_list>} block
 * after a blank line. Each media item also yields one {@link SplitResult.MediaMessage}: a
 * {@code <tool_result_media …/>} header part and, for an image (or a binary with an {@code image/}
 * MIME type) whose payload decodes to a png, jpeg, gif or webp, the image part. A payload that does
 * not decode to such an image never fails the call: its message is the header alone.
 *
 * <p>A payload that would decode to more than {@link #maxMediaBytes()} bytes is refused from its
 * length, before anything is decoded: the split then carries {@link ErrorCode#MEDIA_TOO_LARGE}, the
 * tool's text without the media block, and no media. So does a result with more than
 * {@link #MAX_CONTENT_ITEMS} items. Instances are immutable and thread-safe.
 *
 * <pre>{@code
 * MediaSplitter splitter = MediaSplitter.create(DescriptionLocale.EN, MediaSplitter.DEFAULT_MAX_MEDIA_BYTES);
 * SplitResult split = splitter.split("call_1", "draw", result);
 * }</pre>
 */
public final class MediaSplitter {

    /** Default bound of one decoded media item: 8 MiB. */
    public static final long DEFAULT_MAX_MEDIA_BYTES = 8L * 1024 * 1024;

    /** The most content items one result may carry. */
    public static final int MAX_CONTENT_ITEMS = 256;

    private static final String LIST_OPEN = "<tool_result_media_list>";
    private static final String LIST_CLOSE = "</tool_result_media_list>";

    private final DescriptionLocale locale;
    private final Texts texts;
    private final long maxMediaBytes;

    private MediaSplitter(DescriptionLocale locale, long maxMediaBytes) {
        this.locale = Objects.requireNonNull(locale, "locale");
        if (maxMediaBytes < 1) {
            throw new IllegalArgumentException("maxMediaBytes must be positive");
        }
        this.texts = Texts.of(locale);
        this.maxMediaBytes = maxMediaBytes;
    }

    /**
     * A splitter for the locale, with a bound on each decoded media item.
     *
     * @param locale {@code ZH} for MaiBot's text byte for byte, {@code EN} for its English mirror
     * @param maxMediaBytes the largest decoded size of one media payload, in bytes
     * @return the splitter
     * @throws IllegalArgumentException when {@code maxMediaBytes} is not positive
     */
    public static MediaSplitter create(DescriptionLocale locale, long maxMediaBytes) {
        return new MediaSplitter(locale, maxMediaBytes);
    }

    /** The locale of the generated text. */
    public DescriptionLocale locale() {
        return locale;
    }

    /** The largest decoded size of one media payload, in bytes. */
    public long maxMediaBytes() {
        return maxMediaBytes;
    }

    /**
     * Splits one result.
     *
     * @param toolCallId the call id (media indices are {@code tool_result:<id>:<n>}); when blank, the
     *     tool name, then {@code tool}
     * @param toolName the tool name (used in the failure fallback text)
     * @param result the result
     * @return the text, media entries and follow-up messages, or a media error
     */
    public SplitResult split(String toolCallId, String toolName, ToolResult result) {
        String text = text(toolName, result);
        if (text != null) {
            return new SplitResult(text, List.of(), List.of(), null);
        }
        return splitItems(toolCallId, toolName, result);
    }

    /**
     * The tool-message text of a result without content items, which has nothing to split: the
     * {@link SplitResult#content()} that {@link #split} gives it, without making the split.
     *
     * @param toolName the tool name (used in the failure fallback text)
     * @param result the result
     * @return the text, or {@code null} when the result has content items ({@link #split} them)
     */
    public String text(String toolName, ToolResult result) {
        Objects.requireNonNull(result, "result");
        if (!result.contentItems().isEmpty()) {
            return null;
        }
        return orFallback(HistoryText.of(result, texts), result, toolName == null ? "" : toolName);
    }

    private SplitResult splitItems(String toolCallId, String toolName, ToolResult result) {
        String name = toolName == null ? "" : toolName;
        String history = HistoryText.of(result, texts);
        List<ContentItem> items = result.contentItems();
        if (items.size() > MAX_CONTENT_ITEMS) {
            return failed(history, texts.tooManyContentItems(items.size(), MAX_CONTENT_ITEMS));
        }
        int[] selected = new int[items.size()];
        Base64Payload[] payloads = new Base64Payload[items.size()];
        int count = 0;
        for (int i = 0; i < items.size(); i++) {
            ContentItem item = items.get(i);
            String type = ItemTypes.normalise(item.type());
            if (!ItemTypes.isMedia(type) || !hasAnyField(item)) {
                continue;
            }
            if (carriesImage(type, item)) {
                Base64Payload payload = Base64Payload.of(item);
                if (payload != null && payload.maxDecodedBytes() > maxMediaBytes) {
                    return failed(history, texts.mediaTooLarge(i + 1, type, payload.maxDecodedBytes(), maxMediaBytes));
                }
                payloads[count] = payload;
            }
            selected[count++] = i;
        }
        if (count == 0) {
            return new SplitResult(orFallback(history, result, name), List.of(), List.of(), null);
        }
        return build(callId(toolCallId, name), history, items, selected, payloads, count);
    }

    private SplitResult build(String callId, String history, List<ContentItem> items, int[] selected,
                              Base64Payload[] payloads, int count) {
        StringBuilder text = new StringBuilder(history.length() + 64 + 96 * count);
        if (!history.isEmpty()) {
            text.append(history).append("\n\n");
        }
        text.append(LIST_OPEN);
        List<MediaRef> refs = new ArrayList<>(count);
        List<SplitResult.MediaMessage> messages = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            ContentItem item = items.get(selected[k]);
            String type = ItemTypes.normalise(item.type());
            String index = "tool_result:" + callId + ":" + (selected[k] + 1);
            MediaAttrs attrs = new MediaAttrs(index, type, item);
            String xml = attrs.xml();
            text.append("\n  <media ").append(xml).append(" />");
            refs.add(MediaRef.builder().index(index).type(type).mimeType(emptyToNull(item.mimeType()))
                    .name(emptyToNull(item.name())).build());
            ContentPart image = payloads[k] == null ? null : imagePart(payloads[k]);
            String visible = "<tool_result_media msg_id=\"" + MediaAttrs.escape(attrs.index()) + "\" />\n"
                    + attrs.describe() + (image == null ? "" : "\n" + texts.imageMarker());
            ContentPart header = ContentPart.text("<tool_result_media " + xml + " />");
            messages.add(new SplitResult.MediaMessage(index,
                    image == null ? List.of(header) : List.of(header, image), visible, itemPart(type, item)));
        }
        text.append('\n').append(LIST_CLOSE);
        return new SplitResult(text.toString(), refs, messages, null);
    }

    /** The tool's media item as an in-process part (empty fields left out). */
    private static ContentPart itemPart(String type, ContentItem item) {
        return ContentPart.builder(type).text(orNull(item.text())).mimeType(orNull(item.mimeType()))
                .data(orNull(item.data())).uri(orNull(item.uri())).name(orNull(item.name()))
                .description(orNull(item.description())).build();
    }

    private static String orNull(String value) {
        return value.isEmpty() ? null : value;
    }

    /** The image part, or {@code null} when the payload is not a decodable png, jpeg, gif or webp. */
    private static ContentPart imagePart(Base64Payload payload) {
        byte[] head = new byte[ImageSniffer.HEAD];
        int length = payload.scan(head);
        if (length <= 0) {
            return null;
        }
        String mime = ImageSniffer.mimeType(head, Math.min(length, head.length));
        if (mime == null) {
            return null;
        }
        String data = payload.isCanonical() ? payload.text() : Base64.getEncoder().encodeToString(payload.decode());
        return ContentPart.imageBase64(data, mime);
    }

    private SplitResult failed(String history, String message) {
        return new SplitResult(history.isEmpty() ? message : history, List.of(), List.of(),
                new ErrorInfo(ErrorCode.MEDIA_TOO_LARGE, message));
    }

    private String orFallback(String history, ToolResult result, String toolName) {
        if (!history.isEmpty()) {
            return history;
        }
        return result.isError() ? texts.toolFailed(toolName) : texts.toolSucceeded();
    }

    private static boolean carriesImage(String type, ContentItem item) {
        return ItemTypes.IMAGE.equals(type)
                || ItemTypes.BINARY.equals(type) && item.mimeType().startsWith("image/");
    }

    private static boolean hasAnyField(ContentItem item) {
        return !PyValues.isBlank(item.data()) || !PyValues.isBlank(item.uri()) || !PyValues.isBlank(item.name())
                || !PyValues.isBlank(item.description()) || !PyValues.isBlank(item.mimeType());
    }

    private static String callId(String toolCallId, String toolName) {
        String id = toolCallId == null ? "" : PyValues.strip(toolCallId);
        if (id.isEmpty()) {
            id = PyValues.strip(toolName);
        }
        return id.isEmpty() ? "tool" : id;
    }

    private static String emptyToNull(String value) {
        String v = PyValues.strip(value);
        return v.isEmpty() ? null : v;
    }
}
