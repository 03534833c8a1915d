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

    /**
     * An image part from base64 data, then its MIME type: the order of every media factory here and
     * in {@link dev.toolbus.tool.ContentItem}.
     *
     * @param base64 the image, base64-encoded
     * @param mimeType its MIME type, e.g. {@code image/png}
     */
    public static ContentPart imageBase64(String base64, String mimeType) {
        return new ContentPart("image", null, Objects.requireNonNull(mimeType, "mimeType"),
                Objects.requireNonNull(base64, "base64"));
    }

    /** An image part from raw bytes (base64-encoded here), then its MIME type. */
    public static ContentPart image(byte[] bytes, String mimeType) {
        return imageBase64(java.util.Base64.getEncoder().encodeToString(Objects.requireNonNull(bytes, "bytes")),
                mimeType);
    }

    /**
     * An image part, MIME type first.
     *
     * @deprecated the only media factory with the MIME type first; use
     *     {@link #imageBase64(String, String)} with the arguments swapped: {@code imageBase64(base64, mimeType)}
     */
    @Deprecated
    public static ContentPart image(String mimeType, String base64) {
        return imageBase64(base64, mimeType);
    }
}
