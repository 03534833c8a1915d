package dev.toolbus.tool;

import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One item of a result's {@code content_items}: text, or media that the executor splits into a
 * follow-up user message. Field semantics follow MaiBot's host: {@link #type()} is one of
 * {@code text, image, audio, resource_link, resource, binary} (anything else reads as
 * {@code unknown}); {@link #data()} is base64; a {@code data:} URL in {@link #uri()} is accepted for
 * images. Every string is empty rather than {@code null}. Immutable.
 *
 * <p>Every media factory takes the payload first, then its MIME type, as
 * {@code dev.toolbus.protocol.ContentPart}'s do; other items are built with {@link #builder(String)}:
 *
 * <pre>{@code
 * ToolResult.builder().content("Here is the chart.")
 *         .item(ContentItem.image(pngBytes, "image/png"))
 *         .item(ContentItem.builder("resource").uri("file:///report.csv").text(csv).mimeType("text/csv").build())
 *         .build();
 * }</pre>
 */
public final class ContentItem {

    private final String type;
    private final String text;
    private final String data;
    private final String mimeType;
    private final String uri;
    private final String name;
    private final String description;
    private final Map<String, Object> metadata;

    private ContentItem(Builder b) {
        this.type = b.type == null || b.type.isBlank() ? "unknown" : b.type.strip();
        this.text = Objects.requireNonNullElse(b.text, "");
        this.data = Objects.requireNonNullElse(b.data, "");
        this.mimeType = Objects.requireNonNullElse(b.mimeType, "");
        this.uri = Objects.requireNonNullElse(b.uri, "");
        this.name = Objects.requireNonNullElse(b.name, "");
        this.description = Objects.requireNonNullElse(b.description, "");
        this.metadata = b.metadata == null || b.metadata.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(b.metadata));
    }

    /** Starts an item of this type ({@code null} or blank: {@code unknown}). */
    public static Builder builder(String type) {
        return new Builder(type);
    }

    /** A builder initialised from this item. */
    public Builder toBuilder() {
        return new Builder(type).text(text).data(data).mimeType(mimeType).uri(uri).name(name).description(description)
                .metadata(metadata);
    }

    /** A text item. */
    public static ContentItem text(String text) {
        return builder("text").text(text).build();
    }

    /**
     * An image from base64 data, then its MIME type.
     *
     * @param base64 the image, base64-encoded
     * @param mimeType its MIME type, e.g. {@code image/png}
     */
    public static ContentItem imageBase64(String base64, String mimeType) {
        return builder("image").data(base64).mimeType(mimeType).build();
    }

    /** An image from raw bytes (base64-encoded here), then its MIME type. */
    public static ContentItem image(byte[] bytes, String mimeType) {
        return imageBase64(Base64.getEncoder().encodeToString(bytes), mimeType);
    }

    /** An audio clip from base64 data, then its MIME type (e.g. {@code audio/wav}). */
    public static ContentItem audioBase64(String base64, String mimeType) {
        return builder("audio").data(base64).mimeType(mimeType).build();
    }

    /** An audio clip from raw bytes (base64-encoded here), then its MIME type. */
    public static ContentItem audio(byte[] bytes, String mimeType) {
        return audioBase64(Base64.getEncoder().encodeToString(bytes), mimeType);
    }

    /** A link to a resource the model can refer to. */
    public static ContentItem resourceLink(String uri, String name) {
        return builder("resource_link").uri(uri).name(name).build();
    }

    /** The item type. */
    public String type() {
        return type;
    }

    /** The text of a {@code text} or {@code resource} item, or empty. */
    public String text() {
        return text;
    }

    /** The base64 payload, or empty. */
    public String data() {
        return data;
    }

    /** The MIME type, or empty. */
    public String mimeType() {
        return mimeType;
    }

    /** A URI (or data URL), or empty. */
    public String uri() {
        return uri;
    }

    /** A display name, or empty. */
    public String name() {
        return name;
    }

    /** A description, or empty. */
    public String description() {
        return description;
    }

    /** Extra keys; {@code context_key} and {@code source_url} are rendered. */
    public Map<String, Object> metadata() {
        return metadata;
    }

    /** This item with a display name. */
    public ContentItem withName(String newName) {
        return toBuilder().name(newName).build();
    }

    /** This item with metadata. */
    public ContentItem withMetadata(Map<String, Object> newMetadata) {
        return toBuilder().metadata(newMetadata).build();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ContentItem i && type.equals(i.type) && text.equals(i.text) && data.equals(i.data)
                && mimeType.equals(i.mimeType) && uri.equals(i.uri) && name.equals(i.name)
                && description.equals(i.description) && metadata.equals(i.metadata);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, text, data, mimeType, uri, name, description, metadata);
    }

    @Override
    public String toString() {
        return "ContentItem[type=" + type + ", text=" + text + ", data=" + (data.length() > 64
                ? data.length() + " chars" : data) + ", mimeType=" + mimeType + ", uri=" + uri + ", name=" + name
                + ", description=" + description + ", metadata=" + metadata + "]";
    }

    /** Builder of {@link ContentItem}; every field but the type is optional (empty). */
    public static final class Builder {
        private final String type;
        private String text;
        private String data;
        private String mimeType;
        private String uri;
        private String name;
        private String description;
        private Map<String, Object> metadata;

        private Builder(String type) {
            this.type = type;
        }

        /** The text of a {@code text} or {@code resource} item. */
        public Builder text(String v) {
            this.text = v;
            return this;
        }

        /** The base64 payload. */
        public Builder data(String v) {
            this.data = v;
            return this;
        }

        /** The MIME type. */
        public Builder mimeType(String v) {
            this.mimeType = v;
            return this;
        }

        /** A URI (or a {@code data:} URL for an image). */
        public Builder uri(String v) {
            this.uri = v;
            return this;
        }

        /** A display name. */
        public Builder name(String v) {
            this.name = v;
            return this;
        }

        /** A description. */
        public Builder description(String v) {
            this.description = v;
            return this;
        }

        /** Extra keys ({@code context_key} and {@code source_url} are rendered). */
        public Builder metadata(Map<String, Object> v) {
            this.metadata = v;
            return this;
        }

        /** The item. */
        public ContentItem build() {
            return new ContentItem(this);
        }
    }
}
