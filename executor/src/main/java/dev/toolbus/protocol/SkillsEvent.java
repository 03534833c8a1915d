package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * The answer to {@code list_skills} ({@code skills}): the catalogue the model may load from, and the
 * documents to put into the prompt now, cut to the configured {@code maxPromptChars}.
 *
 * @param streamId the conversation
 * @param requestId the request's id
 * @param mode the documents mode that chose them: {@code auto}, {@code all}, {@code explicit}, or
 *     {@code off} when this toolbus has no skill documents configured
 * @param skills the catalogue: every skill's name and description (as many as fit the prompt bound)
 * @param skillsOmitted catalogue entries left out because the bound was reached
 * @param documents the texts to inject now, most important first ({@link SkillText#reason()})
 * @param loaded the names {@code load_skill} loaded on this stream, oldest first (the bot core
 *     re-injects their {@code documents} after it compresses its context)
 * @param missing names in {@code selected} that no skill has
 * @param omitted skills that would have been injected but found no room left in the bound
 * @param truncated whether any text was cut or left out
 * @param trace the W3C trace context of the span this event belongs to, or {@code null}
 */
@JsonPropertyOrder({"type", "stream_id", "request_id", "mode", "skills", "skills_omitted", "documents", "loaded",
        "missing", "omitted", "truncated"})
public record SkillsEvent(String streamId, String requestId, String mode, List<SkillEntry> skills,
                          int skillsOmitted, List<SkillText> documents, List<String> loaded, List<String> missing,
                          List<String> omitted, boolean truncated, @JsonUnwrapped TraceContext trace)
        implements OutboundEvent {

    public SkillsEvent {
        Objects.requireNonNull(streamId, "streamId");
        requestId = requestId == null ? "" : requestId;
        mode = mode == null ? "off" : mode;
        skills = skills == null ? List.of() : List.copyOf(skills);
        documents = documents == null ? List.of() : List.copyOf(documents);
        loaded = loaded == null ? List.of() : List.copyOf(loaded);
        missing = missing == null ? List.of() : List.copyOf(missing);
        omitted = omitted == null ? List.of() : List.copyOf(omitted);
    }

    /** The event without a trace context. */
    public SkillsEvent(String streamId, String requestId, String mode, List<SkillEntry> skills, int skillsOmitted,
                       List<SkillText> documents, List<String> loaded, List<String> missing, List<String> omitted,
                       boolean truncated) {
        this(streamId, requestId, mode, skills, skillsOmitted, documents, loaded, missing, omitted, truncated, null);
    }

    /** This event with {@code trace} as its trace context. */
    @Override
    public SkillsEvent withTrace(TraceContext trace) {
        return new SkillsEvent(streamId, requestId, mode, skills, skillsOmitted, documents, loaded, missing, omitted,
                truncated, trace);
    }

    /** The answer when no skill documents are configured: mode {@code off}, everything empty. */
    public static SkillsEvent off(ListSkillsEvent request) {
        return new SkillsEvent(request.streamId(), request.requestId(), "off", List.of(), 0, List.of(), List.of(),
                request.selected(), List.of(), false);
    }

    @Override
    @JsonProperty("type")
    public String type() {
        return "skills";
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
