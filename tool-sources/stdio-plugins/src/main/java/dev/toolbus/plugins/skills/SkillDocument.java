package dev.toolbus.plugins.skills;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One skill: a name and a one-line description the model sees in the listing, and the full text it
 * gets from {@code load_skill}.
 *
 * @param name the skill's name (front matter or field {@code name}, else taken from the file or folder name)
 * @param description what it is for (field {@code description}, else the first line of text)
 * @param text the instructions: the body of a {@code SKILL.md} after its front matter, or the
 *     {@code content} (or {@code instructions}, {@code prompt}, {@code body}) of a YAML or JSON skill
 * @param path the file it came from
 * @param autoActivate the file's {@code autoActivate} flag (kept for the caller; not acted on here)
 */
public record SkillDocument(String name, String description, String text, Path path, boolean autoActivate) {

    public SkillDocument {
        Objects.requireNonNull(name, "name");
        description = Objects.requireNonNullElse(description, "");
        text = Objects.requireNonNullElse(text, "");
        Objects.requireNonNull(path, "path");
    }
}
