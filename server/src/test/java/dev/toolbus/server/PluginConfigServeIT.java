package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * toolbus.yaml's {@code plugins.<id>.config} under a real {@code serve}: a MaiBot plugin sees it as
 * {@code self.config}, and an edit of the file reaches the running plugin through
 * {@code on_config_update("self", config, version)} without a restart.
 */
class PluginConfigServeIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private static final String PLUGIN = """
            import json
            from maibot_sdk import MaiBotPlugin, Tool

            class Greeter(MaiBotPlugin):
                updates = []

                async def on_config_update(self, scope, config_data, version):
                    Greeter.updates.append([scope, config_data.get("greeting", {}).get("text"), version])

                @Tool("greeting", description="greets as configured")
                async def greeting(self, **kwargs):
                    return json.dumps({"text": self.get_config("greeting.text", "none"), "updates": Greeter.updates})

            def create_plugin():
                return Greeter()
            """;

    private static String yaml(String text) {
        return "plugins:\n  greeter:\n    config:\n      greeting: {text: " + text + "}\n";
    }

    private static JsonNode result(ToolbusProcess serve, String turn) {
        await().atMost(WAIT).until(() -> serve.events().stream()
                .anyMatch(e -> e.path("type").asText().equals("tool_result") && e.path("turn_id").asText().equals(turn)));
        JsonNode r = serve.events().stream()
                .filter(e -> e.path("type").asText().equals("tool_result") && e.path("turn_id").asText().equals(turn))
                .findFirst().orElseThrow();
        assertThat(r.path("is_error").asBoolean()).as(r.toString()).isFalse();
        try {
            return RunningServer.JSON.readTree(r.path("content").asText());
        } catch (java.io.IOException e) {
            throw new AssertionError(r.toString(), e);
        }
    }

    private static String turn(String id) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"s:" + id + "\",\"turn_id\":\"" + id + "\",\"calls\":["
                + "{\"tool_call_id\":\"c-" + id + "\",\"name\":\"greeting\",\"arguments\":{}}]}";
    }

    @Test
    void theConfigReachesTheMaiBotPlugin_andAnEditReachesItWithoutARestart(@TempDir Path dir) throws Exception {
        Path plugin = Files.createDirectories(dir.resolve("plugins/greeter"));
        Files.writeString(plugin.resolve("plugin.py"), PLUGIN);
        Path config = Files.writeString(dir.resolve("toolbus.yaml"), yaml("hello"));
        try (ToolbusProcess serve = ToolbusProcess.start("plugin-config", "serve", "--bus=stdio", "--config",
                config.toString(), "--plugins", dir.resolve("plugins").toString())) {
            serve.send(turn("t1"));
            JsonNode first = result(serve, "t1");
            assertThat(first.path("text").asText()).isEqualTo("hello");
            assertThat(first.path("updates")).hasSize(1);
            assertThat(first.path("updates").get(0).get(0).asText()).isEqualTo("self");
            String version = first.path("updates").get(0).get(2).asText();
            assertThat(version).hasSize(12);

            Files.writeString(config, yaml("bonjour"));
            // the line that names a version other than the first: only the edit's configuration, not any
            // re-send of the first one, lets the next call go
            await().atMost(WAIT).until(() -> serve.stderr().lines().anyMatch(l ->
                    l.contains("plugin greeter: sending its new configuration (version ") && !l.contains(version)));
            serve.send(turn("t2"));
            JsonNode second = result(serve, "t2");
            assertThat(second.path("text").asText()).as(serve.stderr()).isEqualTo("bonjour");
            // the same process: the first update is still there, then the new one with a new version
            assertThat(second.path("updates")).hasSize(2);
            assertThat(second.path("updates").get(1).get(1).asText()).isEqualTo("bonjour");
            assertThat(second.path("updates").get(1).get(2).asText()).hasSize(12).isNotEqualTo(version);
            assertThat(serve.closeInput().awaitExit(WAIT)).as(serve.stderr()).isZero();
        }
    }
}
