package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import java.util.Objects;

/**
 * The answer to {@code list_skills} ({@code skills}): the catalogue the model may load from, and the documents to
 * put into the prompt now, cut to the configured {@code maxPromptChars}. Immutable; built with {@link #builder()}
 * (or {@link #off} when no skill documents are configured).
 */
@JsonPropertyOrder({"type", "stream_id", "request_id", "mode", "skills", "skills_omitted", "documents", "loaded",
        "missing", "omitted", "truncated"})
public final class SkillsEvent implements OutboundEvent {

    private final String streamId;
    private final String requestId;
    private final String mode;
    private final List<SkillEntry> skills;
    private final int skillsOmitted;
    private final List<SkillText> documents;
    private final List<String> loaded;
    private final List<String> missing;
    private final List<String> omitted;
    private final boolean truncated;
    private final TraceContext trace;

    private SkillsEvent(Builder b) {
        String streamId = b.streamId;
        String requestId = b.requestId;
        String mode = b.mode;
        List<SkillEntry> skills = b.skills;
        int skillsOmitted = b.skillsOmitted;
        List<SkillText> documents = b.documents;
        List<String> loaded = b.loaded;
        List<String> missing = b.missing;
        List<String> omitted = b.omitted;
        boolean truncated = b.truncated;
        TraceContext trace = b.trace;
        Objects.requireNonNull(streamId, "streamId");
        requestId = requestId == null ? "" : requestId;
        mode = mode == null ? "off" : mode;
        skills = skills == null ? List.of() : List.copyOf(skills);
        documents = documents == null ? List.of() : List.copyOf(documents);
        loaded = loaded == null ? List.of() : List.copyOf(loaded);
        missing = missing == null ? List.of() : List.copyOf(missing);
        omitted = omitted == null ? List.of() : List.copyOf(omitted);
        this.streamId = streamId;
        this.requestId = requestId;
        this.mode = mode;
        this.skills = skills;
        this.skillsOmitted = skillsOmitted;
        this.documents = documents;
        this.loaded = loaded;
        this.missing = missing;
        this.omitted = omitted;
        this.truncated = truncated;
        this.trace = trace;
    }

    private SkillsEvent(SkillsEvent e, TraceContext trace) {
        this.streamId = e.streamId;
        this.requestId = e.requestId;
        this.mode = e.mode;
        this.skills = e.skills;
        this.skillsOmitted = e.skillsOmitted;
        this.documents = e.documents;
        this.loaded = e.loaded;
        this.missing = e.missing;
        this.omitted = e.omitted;
        this.truncated = e.truncated;
        this.trace = trace;
    }

    /** An event read from the wire. */
    @JsonCreator
    private static SkillsEvent fromWire(@JsonProperty("stream_id") String streamId,
                                        @JsonProperty("request_id") String requestId,
                                        @JsonProperty("mode") String mode,
                                        @JsonProperty("skills") List<SkillEntry> skills,
                                        @JsonProperty("skills_omitted") int skillsOmitted,
                                        @JsonProperty("documents") List<SkillText> documents,
                                        @JsonProperty("loaded") List<String> loaded,
                                        @JsonProperty("missing") List<String> missing,
                                        @JsonProperty("omitted") List<String> omitted,
                                        @JsonProperty("truncated") boolean truncated,
                                        @JsonUnwrapped TraceContext trace) {
        return builder().streamId(streamId).requestId(requestId).mode(mode).skills(skills)
                .skillsOmitted(skillsOmitted).documents(documents).loaded(loaded).missing(missing).omitted(omitted)
                .truncated(truncated).trace(trace).build();
    }

    /** Starts a builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this event's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.streamId = streamId;
        b.requestId = requestId;
        b.mode = mode;
        b.skills = skills;
        b.skillsOmitted = skillsOmitted;
        b.documents = documents;
        b.loaded = loaded;
        b.missing = missing;
        b.omitted = omitted;
        b.truncated = truncated;
        b.trace = trace;
        return b;
    }

    /** The answer when no skill documents are configured: mode {@code off}, everything empty. */
    public static SkillsEvent off(ListSkillsEvent request) {
        return builder().streamId(request.streamId()).requestId(request.requestId()).mode("off")
                .missing(request.selected()).build();
    }

    /** The conversation. */
    @JsonProperty
    @Override
    public String streamId() {
        return streamId;
    }

    /** The request's id (may be empty, never {@code null}). */
    @JsonProperty
    public String requestId() {
        return requestId;
    }

    /**
     * The documents mode that chose them: {@code auto}, {@code all}, {@code explicit}, or {@code off} when this
     * toolbus has no skill documents configured.
     */
    @JsonProperty
    public String mode() {
        return mode;
    }

    /** The catalogue: every skill's name and description (as many as fit the prompt bound). */
    @JsonProperty
    public List<SkillEntry> skills() {
        return skills;
    }

    /** Catalogue entries left out because the bound was reached. */
    @JsonProperty
    public int skillsOmitted() {
        return skillsOmitted;
    }

    /** The texts to inject now, most important first ({@link SkillText#reason()}). */
    @JsonProperty
    public List<SkillText> documents() {
        return documents;
    }

    /**
     * The names {@code load_skill} loaded on this stream, oldest first (the bot core re-injects their
     * {@code documents} after it compresses its context).
     */
    @JsonProperty
    public List<String> loaded() {
        return loaded;
    }

    /** Names in {@code selected} that no skill has. */
    @JsonProperty
    public List<String> missing() {
        return missing;
    }

    /** Skills that would have been injected but found no room left in the bound. */
    @JsonProperty
    public List<String> omitted() {
        return omitted;
    }

    /** Whether any text was cut or left out. */
    @JsonProperty
    public boolean truncated() {
        return truncated;
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
    public SkillsEvent withTrace(TraceContext trace) {
        return new SkillsEvent(this, trace);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "skills";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SkillsEvent e && streamId.equals(e.streamId) && requestId.equals(e.requestId)
                && mode.equals(e.mode) && skills.equals(e.skills) && skillsOmitted == e.skillsOmitted
                && documents.equals(e.documents) && loaded.equals(e.loaded) && missing.equals(e.missing)
                && omitted.equals(e.omitted) && truncated == e.truncated && Objects.equals(trace, e.trace);
    }

    @Override
    public int hashCode() {
        return Objects.hash(streamId, requestId, mode, skills, skillsOmitted, documents, loaded, missing, omitted,
                truncated, trace);
    }

    @Override
    public String toString() {
        return "SkillsEvent[streamId=" + streamId + ", requestId=" + requestId + ", mode=" + mode + ", skills="
                + skills + ", skillsOmitted=" + skillsOmitted + ", documents=" + documents + ", loaded=" + loaded
                + ", missing=" + missing + ", omitted=" + omitted + ", truncated=" + truncated + ", trace=" + trace
                + "]";
    }

    /**
     * Builder of {@link SkillsEvent}; {@code streamId} is required, every list defaults to empty.
     */
    public static final class Builder {
        private String streamId;
        private String requestId;
        private String mode;
        private List<SkillEntry> skills;
        private int skillsOmitted;
        private List<SkillText> documents;
        private List<String> loaded;
        private List<String> missing;
        private List<String> omitted;
        private boolean truncated;
        private TraceContext trace;

        private Builder() {
        }

        /** The conversation. */
        public Builder streamId(String streamId) {
            this.streamId = streamId;
            return this;
        }

        /** The request's id ({@code null}: empty). */
        public Builder requestId(String requestId) {
            this.requestId = requestId;
            return this;
        }

        /** The documents mode that chose them ({@code null}: {@code off}). */
        public Builder mode(String mode) {
            this.mode = mode;
            return this;
        }

        /** The catalogue ({@code null}: empty). */
        public Builder skills(List<SkillEntry> skills) {
            this.skills = skills;
            return this;
        }

        /** Catalogue entries left out because the bound was reached. */
        public Builder skillsOmitted(int skillsOmitted) {
            this.skillsOmitted = skillsOmitted;
            return this;
        }

        /** The texts to inject now, most important first ({@code null}: empty). */
        public Builder documents(List<SkillText> documents) {
            this.documents = documents;
            return this;
        }

        /** The names {@code load_skill} loaded on this stream, oldest first ({@code null}: empty). */
        public Builder loaded(List<String> loaded) {
            this.loaded = loaded;
            return this;
        }

        /** Names in {@code selected} that no skill has ({@code null}: empty). */
        public Builder missing(List<String> missing) {
            this.missing = missing;
            return this;
        }

        /** Skills that found no room left in the bound ({@code null}: empty). */
        public Builder omitted(List<String> omitted) {
            this.omitted = omitted;
            return this;
        }

        /** Whether any text was cut or left out. */
        public Builder truncated(boolean truncated) {
            this.truncated = truncated;
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
         * @throws NullPointerException when {@code streamId} is missing
         */
        public SkillsEvent build() {
            return new SkillsEvent(this);
        }
    }

    /**
     * One catalogue entry.
     *
     * @param name what {@code load_skill} takes
     * @param description one line on what it is for
     */
    public record SkillEntry(String name, String description) {
        public SkillEntry {
            Objects.requireNonNull(name, "name");
            description = description == null ? "" : description;
        }
    }
}
