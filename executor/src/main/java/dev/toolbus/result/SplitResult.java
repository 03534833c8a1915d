package dev.toolbus.result;

import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.ErrorInfo;
import dev.toolbus.protocol.MediaRef;
import java.util.List;

/**
 * A result made ready for the model.
 *
 * @param content the tool-message text, with the media list block when there is media
 * @param media the media index entries, in item order
 * @param messages one follow-up message per media entry, same order
 * @param error a media error (for example an item above the size limit), or {@code null}
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
     * @param content the header text part, then the image part for decodable images
     * @param visibleText plain text for histories
     */
    public record MediaMessage(String messageId, List<ContentPart> content, String visibleText) {

        public MediaMessage {
            content = List.copyOf(content);
        }
    }
}
