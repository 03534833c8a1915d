package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/**
 * One part of a {@code user_message}: {@code {"type":"text","text":…}} or
 * {@code {"type":"image","mime_type":…,"data":<base64>}}.
 *
 * @param type text or image
 * @param text the text of a text part, else {@code null}
 * @param mimeType the image's MIME type, else {@code null}
 * @param data the image as base64, else {@code null}
 */
@JsonPropertyOrder({"type", "text", "mime_type", "data"})
public record ContentPart(String type, String text, String mimeType, String data) {

    public ContentPart {
        Objects.requireNonNull(type, "type");
    }

    /** A text part. */
    public static ContentPart text(String text) {
        return new ContentPart("text", Objects.requireNonNull(text, "text"), null, null);
    }

    /** An image part. */
    public static ContentPart image(String mimeType, String base64) {
        return new ContentPart("image", null, Objects.requireNonNull(mimeType, "mimeType"),
                Objects.requireNonNull(base64, "base64"));
    }
}
