package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The application's plugin configuration ({@link PluginConfigs}, toolbus.yaml's
 * {@code plugins.<id>.config}) reaches a real process of every kind: a plain stdio plugin in
 * {@code activate} and {@code configure}, MaiBot's {@code self.config} and {@code on_config_update},
 * OpenClaw's {@code api.config}, ChatAI's {@code context.config}; an update reaches the running
 * processes without a restart, and a plugin the application configures no more falls back to its own
 * {@code plugin.json} {@code config}.
 */
class PluginConfigTest extends PluginFixture {

    private static final String STDIO = """
            import json, os, sys
            seen = {"activate": None, "version": None, "configures": [], "env": os.environ.get("TOOLBUS_PLUGIN_CONFIG")}
            for line in sys.stdin:
                m = json.loads(line)
                method, p = m.get("method"), m.get("params") or {}
                if method == "activate":
                    seen["activate"], seen["version"] = p.get("config"), p.get("configVersion")
                    out = {"id": m["id"], "tools": [{"name": "stdio_config", "description": "what it was given",
                                                     "inputSchema": {"type": "object", "properties": {}}}]}
                elif method == "configure":
                    seen["configures"].append(p)
                    continue
                elif method == "execute_tool":
                    out = {"id": m["id"], "result": json.dumps(seen)}
                elif method == "deactivate":
                    break
                else:
                    continue
                sys.stdout.write(json.dumps(out) + "\\n")
                sys.stdout.flush()
            """;

    private static final String MAIBOT = """
            import json
            from maibot_sdk import MaiBotPlugin, Tool

            class Configured(MaiBotPlugin):
                updates = []

                async def on_config_update(self, scope, config_data, version):
                    Configured.updates.append({"scope": scope, "config": config_data, "version": version})

                @Tool("mai_config", description="the config it has")
                async def mai_config(self, **kwargs):
                    return json.dumps({"config": self.config, "greeting": self.get_config("greeting.text", ""),
                                       "updates": Configured.updates}, ensure_ascii=False)

            def create_plugin():
                return Configured()
            """;

    private static final String OPENCLAW = """
            export default function (api) {
              api.registerTool({ name: 'claw_config', description: 'the config it has',
                parameters: { type: 'object', properties: {} },
                async execute() {
                  return { content: [{ type: 'text', text: JSON.stringify({ config: api.config, plugin: api.pluginConfig }) }] };
                } });
            }
            """;

    private static final String CHATAI = """
            export default { name: 'chat_config', description: 'the config it has',
              inputSchema: { type: 'object', properties: {} },
              handler: async (args, context) => ({ text: JSON.stringify(context.config) }) };
            """;

    private PluginConfigs configs;
    private StdioPluginHost host;
    private ToolExecutor ex;

    @BeforeEach
    void loadFourKinds() throws IOException {
        Path stdio = plugin("plain", "{\"id\":\"plain\",\"command\":\"python3\",\"args\":[\"-u\",\"cfg.py\"],"
                + "\"config\":{\"from\":\"plugin.json\"}}");
        Files.writeString(stdio.resolve("cfg.py"), STDIO);
        Path mai = Files.createDirectories(root.resolve("mai"));
        Files.writeString(mai.resolve("plugin.py"), MAIBOT);
        Path claw = Files.createDirectories(root.resolve("claw"));
        Files.writeString(claw.resolve("openclaw.plugin.json"), "{\"id\":\"claw\"}");
        Files.writeString(claw.resolve("index.mjs"), OPENCLAW);
        Path chat = Files.createDirectories(root.resolve("chat"));
        Files.writeString(chat.resolve("tools.mjs"), CHATAI);
        configs = PluginConfigs.of(first());
        host = StdioPlugins.load(root, configs);
        closeLater(host);
        assertThat(host.skipped()).isEmpty();
        ex = executor(host);
    }

    private static Map<String, Object> first() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("plain", Map.of("units", "metric"));
        m.put("mai", Map.of("greeting", Map.of("text", "你好")));
        m.put("claw", Map.of("region", "eu"));
        m.put("chat", Map.of("mode", "a"));
        return m;
    }

    private JsonNode seen(String tool) throws IOException {
        return Json.mapper().readTree(call(ex, tool, "{}").content());
    }

    private StdioPluginStatus status(String id) {
        return host.plugins().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void everyKindSeesItsConfig_atActivation() throws IOException {
        JsonNode plain = seen("stdio_config");
        assertThat(plain.path("activate").path("units").asText()).isEqualTo("metric");
        assertThat(plain.path("version").asText()).isEqualTo(configs.version("plain")).hasSize(12);
        // plugin.json's own config is there too, as the fallback
        assertThat(plain.path("env").asText()).isEqualTo("{\"from\":\"plugin.json\"}");

        JsonNode mai = seen("mai_config");
        assertThat(mai.path("config").path("greeting").path("text").asText()).isEqualTo("你好");
        assertThat(mai.path("greeting").asText()).isEqualTo("你好");
        assertThat(mai.path("updates")).hasSize(1);
        assertThat(mai.path("updates").get(0).path("scope").asText()).isEqualTo("self");
        assertThat(mai.path("updates").get(0).path("version").asText()).isEqualTo(configs.version("mai"));

        JsonNode claw = seen("claw_config");
        assertThat(claw.path("config").path("region").asText()).isEqualTo("eu");
        assertThat(claw.path("plugin").path("region").asText()).isEqualTo("eu");

        assertThat(seen("chat_config").path("mode").asText()).isEqualTo("a");
    }

    @Test
    void anUpdate_reachesTheRunningProcesses_withoutARestart() throws IOException {
        Map<String, Long> pids = new LinkedHashMap<>();
        for (String id : List.of("plain", "mai", "claw", "chat")) {
            pids.put(id, status(id).pid());
        }
        Map<String, Object> next = new LinkedHashMap<>(first());
        next.put("plain", Map.of("units", "imperial"));
        next.put("mai", Map.of("greeting", Map.of("text", "早上好")));
        next.put("claw", Map.of("region", "us"));
        next.put("chat", Map.of("mode", "b"));
        configs.update(next);

        await().atMost(WAIT).until(() -> seen("stdio_config").path("configures").size() == 1);
        JsonNode configure = seen("stdio_config").path("configures").get(0);
        assertThat(configure.path("config").path("units").asText()).isEqualTo("imperial");
        assertThat(configure.path("version").asText()).isEqualTo(configs.version("plain"));

        await().atMost(WAIT).until(() -> seen("mai_config").path("updates").size() == 2);
        JsonNode mai = seen("mai_config");
        assertThat(mai.path("greeting").asText()).isEqualTo("早上好");
        JsonNode update = mai.path("updates").get(1);
        assertThat(update.path("scope").asText()).isEqualTo("self");
        assertThat(update.path("config").path("greeting").path("text").asText()).isEqualTo("早上好");
        assertThat(update.path("version").asText()).isEqualTo(configs.version("mai"));

        await().atMost(WAIT).until(() -> seen("claw_config").path("config").path("region").asText().equals("us"));
        assertThat(seen("claw_config").path("plugin").path("region").asText()).isEqualTo("us");
        await().atMost(WAIT).until(() -> seen("chat_config").path("mode").asText().equals("b"));

        for (Map.Entry<String, Long> e : pids.entrySet()) {
            assertThat(status(e.getKey()).pid()).as(e.getKey()).isEqualTo(e.getValue());
            assertThat(status(e.getKey()).starts()).as(e.getKey()).isEqualTo(1);
        }
        // the same config again tells nobody
        configs.update(next);
        assertThat(seen("stdio_config").path("configures")).hasSize(1);
    }

    @Test
    void aConfigTakenAway_fallsBackToThePluginsOwn() throws IOException {
        Map<String, Object> without = new LinkedHashMap<>(first());
        without.remove("plain");
        without.remove("claw");
        configs.update(without);
        await().atMost(WAIT).until(() -> seen("stdio_config").path("configures").size() == 1);
        JsonNode configure = seen("stdio_config").path("configures").get(0);
        assertThat(configure.path("config").isNull()).isTrue();
        assertThat(configure.path("version").asText()).isEmpty();
        // OpenClaw's own: nothing in its folder, so {}
        await().atMost(WAIT).until(() -> seen("claw_config").path("config").isEmpty());
        assertThat(configs.get("plain")).isNull();
    }
}
