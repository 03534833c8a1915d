package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The result of one call ({@code tool_result}), published in call order. Immutable; built with {@link #builder()}:
 * <pre>{@code
 * ToolResultEvent ok = ToolResultEvent.builder().streamId("qq:group:123").turnId("msg-42")
 *         .toolCallId("call_1").name("get_weather").content("Sunny, 21 C").attempts(1).build();
 * ToolResultEvent failed = ok.toBuilder().content("too slow").isError(true)
 *         .error(new ErrorInfo(ErrorCode.TIMEOUT, "too slow")).build();
 * }</pre>
 */
@JsonPropertyOrder({"type", "stream_id", "turn_id", "tool_call_id", "name", "content", "is_error", "error", "data",
        "metadata", "media", "attempts", "cached", "elapsed_ms"})
public final class ToolResultEvent implements OutboundEvent {

    private final String streamId;
    private final String turnId;
    private final String toolCallId;
    private final String name;
    private final String content;
    private final boolean isError;
    private final ErrorInfo error;
    private final Object data;
    private final Map<String, Object> metadata;
    private final List<MediaRef> media;
    private final int attempts;
    private final boolean cached;
    private final long elapsedMs;
    private final TraceContext trace;

    /**
     * Takes the builder's values, not the builder, and does little (the media list is copied by its
     * setter): {@link Builder#build()} stays small once compiled, the JIT inlines it where the builder is
     * made, and the builder is never allocated there (see docs/benchmarks.md).
     */
    private ToolResultEvent(String streamId, String turnId, String toolCallId, String name, String content,
                            boolean isError, ErrorInfo error, Object data, Map<String, Object> metadata,
                            List<MediaRef> media, int attempts, boolean cached, long elapsedMs, TraceContext trace) {
        Objects.requireNonNull(streamId, "streamId");
        Objects.requireNonNull(turnId, "turnId");
        Objects.requireNonNull(toolCallId, "toolCallId");
        name = name == null ? "" : name;
        content = content == null ? "" : content;
        metadata = metadata == null ? Map.of() : metadata;
        media = media == null ? List.of() : media;
        if (isError && error == null) {
            throw new IllegalArgumentException("an error result needs an error");
        }
        this.streamId = streamId;
        this.turnId = turnId;
        this.toolCallId = toolCallId;
        this.name = name;
        this.content = content;
        this.isError = isError;
        this.error = error;
        this.data = data;
        this.metadata = metadata;
        this.media = media;
        this.attempts = attempts;
        this.cached = cached;
        this.elapsedMs = elapsedMs;
        this.trace = trace;
    }

    private ToolResultEvent(ToolResultEvent e, TraceContext trace) {
        this.streamId = e.streamId;
        this.turnId = e.turnId;
        this.toolCallId = e.toolCallId;
        this.name = e.name;
        this.content = e.content;
        this.isError = e.isError;
        this.error = e.error;
        this.data = e.data;
        this.metadata = e.metadata;
        this.media = e.media;
        this.attempts = e.attempts;
        this.cached = e.cached;
        this.elapsedMs = e.elapsedMs;
        this.trace = trace;
    }

    /** An event read from the wire. */
    @JsonCreator
    private static ToolResultEvent fromWire(@JsonProperty("stream_id") String streamId,
                                            @JsonProperty("turn_id") String turnId,
                                            @JsonProperty("tool_call_id") String toolCallId,
                                            @JsonProperty("name") String name,
                                            @JsonProperty("content") String content,
                                            @JsonProperty("is_error") boolean isError,
                                            @JsonProperty("error") ErrorInfo error,
                                            @JsonProperty("data") Object data,
                                            @JsonProperty("metadata") Map<String, Object> metadata,
                                            @JsonProperty("media") List<MediaRef> media,
                                            @JsonProperty("attempts") int attempts,
                                            @JsonProperty("cached") boolean cached,
                                            @JsonProperty("elapsed_ms") long elapsedMs,
                                            @JsonUnwrapped TraceContext trace) {
        return builder().streamId(streamId).turnId(turnId).toolCallId(toolCallId).name(name).content(content)
                .isError(isError).error(error).data(data).metadata(metadata).media(media).attempts(attempts)
                .cached(cached).elapsedMs(elapsedMs).trace(trace).build();
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this event's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.streamId = streamId;
        b.turnId = turnId;
        b.toolCallId = toolCallId;
        b.name = name;
        b.content = content;
        b.isError = isError;
        b.error = error;
        b.data = data;
        b.metadata = metadata;
        b.media = media;
        b.attempts = attempts;
        b.cached = cached;
        b.elapsedMs = elapsedMs;
        b.trace = trace;
        return b;
    }

    /** The conversation. */
    @JsonProperty
    @Override
    public String streamId() {
        return streamId;
    }

    /** The turn. */
    @JsonProperty
    public String turnId() {
        return turnId;
    }

    /** The call. */
    @JsonProperty
    public String toolCallId() {
        return toolCallId;
    }

    /** The tool name as called (may be empty, never {@code null}). */
    @JsonProperty
    public String name() {
        return name;
    }

    /** The text the model reads (with the media list block when there is media; may be empty, never {@code null}). */
    @JsonProperty
    public String content() {
        return content;
    }

    /** Whether the call failed. */
    @JsonProperty("is_error")
    public boolean isError() {
        return isError;
    }

    /** Code and message when failed, else {@code null}. */
    @JsonProperty("error") // named: isError() would otherwise claim the implicit name
    public ErrorInfo error() {
        return error;
    }

    /** Structured result, or {@code null}. */
    @JsonProperty
    public Object data() {
        return data;
    }

    /** Tool metadata, or empty. */
    @JsonProperty
    public Map<String, Object> metadata() {
        return metadata;
    }

    /** Media index entries, or empty. */
    @JsonProperty
    public List<MediaRef> media() {
        return media;
    }

    /** How many times the handler ran (0 when it never ran). */
    @JsonProperty
    public int attempts() {
        return attempts;
    }

    /** Whether the result came from the cache. */
    @JsonProperty
    public boolean cached() {
        return cached;
    }

    /** Wall time of the call. */
    @JsonProperty
    public long elapsedMs() {
        return elapsedMs;
    }

    /** The W3C trace context of the span this event belongs to, or {@code null}. */
    @Override
    @JsonProperty
    @JsonUnwrapped
    public TraceContext trace() {
        return trace;
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public ToolResultEvent withTrace(TraceContext trace) {
        return new ToolResultEvent(this, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "tool_result";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ToolResultEvent e && streamId.equals(e.streamId) && turnId.equals(e.turnId)
                && toolCallId.equals(e.toolCallId) && name.equals(e.name) && content.equals(e.content)
                && isError == e.isError && Objects.equals(error, e.error) && Objects.equals(data, e.data)
                && metadata.equals(e.metadata) && media.equals(e.media) && attempts == e.attempts
                && cached == e.cached && elapsedMs == e.elapsedMs && Objects.equals(trace, e.trace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(streamId, turnId, toolCallId, name, content, isError, error, data, metadata, media,
                attempts, cached, elapsedMs, trace);
    }

    @Override
    public String toString() {
        return "ToolResultEvent[streamId=" + streamId + ", turnId=" + turnId + ", toolCallId=" + toolCallId
                + ", name=" + name + ", content=" + content + ", isError=" + isError + ", error=" + error + ", data="
                + data + ", metadata=" + metadata + ", media=" + media + ", attempts=" + attempts + ", cached="
                + cached + ", elapsedMs=" + elapsedMs + ", trace=" + trace + "]";
    }

    /**
     * Builder of {@link ToolResultEvent}; the three ids are required, an error result needs its
     * {@link ErrorInfo}.
     */
    public static final class Builder {
        private String streamId;
        private String turnId;
        private String toolCallId;
        private String name;
        private String content;
        private boolean isError;
        private ErrorInfo error;
        private Object data;
        private Map<String, Object> metadata;
        private List<MediaRef> media;
        private int attempts;
        private boolean cached;
        private long elapsedMs;
        private TraceContext trace;

        private Builder() {
        }

        /** The conversation. */
        public Builder streamId(String streamId) {
            this.streamId = streamId;
            return this;
        }

        /** The turn. */
        public Builder turnId(String turnId) {
            this.turnId = turnId;
            return this;
        }

        /** The call. */
        public Builder toolCallId(String toolCallId) {
            this.toolCallId = toolCallId;
            return this;
        }

        /** The tool name as called ({@code null}: empty). */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** The text the model reads ({@code null}: empty). */
        public Builder content(String content) {
            this.content = content;
            return this;
        }

        /** Whether the call failed (then {@link #error(ErrorInfo)} is required). */
        public Builder isError(boolean isError) {
            this.isError = isError;
            return this;
        }

        /** Code and message when failed, else {@code null}. */
        public Builder error(ErrorInfo error) {
            this.error = error;
            return this;
        }

        /** Structured result, or {@code null}. */
        public Builder data(Object data) {
            this.data = data;
            return this;
        }

        /** Tool metadata ({@code null}: empty). */
        public Builder metadata(Map<String, Object> metadata) {
            this.metadata = metadata;
            return this;
        }

        /** Media index entries ({@code null}: empty); copied. */
        public Builder media(List<MediaRef> media) {
            this.media = media == null ? null : List.copyOf(media);
            return this;
        }

        /** How many times the handler ran (0 when it never ran). */
        public Builder attempts(int attempts) {
            this.attempts = attempts;
            return this;
        }

        /** Whether the result came from the cache. */
        public Builder cached(boolean cached) {
            this.cached = cached;
            return this;
        }

        /** Wall time of the call. */
        public Builder elapsedMs(long elapsedMs) {
            this.elapsedMs = elapsedMs;
            return this;
        }

        /** The W3C trace context of the span this event belongs to ({@code null}: none). */
        public Builder trace(TraceContext trace) {
            this.trace = trace;
            return this;
        }

        /**
         * The event.
         *
         * @throws NullPointerException when an id is missing
         * @throws IllegalArgumentException when {@code isError} is set without an {@code error}
         */
        public ToolResultEvent build() {
            return new ToolResultEvent(streamId, turnId, toolCallId, name, content, isError, error, data, metadata,
                    media, attempts, cached, elapsedMs, trace);
        }
    }
}
