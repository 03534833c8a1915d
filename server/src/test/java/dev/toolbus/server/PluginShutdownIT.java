package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 9 / issue 10 item 8: {@code serve} with live stdio plugins stops promptly and leaves no process behind. */
class PluginShutdownIT {

    /** A serialized plugin: {@code pid}, {@code spawn} (a child that sleeps), {@code sleep} and {@code block}. */
    private static final String PLUGIN = String.join("\n",
            "import json, os, subprocess, sys, time",
            "TOOLS = [{'name': n, 'description': n} for n in ('pid', 'spawn', 'block')]",
            "TOOLS.append({'name': 'sleep', 'description': 'sleep', 'inputSchema': {'type': 'object',",
            "              'properties': {'ms': {'type': 'integer'}}, 'required': ['ms']}})",
            "children = []",
            "def answer(req, **f):",
            "    f['id'] = req['id']",
            "    sys.stdout.write(json.dumps(f) + '\\n'); sys.stdout.flush()",
            "for line in sys.stdin:",
            "    req = json.loads(line); m = req.get('method'); p = req.get('params') or {}",
            "    if m == 'activate': answer(req, tools=TOOLS)",
            "    elif m == 'deactivate': break",
            "    elif m == 'execute_tool':",
            "        name = p['toolName']; args = json.loads(p.get('input') or '{}')",
            "        if name == 'pid': answer(req, result=str(os.getpid()))",
            "        elif name == 'spawn':",
            "            children.append(subprocess.Popen(['sleep', '300'], stdin=subprocess.DEVNULL))",
            "            answer(req, result=str(children[-1].pid))",
            "        elif name == 'sleep':",
            "            time.sleep(args['ms'] / 1000.0); answer(req, result='slept %d' % args['ms'])",
            "        elif name == 'block':",
            "            time.sleep(3600)",
            "");

    @TempDir
    Path dir;

    /** The blocking test plugin, and the Python and Node examples of docs/examples/plugins. */
    private Path plugins() throws IOException {
        Path p = Files.createDirectories(dir.resolve("plugins/blocky"));
        Files.writeString(p.resolve("plugin.py"), PLUGIN);
        Files.writeString(p.resolve("plugin.json"), "{\"command\":\"python3\",\"args\":[\"-u\",\"plugin.py\"],"
                + "\"timeoutMs\":600000}");
        Path examples = Path.of(System.getProperty("toolbus.root", ".."), "docs", "examples", "plugins");
        for (String example : new String[] {"python-echo", "node-echo"}) {
            Path to = Files.createDirectories(p.getParent().resolve(example));
            try (var files = Files.list(examples.resolve(example))) {
                for (Path f : files.toList()) {
                    Files.copy(f, to.resolve(f.getFileName()));
                }
            }
        }
        return p.getParent();
    }

    private static void awaitAllGone(List<ProcessHandle> processes) {
        await().atMost(Duration.ofSeconds(10)).until(() -> processes.stream().noneMatch(ProcessHandle::isAlive));
    }

    private static String turn(RunningServer s, String stream, String tool, String args) throws Exception {
        String body = RunningServer.curl("-s", s.url() + "/v1/turns", "-d", "{\"type\":\"tool_call\",\"stream_id\":\""
                + stream + "\",\"name\":\"" + tool + "\",\"arguments\":" + args + "}");
        JsonNode events = RunningServer.JSON.readTree(body);
        return events.get(0).path("content").asText();
    }

    private static Process turnInBackground(RunningServer s, String tool, String args) throws IOException {
        return new ProcessBuilder("curl", "-s", s.url() + "/v1/turns", "-d",
                "{\"type\":\"tool_call\",\"stream_id\":\"bg\",\"name\":\"" + tool + "\",\"arguments\":" + args + "}")
                .start();
    }

    private static double inflight(RunningServer s) throws Exception {
        return RunningServer.curl("-s", s.url() + "/metrics").lines()
                .filter(l -> l.startsWith("toolbus_tool_inflight{") || l.startsWith("toolbus_tool_inflight "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void sigterm_letsThePluginCallFinish_thenExitsPromptly_leavingNoProcess() throws Exception {
        RunningServer s = RunningServer.start("serve-plugins-sigterm", null, "--gateway", "127.0.0.1:0",
                "--plugins", plugins().toString());
        try {
            long pid = Long.parseLong(turn(s, "a", "pid", "{}"));
            long child = Long.parseLong(turn(s, "b", "spawn", "{}"));
            assertThat(alive(pid)).isTrue();
            assertThat(alive(child)).isTrue();
            assertThat(turn(s, "c", "py_echo", "{\"text\":\"py\"}")).isEqualTo("py");
            assertThat(turn(s, "d", "node_echo", "{\"text\":\"node\"}")).isEqualTo("node");
            // three plugins (python, python, node), the child, the watchdog
            List<ProcessHandle> all = s.process.descendants();
            assertThat(all).hasSizeGreaterThanOrEqualTo(5);
            Process curl = turnInBackground(s, "sleep", "{\"ms\":1500}");
            await().atMost(Duration.ofSeconds(30)).until(() -> inflight(s) >= 1);

            long t0 = System.nanoTime();
            s.process.terminate();

            String body = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(curl.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(RunningServer.JSON.readTree(body).get(0).path("content").asText()).isEqualTo("slept 1500");
            s.process.awaitExit(Duration.ofSeconds(30));
            Duration took = Duration.ofNanos(System.nanoTime() - t0);
            assertThat(took).as("SIGTERM to exit").isLessThan(Duration.ofSeconds(10));
            assertThat(s.process.stderr()).contains("all turns drained; stopped")
                    .doesNotContain("stopping the plugins failed").doesNotContain("Timeout on blocking read");
            awaitAllGone(all);
        } finally {
            s.close();
        }
    }

    @Test
    void sigkill_ofServe_killsABlockedPluginAndItsChildren() throws Exception {
        RunningServer s = RunningServer.start("serve-plugins-sigkill", null, "--gateway", "127.0.0.1:0",
                "--plugins", plugins().toString());
        Process curl = null;
        try {
            long pid = Long.parseLong(turn(s, "a", "pid", "{}"));
            long child = Long.parseLong(turn(s, "b", "spawn", "{}"));
            // the plugin is now stuck in a call and reads no stdin: only a kill ends it
            curl = turnInBackground(s, "block", "{}");
            await().atMost(Duration.ofSeconds(30)).until(() -> inflight(s) >= 1);
            List<ProcessHandle> all = s.process.descendants();
            assertThat(all).hasSizeGreaterThanOrEqualTo(5);

            s.process.kill();

            await().atMost(Duration.ofSeconds(10)).until(() -> !alive(pid) && !alive(child));
            awaitAllGone(all); // the examples, which do see their stdin close, and the watchdog too
        } finally {
            if (curl != null) {
                curl.destroyForcibly();
            }
            s.close();
        }
    }
}
