package dev.toolbus.protocol;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Locale;
import java.util.Objects;

/**
 * One skill document to put into the prompt, as a {@link SkillsEvent} carries it.
 *
 * @param name the skill
 * @param reason why it is injected
 * @param text its text ({@code # name} heading, then the instructions), cut when {@code truncated}
 * @param truncated whether the text was cut to fit the prompt bound (a marker at its end says so)
 * @param chars the length of the whole text
 */
@JsonPropertyOrder({"name", "reason", "text", "truncated", "chars"})
public record SkillText(String name, Reason reason, String text, boolean truncated, int chars) {

    public SkillText {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(reason, "reason");
        text = text == null ? "" : text;
    }

    /** Why a document is injected, most important first (the prompt bound is spent in this order). */
    public enum Reason {
        /** Named in the request's {@code selected}. */
        SELECTED,
        /** {@code load_skill} loaded it on this stream. */
        LOADED,
        /** Its file or the config says {@code autoActivate}. */
        AUTO_ACTIVATE,
        /** {@code auto} mode: the request's text names it or one of its triggers. */
        MATCHED,
        /** {@code all} mode. */
        ALL;

        @com.fasterxml.jackson.annotation.JsonValue
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        @com.fasterxml.jackson.annotation.JsonCreator
        public static Reason parse(String s) {
            return valueOf(s.strip().toUpperCase(Locale.ROOT));
        }
    }
}
