package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PluginEnvironmentTest {

    private static PluginManifest manifest(String json) throws Exception {
        JsonNode root = Json.mapper().readTree(json);
        return PluginManifest.parse(root, Path.of("/plugins/p"));
    }

    @Test
    void of_keepsTheBaseAndLocale_theNamedVariables_thenEnv_neverTheRest() throws Exception {
        Map<String, String> host = Map.of("PATH", "/usr/bin", "HOME", "/root", "LC_ALL", "C.UTF-8",
                "TOOLBUS_TOKEN", "secret", "REDIS_PASSWORD", "pw", "API_KEY", "k", "SHARED", "from-host");
        PluginManifest m = manifest("{\"command\":\"x\",\"inheritEnv\":[\"API_KEY\",\"MISSING\",\"SHARED\"],"
                + "\"env\":{\"SHARED\":\"from-manifest\",\"OWN\":\"1\"}}");

        Map<String, String> env = PluginEnvironment.of(m, host);

        assertThat(env).containsOnlyKeys("PATH", "HOME", "LC_ALL", "API_KEY", "SHARED", "OWN", "TOOLBUS_PLUGIN_ID");
        assertThat(env.get("SHARED")).isEqualTo("from-manifest");
        assertThat(env.get("TOOLBUS_PLUGIN_ID")).isEqualTo("p");
    }

    @Test
    void manifest_readsTheNewKeysWithDefaults_andRejectsBadOnes() throws Exception {
        PluginManifest d = manifest("{\"command\":\"x\"}");
        assertThat(d.inheritEnv()).isEmpty();
        assertThat(d.cancelGrace()).isEqualTo(PluginManifest.DEFAULT_CANCEL_GRACE);
        assertThat(d.stderrBytesPerSecond()).isEqualTo(65536);
        assertThat(d.stderrLineBytes()).isEqualTo(4096);
        PluginManifest m = manifest("{\"command\":\"x\",\"cancelGraceMs\":0,\"stderrBytesPerSecond\":10,"
                + "\"stderrLineBytes\":80}");
        assertThat(m.cancelGrace().isZero()).isTrue();
        assertThatThrownBy(() -> manifest("{\"command\":\"x\",\"inheritEnv\":[\"A=B\"]}"))
                .hasMessageContaining("inheritEnv");
        assertThatThrownBy(() -> manifest("{\"command\":\"x\",\"inheritEnv\":\"PATH\"}"))
                .hasMessageContaining("'inheritEnv' must be an array");
        assertThatThrownBy(() -> manifest("{\"command\":\"x\",\"stderrLineBytes\":10}"))
                .hasMessageContaining("stderrLineBytes");
        assertThatThrownBy(() -> manifest("{\"command\":\"x\",\"cancelGraceMs\":-1}"))
                .hasMessageContaining("cancelGraceMs");
    }
}
