package dev.toolbus.plugins.skills;

import java.nio.file.Path;
import java.util.List;
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
 * @param autoActivate the file's {@code autoActivate} flag
 * @param triggers the file's {@code triggers}: words that activate it in {@code auto} mode
 * @param relativePath the file's path below the scanned folder, {@code /}-separated
 */
public record SkillDocument(String name, String description, String text, Path path, boolean autoActivate,
                            List<String> triggers, String relativePath) {

    public SkillDocument {
        Objects.requireNonNull(name, "name");
        description = Objects.requireNonNullElse(description, "");
        text = Objects.requireNonNullElse(text, "");
        Objects.requireNonNull(path, "path");
        triggers = triggers == null ? List.of() : List.copyOf(triggers);
        relativePath = relativePath == null ? String.valueOf(path.getFileName()) : relativePath;
    }

    /** A skill without triggers, its relative path its file name. */
    public SkillDocument(String name, String description, String text, Path path, boolean autoActivate) {
        this(name, description, text, path, autoActivate, List.of(), null);
    }

    /** This document, with its path below the scanned folder. */
    SkillDocument relativeTo(String relative) {
        return new SkillDocument(name, description, text, path, autoActivate, triggers, relative);
    }

    /** The text handed to the model: a {@code # name} heading, then the instructions. */
    public String fullText() {
        return "# " + name + "\n\n" + text;
    }
}
