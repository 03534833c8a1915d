package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Issue 9: what a plugin may see of the host, how much it may log, and how it is stopped. */
class PluginHardeningTest extends PluginFixture {

    @Test
    void environment_isMinimal_noTokenOrOtherSecret_plusWhatTheManifestAsksFor() throws Exception {
        // surefire gives this JVM TOOLBUS_TOKEN and SOME_API_KEY, standing in for a server's secrets
        assertThat(System.getenv("TOOLBUS_TOKEN")).isNotNull();
        testPlugin("plain", "", Map.of("OWN", "mine"));
        testPlugin("asks", ",\"inheritEnv\":[\"SOME_API_KEY\",\"NOT_SET_ANYWHERE\"]", Map.of());
        StdioPluginHost host = load();

        JsonNode plain = env(host, "plain");
        Set<String> names = new HashSet<>();
        plain.fieldNames().forEachRemaining(names::add);
        assertThat(names).doesNotContain("TOOLBUS_TOKEN", "SOME_API_KEY").contains("PATH", "OWN", "TOOLBUS_PLUGIN_ID");
        // of the host's variables only the minimal set arrives (a pyenv shim or a shell may add its own)
        assertThat(names).filteredOn(n -> System.getenv().containsKey(n) && !n.matches("_?PYENV.*|PWD|SHLVL|_"))
                .allMatch(n -> PluginEnvironment.BASE.contains(n) || n.startsWith("LC_"), "only the minimal set");
        assertThat(plain.path("OWN").asText()).isEqualTo("mine");
        assertThat(plain.path("TOOLBUS_PLUGIN_ID").asText()).isEqualTo("plain");

        JsonNode asks = env(host, "asks");
        assertThat(asks.path("SOME_API_KEY").asText()).isEqualTo("test-api-key");
        assertThat(asks.has("TOOLBUS_TOKEN")).isFalse();
        assertThat(asks.has("NOT_SET_ANYWHERE")).isFalse();
    }

    private static JsonNode env(StdioPluginHost host, String plugin) throws Exception {
        var spec = host.tools().stream().filter(s -> s.definition().pluginId().equals(plugin) && s.name().equals("env"))
                .findFirst().orElseThrow();
        String text = spec.handler().call(dev.toolbus.tool.ToolArguments.parse("{}"),
                dev.toolbus.tool.ToolContext.builder().build()).block(WAIT).content();
        return Json.mapper().readTree(text);
    }

    @Test
    void stderrFlood_isRateLimitedAndCounted_andTheCallStillAnswers() {
        testPlugin("loud", ",\"stderrBytesPerSecond\":20000,\"stderrLineBytes\":200", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);
        long t0 = System.nanoTime();

        ToolResultEvent r = call(ex, "spam", "{\"ms\":2000,\"width\":1000}");

        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(r.isError()).as(r.content()).isFalse();
        long written = Long.parseLong(r.content());
        assertThat(written).isGreaterThan(1000);
        StdioPluginStatus s = host.plugins().get(0);
        // every line is cut to 200 bytes; at most the burst plus the rate for the time taken got logged
        assertThat(s.stderrLoggedBytes()).isLessThanOrEqualTo((long) (20000 * (seconds + 1.5)));
        assertThat(s.stderrDroppedLines()).isGreaterThan(written / 2);
        // the process is fine
        assertThat(call(ex, "echo", "{\"text\":\"quiet now\"}").content()).isEqualTo("quiet now");
    }

    @Test
    void killAtShutdown_failsTheCallInFlightAtOnce_andAGracefulCloseAfterItCompletes() {
        testPlugin("t", "", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);
        long child = Long.parseLong(call(ex, "spawn", "{}").content());
        long pid = host.plugins().get(0).pid();
        CompletableFuture<List<ToolResultEvent>> inFlight = ex.execute(ToolCallsEvent.of("s", "t-kill",
                        List.of(ToolCall.ofJson("c", "sleep", "{\"ms\":600000}"))))
                .filter(e -> e instanceof ToolResultEvent).map(e -> (ToolResultEvent) e).collectList().toFuture();
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> alive(pid) && testPluginProcesses().size() >= 1);

        host.killNow(); // what the JVM shutdown hook runs

        List<ToolResultEvent> rs = inFlight.orTimeout(5, TimeUnit.SECONDS).join();
        assertThat(rs.get(0).error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(rs.get(0).content()).contains("shutting down");
        // the graceful stop that follows on the same host does not wait for a future nobody completes
        host.closeGracefully().block(Duration.ofSeconds(5));
        awaitGone(pid, child);
    }

    @Test
    void processes_runInTheirOwnProcessGroup_watchedByTheWatchdog() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(OrphanGuard.available(), "setsid is not available");
        testPlugin("t", "", Map.of());
        StdioPluginHost host = load();
        long pid = host.plugins().get(0).pid();
        String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        assertThat(Long.parseLong(f[2])).as("pgid").isEqualTo(pid);
        assertThat(OrphanGuard.watchdogPid()).isPositive();
    }

    @Test
    void crash_leavesNoOrphanedChildBehind_theRestOfTheProcessGroupIsKilled() {
        org.junit.jupiter.api.Assumptions.assumeTrue(OrphanGuard.available(), "setsid is not available");
        testPlugin("t", ",\"restartBackoffMs\":50", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);
        long pid = host.plugins().get(0).pid();
        long child = Long.parseLong(call(ex, "spawn", "{}").content());

        // the plugin exits on its own: its child is re-parented and no longer one of its descendants
        assertThat(call(ex, "crash", "{\"code\":3}").error().code()).isEqualTo(ErrorCode.TOOL_FAILED);

        awaitGone(pid, child);
    }
}
