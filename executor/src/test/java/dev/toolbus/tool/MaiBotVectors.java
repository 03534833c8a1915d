package dev.toolbus.tool;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the MaiBot vector files in {@code src/test/resources/maibot-vectors}. */
public final class MaiBotVectors {

    private static final Pattern BRIEF = Pattern.compile("^(\\S+) brief= '(.*)'$");

    private MaiBotVectors() {
    }

    /** One entry of the {@code get_parameters_schema for each} section. */
    public record SchemaDump(String name, String brief, JsonNode schema, String detailed) {
    }

    /** The lines of a vector file. */
    public static List<String> lines(String file) {
        try (InputStream in = MaiBotVectors.class.getResourceAsStream("/maibot-vectors/" + file)) {
            if (in == null) {
                throw new IllegalStateException("missing vector file " + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The {@code === COMPONENT name} dumps of sdk_vectors.out, by component name. */
    public static Map<String, JsonNode> sdkComponents() {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        List<String> lines = lines("sdk_vectors.out");
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("=== COMPONENT ")) {
                String name = lines.get(i).substring("=== COMPONENT ".length()).strip();
                StringBuilder json = new StringBuilder();
                while (i + 1 < lines.size() && !lines.get(i + 1).startsWith("===")) {
                    json.append(lines.get(++i)).append('\n');
                }
                out.put(name, parse(json.toString()));
            }
        }
        return out;
    }

    /** The {@code get_parameters_schema for each} section of sdk_vectors.out, by name. */
    public static Map<String, SchemaDump> sdkSchemaDumps() {
        Map<String, SchemaDump> out = new LinkedHashMap<>();
        List<String> lines = lines("sdk_vectors.out");
        int i = lines.indexOf("=== get_parameters_schema for each") + 1;
        while (i < lines.size()) {
            Matcher m = BRIEF.matcher(lines.get(i));
            if (!m.matches()) {
                throw new IllegalStateException("unexpected line " + lines.get(i));
            }
            StringBuilder json = new StringBuilder();
            while (!lines.get(++i).startsWith("detailed= ")) {
                json.append(lines.get(i)).append('\n');
            }
            String detailed = lines.get(i).substring("detailed= ".length());
            out.put(m.group(1), new SchemaDump(m.group(1), pythonString(m.group(2)), parse(json.toString()),
                    pythonString(detailed.substring(1, detailed.length() - 1))));
            i++;
        }
        return out;
    }

    /** The {@code ===  name} → OpenAI tool JSON lines of llm_schema_vectors.out ({@code RAISES} lines as text). */
    public static Map<String, String> llmSchemas() {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> lines = lines("llm_schema_vectors.out");
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.contains(" RAISES ")) {
                String[] parts = line.substring(3).strip().split(" RAISES ", 2);
                out.put(parts[0], "RAISES " + parts[1]);
            } else if (line.startsWith("===")) {
                out.put(line.substring(3).strip(), lines.get(++i));
            }
        }
        return out;
    }

    /** Parses JSON text (order kept). */
    public static JsonNode parse(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Undoes the escapes of a single-quoted Python repr body. */
    static String pythonString(String body) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char n = body.charAt(++i);
            switch (n) {
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                case 'x' -> {
                    sb.append((char) Integer.parseInt(body.substring(i + 1, i + 3), 16));
                    i += 2;
                }
                default -> sb.append(n);
            }
        }
        return sb.toString();
    }

    /** Compact JSON with the keys in their order, for comparing trees including field order. */
    public static String compact(JsonNode node) {
        return node == null ? "null" : node.toString();
    }

    static List<String> names(Map<String, ?> map) {
        return new ArrayList<>(map.keySet());
    }
}
