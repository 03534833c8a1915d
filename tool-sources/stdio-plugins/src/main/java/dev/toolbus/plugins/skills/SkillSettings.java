package dev.toolbus.plugins.skills;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Which skill documents a {@code list_skills} answer injects (the {@code documents} section).
 *
 * @param mode {@code auto}: the auto-activated and selected ones plus those the text names;
 *     {@code all}: every skill when none is selected; {@code explicit}: only the selected and
 *     auto-activated ones
 * @param fileAutoActivate whether a file's own {@code autoActivate: true} counts
 * @param autoActivate skills the config auto-activates, by name
 * @param triggers more words per skill name that activate it in {@code auto} mode (added to the
 *     file's own {@code triggers})
 */
public record SkillSettings(Mode mode, boolean fileAutoActivate, List<String> autoActivate,
                            Map<String, List<String>> triggers) {

    /** {@code auto}, files' {@code autoActivate} honoured, nothing more configured. */
    public static final SkillSettings DEFAULTS = new SkillSettings(Mode.AUTO, true, List.of(), Map.of());

    public SkillSettings {
        Objects.requireNonNull(mode, "mode");
        autoActivate = List.copyOf(autoActivate);
        Map<String, List<String>> t = new LinkedHashMap<>();
        triggers.forEach((k, v) -> t.put(k, List.copyOf(v)));
        triggers = java.util.Collections.unmodifiableMap(t);
    }

    /** The documents modes. */
    public enum Mode {
        AUTO, ALL, EXPLICIT;

        /** Parses {@code auto | all | explicit}. */
        public static Mode parse(String s) {
            return valueOf(s.strip().toUpperCase(Locale.ROOT));
        }

        /** The wire and config name. */
        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
