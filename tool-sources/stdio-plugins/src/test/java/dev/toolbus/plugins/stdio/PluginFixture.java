package dev.toolbus.plugins.stdio;

import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/** Writes plugin folders for the test plugin, runs hosts through an executor, and cleans up. */
abstract class PluginFixture {

    static final Duration WAIT = Duration.ofSeconds(30);
    private static final AtomicInteger TURNS = new AtomicInteger();

    @TempDir
    Path root;

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeEverything() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    static Path testScript() {
        try {
            return Path.of(PluginFixture.class.getResource("/plugins/testplugin.py").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A folder for the test plugin; {@code extra} is more manifest JSON (starting with a comma), {@code env} its environment. */
    Path testPlugin(String id, String extra, Map<String, String> env) {
        StringBuilder e = new StringBuilder("{");
        env.forEach((k, v) -> e.append(e.length() > 1 ? "," : "").append('"').append(k).append("\":\"").append(v).append('"'));
        e.append('}');
        return plugin(id, "{\"id\":\"" + id + "\",\"command\":\"python3\",\"args\":[\"-u\",\""
                + testScript().toString().replace("\\", "\\\\") + "\"],\"env\":" + e + extra + "}");
    }

    /** Closes {@code c} after the test, before the hosts. */
    void closeLater(AutoCloseable c) {
        open.add(0, c);
    }

    Path plugin(String folder, String manifestJson) {
        try {
            Path dir = Files.createDirectories(root.resolve(folder));
            Files.writeString(dir.resolve(PluginManifest.FILE_NAME), manifestJson);
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    StdioPluginHost load() {
        return load(root);
    }

    StdioPluginHost load(Path dir) {
        StdioPluginHost host = StdioPlugins.load(dir);
        open.add(host);
        return host;
    }

    ToolExecutor executor(StdioPluginHost host) {
        ToolRegistry registry = ToolRegistry.create();
        host.registerInto(registry);
        ToolExecutor ex = ToolExecutor.builder().registry(registry)
                .settings(ExecutionSettings.builder().cacheResults(false).timeoutMs(20_000).build())
                .build();
        open.add(0, ex); // closed last, after the hosts
        return ex;
    }

    static List<OutboundEvent> turn(ToolExecutor ex, ToolCall... calls) {
        String id = "t" + TURNS.incrementAndGet();
        return ex.execute(ToolCallsEvent.of("s", id, List.of(calls))).collectList().block(WAIT);
    }

    static ToolResultEvent call(ToolExecutor ex, String tool, String argsJson) {
        return results(turn(ex, ToolCall.ofJson("c", tool, argsJson))).get(0);
    }

    static List<ToolResultEvent> results(List<OutboundEvent> events) {
        return events.stream().filter(e -> e instanceof ToolResultEvent).map(e -> (ToolResultEvent) e).toList();
    }

    static void awaitGone(long... pids) {
        await().atMost(WAIT).until(() -> {
            for (long pid : pids) {
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    return false;
                }
            }
            return true;
        });
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Our own child processes running the test plugin script. */
    static List<ProcessHandle> testPluginProcesses() {
        String script = testScript().toString();
        return ProcessHandle.current().descendants()
                .filter(h -> h.isAlive() && h.info().commandLine().map(c -> c.contains(script)).orElse(false))
                .toList();
    }

    static void awaitNoTestPluginProcess() {
        await().atMost(WAIT).until(() -> testPluginProcesses().isEmpty());
    }
}
