package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginKindsTest {

    @TempDir
    Path root;

    private Path folder(String name, String... fileAndContent) throws IOException {
        Path dir = Files.createDirectories(root.resolve(name));
        for (int i = 0; i < fileAndContent.length; i += 2) {
            Files.writeString(dir.resolve(fileAndContent[i]), fileAndContent[i + 1]);
        }
        return dir;
    }

    @Test
    void detect_followsTheIssuesOrder() throws IOException {
        String py = "def create_plugin():\n    return None\n";
        assertThat(PluginKinds.detect(folder("a", "plugin.json", "{\"command\":\"x\"}", "plugin.py", py,
                "openclaw.plugin.json", "{}"))).contains(PluginKind.STDIO);
        assertThat(PluginKinds.detect(folder("b", "plugin.json", "{\"runtime\":\"maibot\"}", "index.js", "")))
                .contains(PluginKind.MAIBOT);
        assertThat(PluginKinds.detect(folder("c", "openclaw.plugin.json", "{}", "plugin.py", py)))
                .contains(PluginKind.OPENCLAW);
        assertThat(PluginKinds.detect(folder("d", "package.json", "{\"openclaw\":{}}", "plugin.py", py)))
                .contains(PluginKind.OPENCLAW);
        assertThat(PluginKinds.detect(folder("e", "package.json", "{\"name\":\"x\"}", "plugin.py", py, "t.js", "")))
                .contains(PluginKind.MAIBOT);
        assertThat(PluginKinds.detect(folder("f", "plugin.py", "# no factory here\n", "tool.mjs", "")))
                .contains(PluginKind.CHATAI);
        assertThat(PluginKinds.detect(folder("g", "README.md", "nothing"))).isEmpty();
    }

    @Test
    void detect_unknownRuntimeIsAClearError() throws IOException {
        Path dir = folder("h", "plugin.json", "{\"runtime\":\"lua\"}");
        assertThatThrownBy(() -> PluginKinds.detect(dir)).hasMessageContaining("unknown runtime 'lua'");
    }

    @Test
    void manifest_runsTheHostWithTheFolderConcurrently() throws IOException {
        Path dir = folder("mai", "plugin.py", "def create_plugin():\n    pass\n");
        PluginManifest m = PluginKinds.manifest(dir).orElseThrow();
        assertThat(m.id()).isEqualTo("mai");
        assertThat(m.command()).isEqualTo("python3");
        assertThat(m.args()).hasSize(3).last().isEqualTo(dir.toAbsolutePath().normalize().toString());
        assertThat(Path.of(m.args().get(1))).endsWith(Path.of("tool-sources/hosts/maibot/host.py")).exists();
        assertThat(m.concurrent()).isTrue();
        assertThat(m.optional()).isTrue();
    }

    @Test
    void manifest_idsComeFromTheFrameworksManifest() throws IOException {
        assertThat(PluginKinds.manifest(folder("x1", "openclaw.plugin.json", "{\"id\":\"voice-call\"}")).orElseThrow().id())
                .isEqualTo("voice-call");
        assertThat(PluginKinds.manifest(folder("x2", "package.json", "{\"name\":\"@acme/claw tools\",\"openclaw\":{}}"))
                .orElseThrow().id()).isEqualTo("acme-claw-tools");
        String py = "def create_plugin():\n    return None\n";
        assertThat(PluginKinds.manifest(folder("x4", "plugin.py", py, "_manifest.json",
                "{\"id\":\"maibot.search\",\"name\":\"Search\"}")).orElseThrow().id()).isEqualTo("maibot.search");
        assertThat(PluginKinds.manifest(folder("x5", "plugin.py", py, "_manifest.json", "{\"name\":\"weather tools\"}"))
                .orElseThrow().id()).isEqualTo("weather-tools");
        assertThat(PluginKinds.manifest(folder("x6", "plugin.py", py)).orElseThrow().id()).isEqualTo("x6");
        Path chat = folder("x3", "a.js", "export default {}");
        PluginManifest m = PluginKinds.manifest(chat).orElseThrow();
        assertThat(m.id()).isEqualTo("x3");
        assertThat(m.args()).contains("--experimental-detect-module");
    }

    @Test
    void manifest_runtimeKeepsThePluginJsonKeys() throws IOException {
        Path dir = folder("rt", "plugin.json",
                "{\"id\":\"tools\",\"runtime\":\"chatai\",\"timeoutMs\":1234,\"optional\":true,\"env\":{\"A\":\"1\"},"
                        + "\"config\":{\"region\":\"eu\"}}");
        Optional<PluginManifest> m = PluginKinds.manifest(dir);
        assertThat(m).get().satisfies(p -> {
            assertThat(p.id()).isEqualTo("tools");
            assertThat(p.command()).isEqualTo("node");
            assertThat(p.callTimeout()).isEqualTo(Duration.ofMillis(1234));
            assertThat(p.optional()).isTrue();
            assertThat(p.env()).containsEntry("A", "1").containsEntry("TOOLBUS_PLUGIN_CONFIG", "{\"region\":\"eu\"}");
        });
    }
}
