package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.BuiltInTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Hot reload of a plugins folder: changed, added and removed plugins of every kind, real processes. */
class StdioPluginReloaderTest extends PluginFixture {

    private ToolRegistry registry;
    private ToolExecutor executor;
    private StdioPluginReloader reloader;
    private int version;

    @BeforeEach
    void setUp() {
        registry = ToolRegistry.create();
        executor = ToolExecutor.builder().registry(registry)
                .settings(ExecutionSettings.builder().cacheResults(false).timeoutMs(20_000).build()).build();
    }

    @AfterEach
    void tearDown() {
        if (reloader != null) {
            reloader.closeGracefully().block(WAIT);
        }
        executor.close();
    }

    private void maibot(String folder, String tool, String answer, double sleepSeconds) throws IOException {
        Path dir = Files.createDirectories(root.resolve(folder));
        Path file = dir.resolve("plugin.py");
        Files.writeString(file, """
                import asyncio
                from maibot_sdk import MaiBotPlugin, Tool

                class P(MaiBotPlugin):
                    @Tool("%s", description="answers")
                    async def t(self, **kwargs):
                        await asyncio.sleep(%s)
                        return "%s"

                def create_plugin():
                    return P()
                """.formatted(tool, sleepSeconds, answer));
        touch(file);
    }

    private void chatai(String folder, String tool, String answer) throws IOException {
        Path dir = Files.createDirectories(root.resolve(folder));
        Path file = dir.resolve(tool + ".js");
        Files.writeString(file, "export default { name: '" + tool + "', description: 'd', inputSchema: { type: 'object', "
                + "properties: {} }, handler: async () => ({ text: '" + answer + "' }) }\n");
        touch(file);
    }

    private void openclaw(String folder, String tool, String answer) throws IOException {
        Path dir = Files.createDirectories(root.resolve(folder));
        Files.writeString(dir.resolve("openclaw.plugin.json"), "{\"id\":\"" + folder + "\"}");
        Path file = dir.resolve("index.mjs");
        Files.writeString(file, "export default function (api) { api.registerTool({ name: '" + tool + "', description: 'd', "
                + "parameters: { type: 'object', properties: {} }, "
                + "async execute() { return { content: [{ type: 'text', text: '" + answer + "' }] }; } }); }\n");
        touch(file);
    }

    private void stdio(String folder, String tool, String answer) throws IOException {
        Path dir = Files.createDirectories(root.resolve(folder));
        Files.writeString(dir.resolve("plugin.json"), "{\"id\":\"" + folder + "\",\"command\":\"python3\","
                + "\"args\":[\"-u\",\"p.py\"]}");
        Path file = dir.resolve("p.py");
        Files.writeString(file, """
                import json, sys
                for line in sys.stdin:
                    m = json.loads(line)
                    if m.get("method") == "activate":
                        print(json.dumps({"id": m["id"], "tools": [{"name": "%s", "description": "d"}]}), flush=True)
                    elif m.get("method") == "execute_tool":
                        print(json.dumps({"id": m["id"], "result": "%s"}), flush=True)
                    elif m.get("method") == "deactivate":
                        break
                """.formatted(tool, answer));
        touch(file);
    }

    /** A distinct modification time per write, so a change is seen even within one clock tick. */
    private void touch(Path file) throws IOException {
        Files.setLastModifiedTime(file, FileTime.from(Instant.parse("2026-01-01T00:00:00Z").plusSeconds(++version)));
    }

    private ToolResultEvent call(String tool) {
        return results(executor.execute(ToolCallsEvent.of("s", "t" + System.nanoTime(),
                List.of(ToolCall.ofJson("c", tool, "{}")))).collectList().block(WAIT)).get(0);
    }

    /** The registered tools but read_tool_result, which the executor registers itself. */
    private List<String> tools() {
        return registry.entries().stream().map(e -> e.tool().name())
                .filter(n -> !n.equals(BuiltInTools.READ_TOOL_RESULT)).sorted().toList();
    }

    @Test
    void changedAddedAndRemovedFolders_followInTheRegistry() throws Exception {
        maibot("a-mai", "mai_v1", "one", 0);
        chatai("b-chat", "chat_tool", "chat one");
        reloader = StdioPluginReloader.start(root, registry, Duration.ZERO);
        assertThat(tools()).containsExactly("chat_tool", "mai_v1");
        long oldPid = reloader.plugins().get(0).pid();

        maibot("a-mai", "mai_v2", "two", 0);
        chatai("c-new", "added_tool", "added");
        reloader.rescan();
        assertThat(tools()).containsExactly("added_tool", "chat_tool", "mai_v2");
        assertThat(call("mai_v2").content()).isEqualTo("two");
        assertThat(call("added_tool").content()).isEqualTo("added");
        assertThat(call("mai_v1").error().code()).isEqualTo(dev.toolbus.protocol.ErrorCode.UNKNOWN_TOOL);
        awaitGone(oldPid);

        long chatPid = reloader.plugins().stream().filter(p -> p.id().equals("b-chat")).findFirst().orElseThrow().pid();
        deleteTree(root.resolve("b-chat"));
        reloader.rescan();
        assertThat(tools()).containsExactly("added_tool", "mai_v2");
        awaitGone(chatPid);
    }

    @Test
    void openClawAndStdioPlugins_areReloadedToo() throws Exception {
        openclaw("claw", "claw_v1", "claw one");
        stdio("plain", "plain_v1", "plain one");
        reloader = StdioPluginReloader.start(root, registry, Duration.ZERO);
        assertThat(tools()).containsExactly("claw_v1", "plain_v1");
        assertThat(call("claw_v1").content()).isEqualTo("claw one");
        long[] old = reloader.plugins().stream().mapToLong(StdioPluginStatus::pid).toArray();

        openclaw("claw", "claw_v2", "claw two");
        stdio("plain", "plain_v2", "plain two");
        reloader.rescan();
        assertThat(tools()).containsExactly("claw_v2", "plain_v2");
        assertThat(call("claw_v2").content()).isEqualTo("claw two");
        assertThat(call("plain_v2").content()).isEqualTo("plain two");
        awaitGone(old);
    }

    @Test
    void aCallInFlight_finishesOnTheOldProcess() throws Exception {
        maibot("slow", "slow_tool", "old answer", 1.5);
        reloader = StdioPluginReloader.start(root, registry, Duration.ZERO);
        long oldPid = reloader.plugins().get(0).pid();
        CompletableFuture<List<ToolResultEvent>> inFlight = executor.execute(ToolCallsEvent.of("s", "t-old",
                List.of(ToolCall.ofJson("c", "slow_tool", "{}")))).collectList().map(PluginFixture::results).toFuture();
        await().atMost(WAIT).until(() -> registry.find("slow_tool") != null && oldPid > 0);
        maibot("slow", "slow_tool", "new answer", 0);
        reloader.rescan();
        assertThat(call("slow_tool").content()).isEqualTo("new answer");
        assertThat(inFlight.get().get(0).content()).isEqualTo("old answer");
        awaitGone(oldPid);
    }

    @Test
    void aBrokenChange_keepsTheRunningVersion() throws Exception {
        maibot("mai", "steady", "still here", 0);
        reloader = StdioPluginReloader.start(root, registry, Duration.ZERO);
        Path file = root.resolve("mai/plugin.py");
        Files.writeString(file, "def create_plugin(:\n");
        touch(file);
        reloader.rescan();
        assertThat(tools()).containsExactly("steady");
        assertThat(call("steady").content()).isEqualTo("still here");
        maibot("mai", "fixed", "fixed", 0);
        reloader.rescan();
        assertThat(tools()).containsExactly("fixed");
    }

    @Test
    void aPluginBrokenAtStart_isSkipped_andStartsOnceFixed() throws Exception {
        Path dir = Files.createDirectories(root.resolve("late"));
        Path file = dir.resolve("plugin.py");
        Files.writeString(file, "def create_plugin(:\n");
        touch(file);
        chatai("other", "other_tool", "ok");
        reloader = StdioPluginReloader.start(root, registry, Duration.ZERO);
        assertThat(tools()).containsExactly("other_tool");
        reloader.rescan();
        assertThat(tools()).containsExactly("other_tool");
        maibot("late", "late_tool", "late", 0);
        reloader.rescan();
        assertThat(tools()).containsExactly("late_tool", "other_tool");
        assertThat(call("late_tool").content()).isEqualTo("late");
    }

    @Test
    void aRequiredPluginFailingAtStart_failsTheStart_andStopsTheOthers() throws Exception {
        chatai("a-chat", "chat_tool", "ok");
        plugin("b-bad", "{\"id\":\"bad\",\"command\":\"./does-not-exist\"}");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> StdioPluginReloader.start(root, registry, Duration.ZERO))
                .isInstanceOf(StdioPluginException.class).hasMessageContaining("'bad'");
        assertThat(tools()).isEmpty();
        await().atMost(WAIT).until(() -> ProcessHandle.current().descendants()
                .noneMatch(h -> h.isAlive() && h.info().commandLine().map(c -> c.contains("chatai/host.mjs")).orElse(false)));
    }

    @Test
    void polling_findsChangesWithoutARescanCall() throws Exception {
        chatai("chat", "first", "1");
        reloader = StdioPluginReloader.start(root, registry, Duration.ofMillis(100));
        chatai("chat", "second", "2");
        await().atMost(WAIT).until(() -> tools().contains("second"));
        assertThat(call("second").content()).isEqualTo("2");
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
