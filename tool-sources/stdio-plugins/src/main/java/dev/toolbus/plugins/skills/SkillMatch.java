package dev.toolbus.plugins.skills;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code auto} mode's test: does the conversation text name the skill? It does when it holds, ignoring
 * case, the skill's name (also with {@code -} and {@code _} read as spaces), the name of the folder
 * its file is in, or one of its triggers. Only the last {@value #TEXT_CHARS} characters of the text
 * are read (the recent conversation), and words shorter than two characters are not matched.
 */
final class SkillMatch {

    static final int TEXT_CHARS = 8000;

    private final String text;

    SkillMatch(String text) {
        String t = text == null ? "" : text;
        this.text = (t.length() > TEXT_CHARS ? t.substring(t.length() - TEXT_CHARS) : t).toLowerCase(Locale.ROOT);
    }

    boolean matches(SkillDocument skill, List<String> moreTriggers) {
        if (text.isEmpty()) {
            return false;
        }
        for (String w : words(skill, moreTriggers)) {
            if (w.length() >= 2 && text.contains(w)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> words(SkillDocument skill, List<String> moreTriggers) {
        List<String> out = new ArrayList<>();
        String name = skill.name().toLowerCase(Locale.ROOT);
        out.add(name);
        out.add(name.replace('-', ' ').replace('_', ' '));
        String rel = skill.relativePath();
        int slash = rel.lastIndexOf('/');
        if (slash > 0) {
            String folder = rel.substring(0, slash);
            out.add(folder.substring(folder.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT));
        }
        skill.triggers().forEach(t -> out.add(t.toLowerCase(Locale.ROOT)));
        moreTriggers.forEach(t -> out.add(t.strip().toLowerCase(Locale.ROOT)));
        return out;
    }
}
