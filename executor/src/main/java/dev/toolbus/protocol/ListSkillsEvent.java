package dev.toolbus.protocol;

import java.util.List;
import java.util.Objects;

/**
 * Asks which skill documents a conversation has and which to put into the prompt now
 * ({@code list_skills}); answered with a {@link SkillsEvent}.
 *
 * @param streamId the conversation
 * @param requestId echoed in the answer
 * @param context who and where
 * @param text the conversation text skills are matched against in {@code auto} mode, or {@code null}
 * @param selected skill names the bot core picked (always injected; the only ones besides the
 *     auto-activated ones in {@code explicit} mode)
 */
public record ListSkillsEvent(String streamId, String requestId, CallContext context, String text,
                              List<String> selected) implements InboundEvent {

    /** At most this many names in {@code selected}. */
    public static final int MAX_SELECTED = 64;

    public ListSkillsEvent {
        Objects.requireNonNull(streamId, "streamId");
        requestId = requestId == null ? "" : requestId;
        context = context == null ? CallContext.EMPTY : context;
        text = text == null || text.isBlank() ? null : text;
        selected = selected == null ? List.of() : selected.stream().filter(Objects::nonNull).map(String::strip)
                .filter(s -> !s.isEmpty()).distinct().toList();
    }

    /** A request with neither text nor selection: the catalogue, the auto-activated and loaded skills. */
    public static ListSkillsEvent of(String streamId) {
        return new ListSkillsEvent(streamId, null, null, null, null);
    }
}
