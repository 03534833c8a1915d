package dev.toolbus.plugins.skills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.toolbus.protocol.Json;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/** Parses the three skill file formats. */
final class SkillFiles {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final String[] TEXT_KEYS = {"content", "instructions", "prompt", "body"};

    private SkillFiles() {
    }

    /** Whether the file name is one of the skill formats. */
    static boolean isSkillFile(Path file) {
        String n = String.valueOf(file.getFileName()).toLowerCase(Locale.ROOT);
        return n.equals("skill.md") || n.endsWith(".skill.yaml") || n.endsWith(".skill.yml") || n.endsWith(".skill.json");
    }

    /**
     * Parses one skill file.
     *
     * @throws IOException when the structured part is not valid YAML or JSON, or not a mapping
     */
    static SkillDocument parse(Path file, String content) throws IOException {
        String n = String.valueOf(file.getFileName()).toLowerCase(Locale.ROOT);
        if (n.equals("skill.md")) {
            return markdown(file, content);
        }
        boolean json = n.endsWith(".skill.json");
        JsonNode root = json ? Json.mapper().readTree(content) : YAML.readTree(content);
        if (root == null || !root.isObject()) {
            throw new IOException("a skill file must hold a mapping");
        }
        String suffix = json ? ".skill.json" : n.endsWith(".skill.yml") ? ".skill.yml" : ".skill.yaml";
        String fileName = String.valueOf(file.getFileName());
        String fallbackName = fileName.substring(0, fileName.length() - suffix.length());
        String text = "";
        for (String key : TEXT_KEYS) {
            if (root.path(key).isTextual()) {
                text = root.path(key).textValue();
                break;
            }
        }
        return document(root, fallbackName, text.strip(), file);
    }

    private static SkillDocument markdown(Path file, String content) throws IOException {
        String s = content.startsWith("\uFEFF") ? content.substring(1) : content;
        JsonNode meta = null;
        String body = s;
        String[] lines = s.split("\r?\n", -1);
        if (lines.length > 0 && lines[0].strip().equals("---")) {
            int end = -1;
            for (int i = 1; i < lines.length; i++) {
                String l = lines[i].strip();
                if (l.equals("---") || l.equals("...")) {
                    end = i;
                    break;
                }
            }
            if (end > 0) {
                String yaml = String.join("\n", java.util.Arrays.copyOfRange(lines, 1, end));
                meta = yaml.isBlank() ? null : YAML.readTree(yaml);
                if (meta != null && !meta.isObject()) {
                    throw new IOException("the front matter must be a mapping");
                }
                body = String.join("\n", java.util.Arrays.copyOfRange(lines, end + 1, lines.length));
            }
        }
        Path parent = file.toAbsolutePath().getParent();
        String fallbackName = parent == null || parent.getFileName() == null ? "skill" : parent.getFileName().toString();
        return document(meta, fallbackName, body.strip(), file);
    }

    private static SkillDocument document(JsonNode meta, String fallbackName, String text, Path file) {
        String name = meta != null && meta.path("name").isValueNode() && !meta.path("name").asText().isBlank()
                ? meta.path("name").asText().strip() : fallbackName;
        String description = meta != null && meta.path("description").isValueNode()
                ? meta.path("description").asText().strip() : "";
        if (description.isEmpty()) {
            description = firstLine(text);
        }
        boolean auto = meta != null && meta.path("autoActivate").asBoolean(false);
        return new SkillDocument(name, oneLine(description), text, file, auto);
    }

    private static String firstLine(String text) {
        for (String l : text.split("\r?\n")) {
            String t = l.strip();
            while (t.startsWith("#")) {
                t = t.substring(1).strip();
            }
            if (!t.isEmpty()) {
                return t;
            }
        }
        return "";
    }

    private static String oneLine(String s) {
        return s.replaceAll("\\s+", " ").strip();
    }
}
