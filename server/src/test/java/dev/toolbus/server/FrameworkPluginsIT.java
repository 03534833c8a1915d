package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code toolbus serve --bus stdio --plugins DIR} with the seed frameworks' plugins (MaiBot, OpenClaw,
 * ChatAI, and xbot's Go hello-world ported to the Go module) as their authors wrote them, through the
 * runnable jar: the model-facing listing, calls and sends, the optional tool, watched folders, bad plugins
 * skipped with their reason, and SIGTERM with plugins of every kind.
 */
class FrameworkPluginsIT {

    private static final Duration EXIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path work;

    private ToolbusProcess serve;

    @AfterEach
    void stop() {
        if (serve != null) {
            serve.close();
        }
    }

    @Test
    void seedPlugins_listByteForByteAndAnswerCalls() throws Exception {
        Path plugins = work.resolve("plugins");
        // a plugin-only allow list opts in to the optional OpenClaw tool by its plugin id
        Path config = Files.writeString(work.resolve("toolbus.yaml"), "tools:\n  allow: [workflow]\n");
        try (Stream<Path> s = Files.list(ROOT.resolve("docs/examples/frameworks"))) {
            for (Path p : s.toList()) {
                copy(p, plugins.resolve(p.getFileName()));
            }
        }
        copy(ROOT.resolve("tool-sources/hosts/maibot/tests/plugins/vectors"), plugins.resolve("vectors"));
        serve = ToolbusProcess.start("frameworks", "serve", "--bus=stdio", "--config", config.toString(),
                "--plugins", plugins.toString(), "--log-level", "warn");
        serve.send("{\"type\":\"list_tools\",\"stream_id\":\"s:l\",\"request_id\":\"r1\",\"format\":\"openai\"}");
        serve.send("{\"type\":\"tool_calls\",\"stream_id\":\"s:c\",\"turn_id\":\"t1\",\"calls\":["
                + call("c1", "search_web", "{\"query\":\"toolbus\"}") + ","
                + call("c2", "wave", "{\"target\":\"Mai\"}") + ","
                + call("c3", "my_tool", "{\"param1\":\"x\"}") + ","
                + call("c4", "workflow_tool", "{\"pipeline\":\"nightly\"}") + ","
                + call("c5", "legacy_dict", "{\"query\":\"q\"}") + ","
                + call("c6", "greet", "{\"stream_id\":\"s:c\"}") + ","
                + call("c7", "get_weather", "{\"city\":\"北京\"}") + ","
                + call("c8", "whoami", "{}") + "],"
                + "\"context\":{\"user_id\":\"u1\",\"group_id\":\"g1\",\"platform\":\"qq\",\"permission\":\"master\"}}");
        assertThat(serve.closeInput().awaitExit(EXIT)).as(serve.stderr()).isZero();

        JsonNode tools = serve.events().stream().filter(e -> e.path("type").asText().equals("tools"))
                .findFirst().orElseThrow(() -> new AssertionError(serve.stderr()));
        Map<String, JsonNode> listed = new LinkedHashMap<>();
        tools.path("tools").forEach(t -> listed.put(t.path("function").path("name").asText(), t.path("function")));
        assertThat(listed).containsKeys("search_web", "get_weather", "search", "greet", "wave", "my_tool",
                "whoami", "workflow_tool", "web_search", "typed", "noparams", "legacy_dict", "ws");
        llmVectors().forEach((name, function) -> {
            if (function == null) {
                assertThat(listed).doesNotContainKey(name);
            } else {
                assertThat(listed.get(name).toString()).as(name).isEqualTo(function.toString());
            }
        });

        Map<String, JsonNode> results = new LinkedHashMap<>();
        serve.events().stream().filter(e -> e.path("type").asText().equals("tool_result"))
                .forEach(e -> results.put(e.path("tool_call_id").asText(), e));
        assertThat(results).containsOnlyKeys("c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8");
        assertThat(results.values()).allSatisfy(r -> assertThat(r.path("is_error").asBoolean()).as(r.toString()).isFalse());
        assertThat(results.get("c1").path("content").asText()).isEqualTo("{\"results\": [], \"count\": 0}");
        assertThat(results.get("c2").path("content").asText()).isEqualTo("向Mai挥手");
        // ChatAI's my_tool (the registry keeps the first of the two seed tools named my_tool) returns
        // its documentation's { result: '...' }: structured data, which the model reads as JSON
        assertThat(results.get("c3").path("content").asText()).isEqualTo("{\"result\": \"...\"}");
        assertThat(results.get("c4").path("content").asText()).isEqualTo("nightly");
        assertThat(results.get("c5").path("content").asText()).isEqualTo("{\"query\": \"q\", \"n\": 0}");
        // MaiBot's greet: ctx.send.text reaches the chat as a send_message of its call, then its result
        // (MaiBot's host reads a dict's message as the text the model gets)
        assertThat(results.get("c6").path("content").asText()).isEqualTo("已回复");
        Map<String, JsonNode> sent = new LinkedHashMap<>();
        serve.events().stream().filter(e -> e.path("type").asText().equals("send_message"))
                .forEach(e -> sent.put(e.path("tool_call_id").asText(), e));
        assertThat(sent).containsOnlyKeys("c6", "c8");
        assertThat(sent.get("c6").path("stream_id").asText()).isEqualTo("s:c");
        assertThat(sent.get("c6").path("content").get(0).path("text").asText()).isEqualTo("你好！");
        // ChatAI's whoami: its reply is a send_message, and the caller's permission reached isMaster()
        assertThat(sent.get("c8").path("content").get(0).path("text").asText()).isEqualTo("hello u1");
        assertThat(results.get("c8").path("content").asText())
                .isEqualTo("{\"success\": true, \"data\": {\"user\": \"u1\", \"group\": \"g1\", \"master\": true}}");
        assertThat(results.get("c7").path("content").asText()).isEqualTo("{\"city\": \"北京\", \"weather\": {}}");
    }

    /**
     * The plugins folder from toolbus.yaml ({@code sources.custom.pluginDirs}, no {@code --plugins}):
     * HanzoBot's {@code my_tool} runs, and its optional {@code workflow_tool} is not available while no
     * allow list names it.
     */
    @Test
    void pluginDirsOfTheConfig_runOpenClawsMyTool_andKeepTheOptionalToolUnavailable() throws Exception {
        Path plugins = work.resolve("plugins");
        copy(ROOT.resolve("docs/examples/frameworks/openclaw-my-tool"), plugins.resolve("openclaw-my-tool"));
        copy(ROOT.resolve("docs/examples/frameworks/openclaw-workflow"), plugins.resolve("openclaw-workflow"));
        Path config = Files.writeString(work.resolve("toolbus.yaml"),
                "sources:\n  custom:\n    pluginDirs: [\"" + plugins.toString().replace("\\", "/") + "\"]\n");
        serve = ToolbusProcess.start("frameworks-optional", "serve", "--bus=stdio", "--config", config.toString(),
                "--log-level", "warn");
        serve.send("{\"type\":\"tool_calls\",\"stream_id\":\"s:o\",\"turn_id\":\"t1\",\"calls\":["
                + call("c1", "workflow_tool", "{\"pipeline\":\"nightly\"}") + ","
                + call("c2", "my_tool", "{\"input\":\"hi\"}") + "]}");
        assertThat(serve.closeInput().awaitExit(EXIT)).as(serve.stderr()).isZero();
        Map<String, JsonNode> results = new LinkedHashMap<>();
        serve.events().stream().filter(e -> e.path("type").asText().equals("tool_result"))
                .forEach(e -> results.put(e.path("tool_call_id").asText(), e));
        assertThat(results).as(serve.stderr()).containsOnlyKeys("c1", "c2");
        assertThat(results.get("c1").path("error").path("code").asText()).isEqualTo("NOT_AVAILABLE");
        assertThat(results.get("c2").path("is_error").asBoolean()).as(results.get("c2").toString()).isFalse();
        assertThat(results.get("c2").path("content").asText()).isEqualTo("hi");
    }

    @Test
    void pluginFolders_areWatched_anAddedPluginIsListedWithoutARestart_badPluginsAreSkippedWithTheirReason() throws Exception {
        Path plugins = work.resolve("plugins");
        copy(ROOT.resolve("docs/examples/frameworks/chatai-tools"), plugins.resolve("chatai-tools"));
        // bad plugins do not keep serve from starting: a MaiBot plugin that does not parse, an OpenClaw
        // module that exports nothing
        Files.writeString(Files.createDirectories(plugins.resolve("broken-mai")).resolve("plugin.py"),
                "def create_plugin(:\n    pass\n");
        Path empty = Files.createDirectories(plugins.resolve("empty-claw"));
        Files.writeString(empty.resolve("openclaw.plugin.json"), "{}");
        Files.writeString(empty.resolve("index.mjs"), "export const nothing = 1;\n");
        serve = ToolbusProcess.start("frameworks-reload", "serve", "--bus=stdio", "--plugins", plugins.toString(),
                "--log-level", "warn");
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        java.util.function.Predicate<String> listed = tool -> {
            String rid = "r" + asked.incrementAndGet();
            serve.send("{\"type\":\"list_tools\",\"stream_id\":\"s:w\",\"request_id\":\"" + rid + "\"}");
            return serve.events().stream().anyMatch(e -> e.path("type").asText().equals("tools")
                    && e.path("tools").toString().contains("\"" + tool + "\""));
        };
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> listed.test("whoami"));
        copy(ROOT.resolve("docs/examples/frameworks/maibot-dict"), plugins.resolve("maibot-dict"));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .until(() -> listed.test("search"));
        serve.send("{\"type\":\"tool_calls\",\"stream_id\":\"s:w\",\"turn_id\":\"t1\",\"calls\":["
                + call("c1", "search", "{\"query\":\"q\",\"limit\":1}") + "]}");
        assertThat(serve.closeInput().awaitExit(EXIT)).as(serve.stderr()).isZero();
        JsonNode result = serve.events().stream().filter(e -> e.path("type").asText().equals("tool_result"))
                .findFirst().orElseThrow();
        assertThat(result.path("content").asText()).isEqualTo("{\"results\": [\"q #1\"]}");
        assertThat(serve.stderr()).contains("broken-mai").contains("invalid syntax")
                .contains("empty-claw").contains("exports no plugin function");
    }

    /**
     * xbot's Go hello-world, ported to the Go module ({@code tool-sources/hosts/go/examples/hello-world}:
     * only its import and {@code main} changed), built and run under {@code serve --plugins}. Needs the Go
     * toolchain that {@code scripts/test-hosts.sh} installs (Debian's golang-go).
     */
    @Test
    void xbotsHelloWorld_portedToTheGoModule_runsUnderServe() throws Exception {
        String go = go();
        org.junit.jupiter.api.Assumptions.assumeTrue(go != null,
                "no Go toolchain on PATH or in /usr/lib/go/bin: run scripts/test-hosts.sh (installs golang-go)");
        Path module = ROOT.resolve("tool-sources/hosts/go");
        Path folder = Files.createDirectories(work.resolve("plugins/go-hello"));
        Files.copy(module.resolve("examples/hello-world/plugin.json"), folder.resolve("plugin.json"));
        ProcessBuilder pb = new ProcessBuilder(go, "build", "-o", folder.resolve("hello-world").toString(),
                "./examples/hello-world").directory(module.toFile()).redirectErrorStream(true);
        pb.environment().put("GOFLAGS", "-mod=mod");
        pb.environment().put("GOPROXY", "off");
        if (System.getenv("HOME") == null) {
            pb.environment().putIfAbsent("GOCACHE", Files.createDirectories(work.resolve("gocache")).toString());
        }
        Process build = pb.start();
        String output = new String(build.getInputStream().readAllBytes());
        assertThat(build.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(build.exitValue()).as(output).isZero();

        serve = ToolbusProcess.start("frameworks-go", "serve", "--bus=stdio", "--plugins",
                work.resolve("plugins").toString(), "--log-level", "warn");
        serve.send("{\"type\":\"tool_calls\",\"stream_id\":\"s:g\",\"turn_id\":\"t1\",\"calls\":["
                + call("c1", "hello", "{\"name\":\"Ann\"}") + "," + call("c2", "weather", "{\"city\":\"Oslo\"}") + ","
                + call("c3", "double", "{}") + "]}");
        assertThat(serve.closeInput().awaitExit(EXIT)).as(serve.stderr()).isZero();
        Map<String, JsonNode> results = new LinkedHashMap<>();
        serve.events().stream().filter(e -> e.path("type").asText().equals("tool_result"))
                .forEach(e -> results.put(e.path("tool_call_id").asText(), e));
        assertThat(results).as(serve.stderr()).containsOnlyKeys("c1", "c2", "c3");
        assertThat(results.values()).allSatisfy(r -> assertThat(r.path("is_error").asBoolean()).as(r.toString()).isFalse());
        assertThat(results.get("c1").path("content").asText()).isEqualTo("Hello, Ann! 👋");
        JsonNode weather = JSON.readTree(results.get("c2").path("content").asText());
        assertThat(weather.path("city").asText()).isEqualTo("Oslo");
        assertThat(weather.path("temp").asInt()).isEqualTo(21);
    }

    private static String go() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "go"))) {
                return Path.of(dir, "go").toString();
            }
        }
        return Files.isExecutable(Path.of("/usr/lib/go/bin/go")) ? "/usr/lib/go/bin/go" : null;
    }

    /**
     * Issue 10 item 8: SIGTERM of {@code serve} with a plugin of every kind loaded (ChatAI, MaiBot,
     * OpenClaw, a stdio plugin) exits promptly, without the old 60 s wait on a stop the shutdown hook's
     * kill never completed ({@code PluginProcess.killNow} completes it now), and leaves no process.
     */
    @Test
    void sigterm_withPluginsOfEveryKind_exitsPromptlyAndLeavesNoProcess() throws Exception {
        Path plugins = work.resolve("plugins");
        for (String kind : List.of("chatai-tools", "maibot-search", "openclaw-my-tool")) {
            copy(ROOT.resolve("docs/examples/frameworks/" + kind), plugins.resolve(kind));
        }
        copy(ROOT.resolve("docs/examples/plugins/python-echo"), plugins.resolve("python-echo"));
        serve = ToolbusProcess.start("frameworks-sigterm", "serve", "--bus=stdio", "--plugins", plugins.toString(),
                "--log-level", "warn");
        serve.send("{\"type\":\"list_tools\",\"stream_id\":\"s:k\",\"request_id\":\"r1\"}");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> serve.events().stream().anyMatch(e -> e.path("type").asText().equals("tools")));
        List<ProcessHandle> children = serve.descendants();
        assertThat(children).hasSizeGreaterThanOrEqualTo(4);
        long start = System.nanoTime();
        serve.terminate().awaitExit(EXIT);
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as(serve.stderr()).isLessThan(Duration.ofSeconds(15));
        assertThat(serve.stderr()).doesNotContain("stopping the plugins failed");
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
                .until(() -> children.stream().noneMatch(ProcessHandle::isAlive));
    }

    private static String call(String id, String name, String args) {
        return "{\"tool_call_id\":\"" + id + "\",\"name\":\"" + name + "\",\"arguments\":" + args + "}";
    }

    /** name → the function definition MaiBot's host sent the model (null where it refused the tool). */
    private static Map<String, JsonNode> llmVectors() throws IOException {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        String name = null;
        List<String> lines = Files.readAllLines(ROOT.resolve("executor/src/test/resources/maibot-vectors/llm_schema_vectors.out"));
        for (String line : lines) {
            if (line.startsWith("===")) {
                name = line.split("\\s+")[1];
                if (line.contains("RAISES")) {
                    out.put(name, null);
                }
            } else if (!line.isBlank() && name != null) {
                out.put(name, JSON.readTree(line).path("function"));
            }
        }
        return out;
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
