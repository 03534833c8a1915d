package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The seed frameworks' plugins (docs/examples/frameworks) loaded by kind and run through the executor. */
class FrameworkPluginsTest extends PluginFixture {

    static final Path FRAMEWORKS = Path.of("../../docs/examples/frameworks");
    static final Path HOSTS = Path.of("../hosts");
    static final Path LLM_VECTORS = Path.of("../../executor/src/test/resources/maibot-vectors/llm_schema_vectors.out");

    @Test
    void seedExamples_loadByKindAndAnswerCalls() {
        StdioPluginHost host = load(FRAMEWORKS);
        assertThat(host.plugins()).extracting(StdioPluginStatus::id)
                .containsExactly("chatai-tools", "maibot-dict", "maibot-greet", "maibot-search", "my-tool", "workflow");
        assertThat(host.tools()).extracting(ToolSpec::name).containsExactly("my_tool", "whoami", "search", "greet",
                "wave", "search_web", "get_weather", "my_tool", "workflow_tool");
        ToolExecutor ex = executor(host);

        assertThat(call(ex, "search_web", "{\"query\":\"toolbus\"}").data().toString())
                .isEqualTo("{\"results\":[],\"count\":0}");
        assertThat(call(ex, "get_weather", "{\"city\":\"北京\"}").data().toString())
                .isEqualTo("{\"city\":\"北京\",\"weather\":{}}");
        // ChatAI's tool definition format as printed: its handler returns { result: '...' }
        assertThat(call(ex, "my_tool", "{\"param1\":\"x\"}").content()).isEqualTo("{\"result\": \"...\"}");
        assertThat(call(ex, "search", "{\"query\":\"q\",\"limit\":2}").content())
                .isEqualTo("{\"results\": [\"q #1\", \"q #2\"]}");
        assertThat(call(ex, "wave", "{\"target\":\"Mai\"}").content()).isEqualTo("向Mai挥手");
        assertThat(call(ex, "workflow_tool", "{\"pipeline\":\"nightly\"}").content()).isEqualTo("nightly");

        ToolDefinition workflow = definition(host, "workflow_tool");
        assertThat(workflow.optional()).isTrue();
        assertThat(workflow.pluginId()).isEqualTo("workflow");
        assertThat(host.tools()).allSatisfy(s -> assertThat(s.definition().cacheable()).isFalse());
    }

    @Test
    void chataiNameClash_firstPluginWins_andTheSecondIsReported() {
        StdioPluginHost host = load(FRAMEWORKS);
        // chatai-tools' my_tool and OpenClaw's my_tool: both are declared; the registry keeps the first
        ToolRegistry registry = ToolRegistry.create();
        host.registerInto(registry);
        assertThat(registry.entries()).filteredOn(e -> e.tool().definition().name().equals("my_tool"))
                .singleElement().satisfies(e -> assertThat(e.tool().definition().pluginId()).isEqualTo("chatai-tools"));
    }

    @Test
    void maibotListing_equalsMaiBotsHostByteForByte() throws IOException {
        copy(HOSTS.resolve("maibot/tests/plugins/vectors"), root.resolve("vectors"));
        StdioPluginHost host = load(root);
        Map<String, JsonNode> vectors = llmVectors();
        assertThat(vectors).containsOnlyKeys("arr_no_items", "legacy_dict", "noparams", "typed", "web_search", "ws");
        vectors.forEach((name, function) -> {
            if (function == null) {
                assertThat(host.tools()).noneMatch(s -> s.name().equals(name));
                return;
            }
            ToolDefinition def = definition(host, name);
            assertThat(def.description(DescriptionLocale.ZH)).as(name).isEqualTo(function.path("description").textValue());
            assertThat(def.inputSchema(DescriptionLocale.ZH).toString()).as(name)
                    .isEqualTo(function.path("parameters").toString());
        });
        assertThat(definition(host, "web_search").timeout()).hasMillis(5000);
    }

    @Test
    void pluginResults_areNotCachedUnlessTheToolOptsIn() throws IOException {
        Path dir = Files.createDirectories(root.resolve("counter"));
        Files.writeString(dir.resolve("plugin.py"), """
                from maibot_sdk import MaiBotPlugin, Tool

                class Counter(MaiBotPlugin):
                    n = 0

                    @Tool("count", description="counts its calls")
                    async def count(self, **kwargs):
                        Counter.n += 1
                        return str(Counter.n)

                    @Tool("cached_count", description="counts, cacheable", cacheable=True)
                    async def cached_count(self, **kwargs):
                        Counter.n += 1
                        return str(Counter.n)

                def create_plugin():
                    return Counter()
                """);
        StdioPluginHost host = load(root);
        ToolRegistry registry = ToolRegistry.create();
        host.registerInto(registry);
        try (ToolExecutor ex = ToolExecutor.builder().registry(registry)
                .settings(ExecutionSettings.builder().cacheResults(true).timeoutMs(20_000).build()).build()) {
            List<String> counts = Stream.of("count", "count", "cached_count", "cached_count")
                    .map(t -> call(ex, t, "{}")).map(ToolResultEvent::content).toList();
            assertThat(counts).containsExactly("1", "2", "3", "3");
        }
    }

    @Test
    void crashingPlugins_areRestarted_hangingCallsAreCancelledPerCall() throws IOException {
        Path mai = Files.createDirectories(root.resolve("crashy"));
        Files.writeString(mai.resolve("plugin.py"), """
                import os
                from maibot_sdk import MaiBotPlugin, Tool

                print("garbage on stdout at import time")

                class Crashy(MaiBotPlugin):
                    @Tool("crash", description="exits the process")
                    async def crash(self, **kwargs):
                        os._exit(3)

                    @Tool("alive", description="answers")
                    async def alive(self, **kwargs):
                        return "alive"

                def create_plugin():
                    return Crashy()
                """);
        Path chat = Files.createDirectories(root.resolve("hangs"));
        Files.writeString(chat.resolve("never.js"), """
                export default { name: 'never', description: 'never resolves', timeoutMs: 1000,
                  inputSchema: { type: 'object', properties: {} }, handler: () => new Promise(() => {}) }
                """);
        Files.writeString(chat.resolve("quick.js"), """
                export default { name: 'quick', description: 'answers', inputSchema: { type: 'object', properties: {} },
                  handler: async () => ({ text: 'quick' }) }
                """);
        StdioPluginHost host = load(root);
        ToolExecutor ex = executor(host);
        ToolResultEvent crashed = call(ex, "crash", "{}");
        assertThat(crashed.error().code()).isEqualTo(dev.toolbus.protocol.ErrorCode.TOOL_FAILED);
        assertThat(crashed.content()).contains("exited with code 3");
        assertThat(call(ex, "alive", "{}").content()).isEqualTo("alive");

        ToolResultEvent hung = call(ex, "never", "{}");
        assertThat(hung.error().code()).isEqualTo(dev.toolbus.protocol.ErrorCode.TIMEOUT);
        assertThat(call(ex, "quick", "{}").content()).isEqualTo("quick");
        // the crashed plugin was restarted; the hung call was cancelled per call (the ChatAI host stops
        // waiting on it and answers), so that process lives on
        assertThat(host.plugins()).filteredOn(s -> s.id().equals("crashy")).singleElement()
                .satisfies(s -> assertThat(s.starts()).isEqualTo(2));
        assertThat(host.plugins()).filteredOn(s -> s.id().equals("hangs")).singleElement()
                .satisfies(s -> assertThat(s.starts()).isEqualTo(1));
    }

    @Test
    void imagesOfMaiBotAndOpenClawResults_becomeMedia() throws IOException {
        copy(HOSTS.resolve("maibot/tests/plugins/calls"), root.resolve("mai-calls"));
        copy(HOSTS.resolve("node/test/plugins/openclaw-calls"), root.resolve("claw-calls"));
        StdioPluginHost host = load(root);
        ToolExecutor ex = executor(host);
        ToolResultEvent mai = call(ex, "shape", "{\"kind\":\"media\"}");
        assertThat(mai.isError()).as(mai.content()).isFalse();
        assertThat(mai.content()).startsWith("图片").contains("<tool_result_media_list>");
        assertThat(mai.media()).hasSize(1);
        ToolResultEvent claw = call(ex, "chart", "{\"title\":\"sales\"}");
        assertThat(claw.content()).startsWith("sales (c)").contains("<tool_result_media_list>");
        assertThat(claw.media()).hasSize(1);
        ToolDefinition config = definition(host, "show_config");
        assertThat(config.optional()).isTrue();
        assertThat(config.dangerous()).isTrue();
        assertThat(config.requiredPermission()).isEqualTo("admin");
        assertThat(config.groups()).containsExactly("ops");
    }

    @Test
    void sdkExamples_runThroughTheExecutor() {
        StdioPluginHost host = load(Path.of("../../docs/examples/sdk"));
        assertThat(host.plugins()).extracting(StdioPluginStatus::id).containsExactly("node-weather", "python-weather");
        ToolExecutor ex = executor(host);
        assertThat(call(ex, "forecast", "{\"city\":\"Oslo\",\"days\":2}").content())
                .isEqualTo("Oslo day 1: 11 °C\nOslo day 2: 12 °C");
        assertThat(call(ex, "weather_now", "{\"city\":\"Paris\"}").data().toString())
                .isEqualTo("{\"city\":\"Paris\",\"celsius\":12}");
        assertThat(call(ex, "weather_now", "{\"city\":\"Atlantis\"}").content()).isEqualTo("unknown city: Atlantis");
        assertThat(definition(host, "weather_now").cacheable()).isTrue();
        assertThat(definition(host, "greet_user").sideEffecting()).isTrue();
    }

    @Test
    void brokenFrameworkPlugins_areSkippedWithTheirReason_andTheOthersLoad() throws IOException {
        Path broken = Files.createDirectories(root.resolve("broken-mai"));
        Files.writeString(broken.resolve("plugin.py"), "def create_plugin(:\n    pass\n");
        Path empty = Files.createDirectories(root.resolve("empty-claw"));
        Files.writeString(empty.resolve("openclaw.plugin.json"), "{}");
        Files.writeString(empty.resolve("index.mjs"), "export const nothing = 1;\n");
        copy(FRAMEWORKS.resolve("maibot-dict"), root.resolve("good"));
        StdioPluginHost host = load(root);
        assertThat(host.plugins()).extracting(StdioPluginStatus::id).containsExactly("good");
        assertThat(host.skipped()).containsOnlyKeys("broken-mai", "empty-claw");
        assertThat(host.skipped().get("broken-mai")).contains("invalid syntax");
        assertThat(host.skipped().get("empty-claw")).contains("exports no plugin function");
    }

    private static ToolDefinition definition(StdioPluginHost host, String name) {
        return host.tools().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow().definition();
    }

    /** name → the function definition MaiBot's host sent the model (null where it refused the tool). */
    static Map<String, JsonNode> llmVectors() throws IOException {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        String name = null;
        for (String line : Files.readAllLines(LLM_VECTORS)) {
            if (line.startsWith("===")) {
                name = line.split("\\s+")[1];
                if (line.contains("RAISES")) {
                    out.put(name, null);
                }
            } else if (!line.isBlank() && name != null) {
                out.put(name, Json.mapper().readTree(line).path("function"));
            }
        }
        return out;
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        try (Stream<Path> s = Files.list(from)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                Files.copy(p, to.resolve(p.getFileName()));
            }
        }
    }
}
