package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/**
 * One media index entry of a tool result: the follow-up {@code user_message} with {@code message_id == index}
 * carries the item. Immutable; built with {@link #builder()}.
 */
@JsonPropertyOrder({"index", "type", "mime_type", "name"})
public final class MediaRef {

    private final String index;
    private final String type;
    private final String mimeType;
    private final String name;

    private MediaRef(Builder b) {
        String index = b.index;
        String type = b.type;
        String mimeType = b.mimeType;
        String name = b.name;
        this.index = index;
        this.type = type;
        this.mimeType = mimeType;
        this.name = name;
    }

    /** An entry read from the wire. */
    @JsonCreator
    private static MediaRef fromWire(@JsonProperty("index") String index,
                                     @JsonProperty("type") String type,
                                     @JsonProperty("mime_type") String mimeType,
                                     @JsonProperty("name") String name) {
        return builder().index(index).type(type).mimeType(mimeType).name(name).build();
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this event's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.index = index;
        b.type = type;
        b.mimeType = mimeType;
        b.name = name;
        return b;
    }

    /** {@code tool_result:<tool_call_id>:<n>}, n counted from 1 over all content items. */
    @JsonProperty
    public String index() {
        return index;
    }

    /** image, audio, resource_link, resource or binary. */
    @JsonProperty
    public String type() {
        return type;
    }

    /** The MIME type, or {@code null}. */
    @JsonProperty
    public String mimeType() {
        return mimeType;
    }

    /** The item's name, or {@code null}. */
    @JsonProperty
    public String name() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MediaRef e && Objects.equals(index, e.index) && Objects.equals(type, e.type)
                && Objects.equals(mimeType, e.mimeType) && Objects.equals(name, e.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(index, type, mimeType, name);
    }

    @Override
    public String toString() {
        return "MediaRef[index=" + index + ", type=" + type + ", mimeType=" + mimeType + ", name=" + name + "]";
    }

    /**
     * Builder of {@link MediaRef}:
     * {@code MediaRef.builder().index("tool_result:call_1:1").type("image").mimeType("image/png").build()}.
     */
    public static final class Builder {
        private String index;
        private String type;
        private String mimeType;
        private String name;

        private Builder() {
        }

        /** {@code tool_result:<tool_call_id>:<n>}, n counted from 1 over all content items. */
        public Builder index(String index) {
            this.index = index;
            return this;
        }

        /** image, audio, resource_link, resource or binary. */
        public Builder type(String type) {
            this.type = type;
            return this;
        }

        /** The MIME type, or {@code null}. */
        public Builder mimeType(String mimeType) {
            this.mimeType = mimeType;
            return this;
        }

        /** The item's name, or {@code null}. */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** The value. */
        public MediaRef build() {
            return new MediaRef(this);
        }
    }
}
