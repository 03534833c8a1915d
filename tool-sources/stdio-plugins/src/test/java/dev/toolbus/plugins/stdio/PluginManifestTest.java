package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginManifestTest {

    @TempDir
    Path dir;

    private Path plugin(String name, String json) throws IOException {
        Path p = Files.createDirectories(dir.resolve(name));
        Files.writeString(p.resolve("plugin.json"), json);
        return p;
    }

    @Test
    void read_appliesDefaultsAndTakesTheIdFromTheFolder() throws IOException {
        PluginManifest m = PluginManifest.read(plugin("weather", "{\"command\":\"python3\",\"args\":[\"main.py\"]}"));
        assertThat(m.id()).isEqualTo("weather");
        assertThat(m.commandLine()).containsExactly("python3", "main.py");
        assertThat(m.activationTimeout()).isEqualTo(PluginManifest.DEFAULT_ACTIVATION_TIMEOUT);
        assertThat(m.callTimeout()).isNull();
        assertThat(m.maxLineBytes()).isEqualTo(1 << 20);
        assertThat(m.optional()).isFalse();
        assertThat(m.concurrent()).isFalse();
        assertThat(m.stopGrace()).isEqualTo(Duration.ofSeconds(2));
        assertThat(m.directory()).isAbsolute();
    }

    @Test
    void read_takesEveryKey() throws IOException {
        PluginManifest m = PluginManifest.read(plugin("x", "{\"id\":\"w\",\"command\":\"./bin/run\",\"args\":[\"-v\"],"
                + "\"env\":{\"A\":\"1\",\"B\":2},\"activationTimeoutMs\":500,\"timeoutMs\":700,\"optional\":true,"
                + "\"channels\":[\"web\"],\"concurrent\":true,\"maxLineBytes\":4096,\"stopGraceMs\":0,"
                + "\"restartBackoffMs\":10,\"restartBackoffMaxMs\":100,\"version\":\"ignored\"}"));
        assertThat(m.id()).isEqualTo("w");
        assertThat(m.commandLine()).containsExactly(dir.resolve("x/bin/run").toAbsolutePath().normalize().toString(), "-v");
        assertThat(m.env()).containsEntry("A", "1").containsEntry("B", "2");
        assertThat(m.activationTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(m.callTimeout()).isEqualTo(Duration.ofMillis(700));
        assertThat(m.optional()).isTrue();
        assertThat(m.channels()).containsExactly("web");
        assertThat(m.concurrent()).isTrue();
        assertThat(m.maxLineBytes()).isEqualTo(4096);
        assertThat(m.stopGrace()).isZero();
        assertThat(m.restartBackoff()).isEqualTo(Duration.ofMillis(10));
        assertThat(m.restartBackoffMax()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void read_rejectsBadValuesNamingTheFileAndKey() throws IOException {
        assertThatThrownBy(() -> PluginManifest.read(plugin("a", "{\"args\":[]}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("plugin.json").hasMessageContaining("command");
        assertThatThrownBy(() -> PluginManifest.read(plugin("b", "{\"command\":\"x\",\"args\":\"-v\"}")))
                .hasMessageContaining("'args'");
        assertThatThrownBy(() -> PluginManifest.read(plugin("c", "{\"command\":\"x\",\"timeoutMs\":\"5s\"}")))
                .hasMessageContaining("'timeoutMs'");
        assertThatThrownBy(() -> PluginManifest.read(plugin("d", "{\"command\":\"x\",\"maxLineBytes\":10}")))
                .hasMessageContaining("maxLineBytes must be at least 256");
        assertThatThrownBy(() -> PluginManifest.read(plugin("e", "{\"command\":\"x\",\"id\":\"no spaces\"}")))
                .hasMessageContaining("plugin id");
        assertThatThrownBy(() -> PluginManifest.read(plugin("f", "{not json")))
                .hasMessageContaining("not valid JSON");
        assertThatThrownBy(() -> PluginManifest.read(plugin("g", "[]")))
                .hasMessageContaining("JSON object");
        assertThatThrownBy(() -> PluginManifest.read(plugin("h", "{\"command\":\"x\",\"activationTimeoutMs\":0}")))
                .hasMessageContaining("activationTimeoutMs must be positive");
    }

    @Test
    void saysOptional_readsTheFlagOfAnOtherwiseBrokenManifest() throws IOException {
        assertThat(PluginManifest.saysOptional(plugin("o", "{\"optional\":true,\"args\":7}"))).isTrue();
        assertThat(PluginManifest.saysOptional(plugin("r", "{\"args\":7}"))).isFalse();
        assertThat(PluginManifest.saysOptional(plugin("n", "{broken"))).isFalse();
    }
}
