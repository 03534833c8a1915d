package dev.toolbus.config;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Reads the {@code documents} section (ChatAI's fallbacks). */
final class DocumentsSection {

    private DocumentsSection() {
    }

    static DocumentsConfig read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> m = in.section(root, "documents", "",
                Set.of("enabled", "mode", "paths", "maxDepth", "maxFileBytes", "maxPromptChars", "autoActivate",
                        "triggers"));
        DocumentsConfig d = DocumentsConfig.DEFAULTS;
        List<String> paths = d.paths();
        if (m.containsKey("paths")) {
            Object v = in.listValue(m.get("paths"));
            if (v instanceof List) {
                paths = in.strings(m, "paths", "documents", d.paths());
            } else {
                in.warn("documents.paths", (v == null ? "is empty" : "must be a list, got " + ConfigLoader.Reader.describe(v))
                        + "; using the default paths");
            }
        }
        boolean fileAuto = true;
        List<String> autoNames = List.of();
        if (m.containsKey("autoActivate")) {
            Object v = m.get("autoActivate");
            if (v instanceof Boolean || v instanceof String s && (s.strip().equalsIgnoreCase("true")
                    || s.strip().equalsIgnoreCase("false"))) {
                fileAuto = in.bool(m, "autoActivate", "documents", true);
            } else {
                autoNames = in.strings(m, "autoActivate", "documents", List.of());
            }
        }
        return DocumentsConfig.builder()
                .enabled(in.bool(m, "enabled", "documents", true))
                .mode(in.choice(m, "mode", "documents", DocumentsConfig.MODES, "auto"))
                .paths(paths)
                .maxDepth((int) lowFallback(in, m, "maxDepth", 0, d.maxDepth(), DocumentsConfig.MAX_DEPTH))
                .maxFileBytes(lowFallback(in, m, "maxFileBytes", DocumentsConfig.MIN_FILE_BYTES,
                        DocumentsConfig.MIN_FILE_BYTES, DocumentsConfig.MAX_FILE_BYTES))
                .maxPromptChars((int) lowFallback(in, m, "maxPromptChars", DocumentsConfig.MIN_PROMPT_CHARS,
                        DocumentsConfig.MIN_PROMPT_CHARS, DocumentsConfig.MAX_PROMPT_CHARS))
                .fileAutoActivate(fileAuto)
                .autoActivate(autoNames)
                .triggers(triggers(in, m))
                .build();
    }

    /** {@code triggers}: skill name → a list of words (or one comma-separated string). */
    private static Map<String, List<String>> triggers(ConfigLoader.Reader in, Map<String, Object> m) {
        Map<String, Object> t = in.section(m, "triggers", "documents", null);
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : t.entrySet()) {
            Object v = e.getValue();
            List<String> words;
            if (v instanceof String s) {
                words = Arrays.stream(s.split(",")).map(String::strip).filter(w -> !w.isEmpty()).toList();
            } else {
                words = in.strings(t, e.getKey(), "documents.triggers", List.of());
            }
            List<String> kept = words.stream().filter(w -> {
                if (w.strip().length() < 2) {
                    in.warn("documents.triggers." + e.getKey(), "'" + w + "' is shorter than 2 characters; ignored");
                    return false;
                }
                return true;
            }).toList();
            out.put(e.getKey(), kept);
        }
        return out;
    }

    /** ChatAI's documents rules: below {@code min} → {@code below}; not an integer → default. */
    private static long lowFallback(ConfigLoader.Reader in, Map<String, Object> m, String key, long min, long below, long max) {
        long def = switch (key) {
            case "maxDepth" -> DocumentsConfig.DEFAULTS.maxDepth();
            case "maxFileBytes" -> DocumentsConfig.DEFAULTS.maxFileBytes();
            default -> DocumentsConfig.DEFAULTS.maxPromptChars();
        };
        long v = in.integer(m, key, "documents", def, Long.MIN_VALUE / 2, max);
        if (v < min) {
            in.warn("documents." + key, v + " is below " + min + "; using " + below);
            return below;
        }
        return v;
    }
}
