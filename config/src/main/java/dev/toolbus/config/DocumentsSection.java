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

    static Config.Documents read(ConfigLoader.Reader in, Map<String, Object> root) {
        Map<String, Object> m = in.section(root, "documents", "",
                Set.of("enabled", "mode", "paths", "maxDepth", "maxFileBytes", "maxPromptChars", "autoActivate",
                        "triggers"));
        Config.Documents d = Config.Documents.DEFAULTS;
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
        return new Config.Documents(in.bool(m, "enabled", "documents", true),
                in.choice(m, "mode", "documents", Config.Documents.MODES, "auto"), paths,
                (int) lowFallback(in, m, "maxDepth", 0, d.maxDepth(), 64),
                lowFallback(in, m, "maxFileBytes", 1024, 1024, 64L * 1024 * 1024),
                (int) lowFallback(in, m, "maxPromptChars", 1000, 1000, 10_000_000),
                fileAuto, autoNames, triggers(in, m));
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
            case "maxDepth" -> Config.Documents.DEFAULTS.maxDepth();
            case "maxFileBytes" -> Config.Documents.DEFAULTS.maxFileBytes();
            default -> Config.Documents.DEFAULTS.maxPromptChars();
        };
        long v = in.integer(m, key, "documents", def, Long.MIN_VALUE / 2, max);
        if (v < min) {
            in.warn("documents." + key, v + " is below " + min + "; using " + below);
            return below;
        }
        return v;
    }
}
