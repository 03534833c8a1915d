package dev.toolbus.tool;

import java.util.Map;
import java.util.Objects;

/**
 * One item of a result's {@code content_items}: text, or media that the executor splits into a
 * follow-up user message. Field semantics follow MaiBot's host: {@code type} is one of
 * {@code text, image, audio, resource_link, resource, binary} (anything else reads as
 * {@code unknown}); {@code data} is base64; a {@code data:} URL in {@code uri} is accepted for images.
 *
 * @param type the item type
 * @param text the text of a {@code text} or {@code resource} item, or empty
 * @param data base64 payload, or empty
 * @param mimeType MIME type, or empty
 * @param uri a URI (or data URL), or empty
 * @param name a display name, or empty
 * @param description a description, or empty
 * @param metadata extra keys; {@code context_key} and {@code source_url} are rendered
 */
public record ContentItem(
        String type,
        String text,
        String data,
        String mimeType,
        String uri,
        String name,
        String description,
        Map<String, Object> metadata) {

    public ContentItem {
        type = type == null || type.isBlank() ? "unknown" : type.strip();
        text = Objects.requireNonNullElse(text, "");
        data = Objects.requireNonNullElse(data, "");
        mimeType = Objects.requireNonNullElse(mimeType, "");
        uri = Objects.requireNonNullElse(uri, "");
        name = Objects.requireNonNullElse(name, "");
        description = Objects.requireNonNullElse(description, "");
        metadata = metadata == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(metadata));
    }

    /** A text item. */
    public static ContentItem text(String text) {
        return new ContentItem("text", text, "", "", "", "", "", null);
    }

    /**
     * An image from base64 data. Every media factory of {@code ContentItem} and
     * {@link dev.toolbus.protocol.ContentPart} takes the payload first, then its MIME type.
     *
     * @param base64 the image, base64-encoded
     * @param mimeType its MIME type, e.g. {@code image/png}
     */
    public static ContentItem imageBase64(String base64, String mimeType) {
        return new ContentItem("image", "", base64, mimeType, "", "", "", null);
    }

    /** An image from raw bytes (base64-encoded here), then its MIME type. */
    public static ContentItem image(byte[] bytes, String mimeType) {
        return imageBase64(java.util.Base64.getEncoder().encodeToString(bytes), mimeType);
    }

    /** An audio clip from base64 data, then its MIME type (e.g. {@code audio/wav}). */
    public static ContentItem audioBase64(String base64, String mimeType) {
        return new ContentItem("audio", "", base64, mimeType, "", "", "", null);
    }

    /** An audio clip from raw bytes (base64-encoded here), then its MIME type. */
    public static ContentItem audio(byte[] bytes, String mimeType) {
        return audioBase64(java.util.Base64.getEncoder().encodeToString(bytes), mimeType);
    }

    /** A link to a resource the model can refer to. */
    public static ContentItem resourceLink(String uri, String name) {
        return new ContentItem("resource_link", "", "", "", uri, name, "", null);
    }

    /** This item with a display name. */
    public ContentItem withName(String newName) {
        return new ContentItem(type, text, data, mimeType, uri, newName, description, metadata);
    }

    /** This item with metadata. */
    public ContentItem withMetadata(Map<String, Object> newMetadata) {
        return new ContentItem(type, text, data, mimeType, uri, name, description, newMetadata);
    }
}
