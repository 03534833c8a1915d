package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Base64;
import java.util.Objects;

/**
 * One part of a message's {@code content}: {@code {"type":"text","text":…}} or
 * {@code {"type":"image","mime_type":…,"data":<base64>}} on the wire. In process, a part also
 * describes the media item a {@code user_message} stands for ({@link UserMessageEvent#item()}): then it
 * may be of any item type ({@code audio}, {@code resource}, {@code resource_link}, {@code binary}) and
 * carry a {@link #uri()}, {@link #name()} and {@link #description()}, which are never written on the
 * wire.
 *
 * <p>Immutable. Every media factory takes the payload first, then its MIME type, as
 * {@code dev.toolbus.tool.ContentItem}'s do:
 *
 * <pre>{@code
 * List<ContentPart> parts = List.of(ContentPart.text("Here it is:"), ContentPart.imageBase64(base64Png, "image/png"));
 * }</pre>
 */
@JsonPropertyOrder({"type", "text", "mime_type", "data"})
public final class ContentPart {

    private final String type;
    private final String text;
    private final String mimeType;
    private final String data;
    private final String uri;
    private final String name;
    private final String description;

    private ContentPart(Builder b) {
        this.type = Objects.requireNonNull(b.type, "type");
        this.text = b.text;
        this.mimeType = b.mimeType;
        this.data = b.data;
        this.uri = b.uri;
        this.name = b.name;
        this.description = b.description;
    }

    /** A part read from the wire. */
    @JsonCreator
    static ContentPart fromWire(@JsonProperty("type") String type, @JsonProperty("text") String text,
                                @JsonProperty("mime_type") String mimeType, @JsonProperty("data") String data) {
        return builder(type).text(text).mimeType(mimeType).data(data).build();
    }

    /** A text part. */
    public static ContentPart text(String text) {
        return builder("text").text(Objects.requireNonNull(text, "text")).build();
    }

    /**
     * An image part from base64 data, then its MIME type.
     *
     * @param base64 the image, base64-encoded
     * @param mimeType its MIME type, e.g. {@code image/png}
     */
    public static ContentPart imageBase64(String base64, String mimeType) {
        return builder("image").mimeType(Objects.requireNonNull(mimeType, "mimeType"))
                .data(Objects.requireNonNull(base64, "base64")).build();
    }

    /** An image part from raw bytes (base64-encoded here), then its MIME type. */
    public static ContentPart image(byte[] bytes, String mimeType) {
        return imageBase64(Base64.getEncoder().encodeToString(Objects.requireNonNull(bytes, "bytes")), mimeType);
    }

    /** Starts a part of this type ({@code text}, {@code image}, or in process any media item type). */
    public static Builder builder(String type) {
        return new Builder(Objects.requireNonNull(type, "type"));
    }

    /** {@code text} or {@code image} on the wire; in process also {@code audio}, {@code resource}, … */
    @JsonProperty("type")
    public String type() {
        return type;
    }

    /** The text of a text part (or of a text resource item), else {@code null}. */
    @JsonProperty("text")
    public String text() {
        return text;
    }

    /** The media's MIME type, else {@code null}. */
    @JsonProperty("mime_type")
    public String mimeType() {
        return mimeType;
    }

    /** The media as base64, else {@code null}. */
    @JsonProperty("data")
    public String data() {
        return data;
    }

    /** In process only: the item's URI (a resource link's target, a resource's URI), else {@code null}. */
    @JsonIgnore
    public String uri() {
        return uri;
    }

    /** In process only: the item's display name, else {@code null}. */
    @JsonIgnore
    public String name() {
        return name;
    }

    /** In process only: the item's description, else {@code null}. */
    @JsonIgnore
    public String description() {
        return description;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ContentPart p && type.equals(p.type) && Objects.equals(text, p.text)
                && Objects.equals(mimeType, p.mimeType) && Objects.equals(data, p.data) && Objects.equals(uri, p.uri)
                && Objects.equals(name, p.name) && Objects.equals(description, p.description);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, text, mimeType, data, uri, name, description);
    }

    @Override
    public String toString() {
        return "ContentPart[type=" + type + (text == null ? "" : ", text=" + text)
                + (mimeType == null ? "" : ", mimeType=" + mimeType)
                + (data == null ? "" : ", data=" + data.length() + " chars")
                + (uri == null ? "" : ", uri=" + uri) + (name == null ? "" : ", name=" + name) + "]";
    }

    /** Builder of {@link ContentPart}; every field but the type is optional ({@code null}). */
    public static final class Builder {
        private final String type;
        private String text;
        private String mimeType;
        private String data;
        private String uri;
        private String name;
        private String description;

        private Builder(String type) {
            this.type = type;
        }

        /** The text. */
        public Builder text(String v) {
            this.text = v;
            return this;
        }

        /** The MIME type. */
        public Builder mimeType(String v) {
            this.mimeType = v;
            return this;
        }

        /** The base64 payload. */
        public Builder data(String v) {
            this.data = v;
            return this;
        }

        /** In process only: a URI. */
        public Builder uri(String v) {
            this.uri = v;
            return this;
        }

        /** In process only: a display name. */
        public Builder name(String v) {
            this.name = v;
            return this;
        }

        /** In process only: a description. */
        public Builder description(String v) {
            this.description = v;
            return this;
        }

        /** The part. */
        public ContentPart build() {
            return new ContentPart(this);
        }
    }
}
