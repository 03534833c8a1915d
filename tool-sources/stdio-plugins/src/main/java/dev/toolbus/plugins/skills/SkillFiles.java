package dev.toolbus.plugins.skills;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.toolbus.protocol.Json;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Parses the three skill file formats. */
final class SkillFiles {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final String[] TEXT_KEYS = {"content", "instructions", "prompt", "body"};
    /** At most this many triggers of one skill are kept. */
    static final int MAX_TRIGGERS = 64;

    private SkillFiles() {
    }

    /** Whether the file name is one of the skill formats. */
    static boolean isSkillFile(Path file) {
        String n = String.valueOf(file.getFileName()).toLowerCase(Locale.ROOT);
        return n.equals("skill.md") || n.endsWith(".skill.yaml") || n.endsWith(".skill.yml") || n.endsWith(".skill.json");
    }

    /**
     * The file's text, or an {@link IOException} saying why it is not a text file: it holds a NUL byte
     * (binary), or it is not valid UTF-8.
     */
    static String text(byte[] bytes) throws IOException {
        for (byte b : bytes) {
            if (b == 0) {
                throw new IOException("it is a binary file (it holds NUL bytes), not UTF-8 text");
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IOException("it is not valid UTF-8 text (a binary file, or another encoding)");
        }
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

    private static SkillDocument document(JsonNode meta, String fallbackName, String text, Path file)
            throws IOException {
        String name = meta != null && meta.path("name").isValueNode() && !meta.path("name").asText().isBlank()
                ? meta.path("name").asText().strip() : fallbackName;
        String description = meta != null && meta.path("description").isValueNode()
                ? meta.path("description").asText().strip() : "";
        if (description.isEmpty()) {
            description = firstLine(text);
        }
        boolean auto = meta != null && meta.path("autoActivate").asBoolean(false);
        return new SkillDocument(name, oneLine(description), text, file, auto, triggers(meta), null);
    }

    /** {@code triggers}: a list of strings, or one comma-separated string. */
    private static List<String> triggers(JsonNode meta) throws IOException {
        JsonNode t = meta == null ? null : meta.get("triggers");
        if (t == null || t.isNull()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        if (t.isTextual()) {
            for (String s : t.textValue().split(",")) {
                out.add(s);
            }
        } else if (t.isArray()) {
            for (JsonNode n : t) {
                if (!n.isValueNode()) {
                    throw new IOException("triggers must be a list of words, got a nested " + n.getNodeType());
                }
                out.add(n.asText());
            }
        } else {
            throw new IOException("triggers must be a list of words or a comma-separated string");
        }
        return out.stream().map(String::strip).filter(s -> !s.isEmpty()).distinct().limit(MAX_TRIGGERS).toList();
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
