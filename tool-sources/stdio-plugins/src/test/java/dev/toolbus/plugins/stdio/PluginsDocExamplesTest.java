package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolDefinition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The framework examples printed in docs/plugins.md §8 are the files the tests run: each complete
 * example on the page is its file (less the file's leading comment lines), and the MaiBot declaration
 * the page shows is the one the host sends.
 */
class PluginsDocExamplesTest extends PluginFixture {

    private static final Path DOC = Path.of("../../docs/plugins.md");
    private static final Path FRAMEWORKS = Path.of("../../docs/examples/frameworks");
    private static final Pattern FENCE = Pattern.compile("```[a-z]*\\n(.*?)```", Pattern.DOTALL);

    private static List<String> blocks() throws IOException {
        List<String> out = new ArrayList<>();
        Matcher m = FENCE.matcher(Files.readString(DOC));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"maibot-greet/plugin.py", "openclaw-workflow/index.mjs", "chatai-tools/whoami.js"})
    void theCompleteExampleOnThePage_isTheFileTheTestsRun(String file) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(FRAMEWORKS.resolve(file)));
        while (!lines.isEmpty() && (lines.get(0).startsWith("#") || lines.get(0).startsWith("//"))) {
            lines.remove(0);
        }
        assertThat(blocks()).contains(String.join("\n", lines) + "\n");
    }

    @Test
    void theMaiBotDeclarationOnThePage_isWhatTheHostSends() throws IOException {
        String shown = blocks().stream().filter(b -> b.startsWith("{\"name\": \"search_web\"")).findFirst().orElseThrow();
        copyExample("maibot-search");
        ToolDefinition def = load(root).tools().stream().filter(s -> s.name().equals("search_web")).findFirst()
                .orElseThrow().definition();
        ObjectNode sent = Json.mapper().createObjectNode().put("name", def.name())
                .put("description", def.description(DescriptionLocale.ZH));
        sent.set("inputSchema", def.inputSchema(DescriptionLocale.ZH));
        JsonNode page = Json.mapper().readTree(shown);
        assertThat(sent).isEqualTo(page);
    }

    private void copyExample(String name) throws IOException {
        Path to = Files.createDirectories(root.resolve(name));
        try (var s = Files.list(FRAMEWORKS.resolve(name))) {
            for (Path p : s.toList()) {
                Files.copy(p, to.resolve(p.getFileName()));
            }
        }
    }
}
