package dev.toolbus.result;

import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.MediaRef;
import java.util.List;

/**
 * A result made ready for the model, as {@link MediaSplitter#split} builds it.
 *
 * <p>When {@link #error()} is set ({@code MEDIA_TOO_LARGE}), {@link #content()} is the tool's text
 * without the media block (the error message when the tool gave no text), and there are no media
 * entries and no messages: the executor reports the call as an error.
 *
 * @param content the tool-message text, with the media list block when there is media
 * @param media the media index entries, in item order
 * @param messages one follow-up message per media entry, same order
 * @param error a media error (an item above the size limit, too many items), or {@code null}
 */
public record SplitResult(String content, List<MediaRef> media, List<MediaMessage> messages, ErrorInfo error) {

    public SplitResult {
        media = List.copyOf(media);
        messages = List.copyOf(messages);
    }

    /**
     * A follow-up user message for one media item.
     *
     * @param messageId the media index
     * @param content the header text part, then the image part for payloads that decode to a png,
     *     jpeg, gif or webp (MIME type sniffed from the bytes, data as canonical padded base64)
     * @param visibleText plain text for histories: the {@code msg_id} header, the item's description
     *     line, and {@code [图片]} / {@code [image]} when the image part is attached
     * @param item the tool's item as a part, for in-process consumers (see {@code UserMessageEvent.item})
     */
    public record MediaMessage(String messageId, List<ContentPart> content, String visibleText, ContentPart item) {

        public MediaMessage {
            content = List.copyOf(content);
        }

        /** A message without the item. */
        public MediaMessage(String messageId, List<ContentPart> content, String visibleText) {
            this(messageId, content, visibleText, null);
        }
    }
}
