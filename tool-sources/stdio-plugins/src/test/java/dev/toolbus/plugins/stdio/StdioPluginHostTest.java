package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolArguments;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StdioPluginHostTest extends PluginFixture {

    private long pid(ToolExecutor ex) {
        ToolResultEvent r = call(ex, "pid", "{}");
        assertThat(r.isError()).as(r.content()).isFalse();
        return Long.parseLong(r.content());
    }

    @Test
    void call_answersTextErrorsValuesAndMediaThroughTheExecutor() {
        testPlugin("t", "", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);

        assertThat(call(ex, "echo", "{\"text\":\"hi\"}").content()).isEqualTo("hi");

        ToolResultEvent fail = call(ex, "fail", "{}");
        assertThat(fail.isError()).isTrue();
        assertThat(fail.error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
        assertThat(fail.content()).contains("it went wrong");

        List<OutboundEvent> events = turn(ex, ToolCall.ofJson("v", "value", "{}"));
        assertThat(results(events).get(0).content()).startsWith("a value").contains("type=\"image\"");
        assertThat(events).filteredOn(e -> e instanceof UserMessageEvent).hasSize(1);

        // an answer without an id still reaches the one call waiting
        assertThat(call(ex, "no_id", "{}").content()).isEqualTo("anonymous");
        // stderr lines are logged with the plugin id; the call is unaffected
        assertThat(call(ex, "stderr", "{\"text\":\"to the log\"}").content()).isEqualTo("logged");
        // the executor checks arguments against the declared schema before the plugin sees them
        assertThat(call(ex, "echo", "{}").error().code()).isEqualTo(ErrorCode.INVALID_ARGUMENTS);
    }

    @Test
    void tools_areDeclaredByActivateWithPluginIdAndSchemas() {
        testPlugin("t", ",\"channels\":[\"web\"]", Map.of());
        StdioPluginHost host = load();
        assertThat(host.tools()).extracting(s -> s.name())
                .contains("echo", "sleep", "crash", "noise", "big", "pid", "spawn", "rendezvous");
        var echo = host.tools().stream().filter(s -> s.name().equals("echo")).findFirst().orElseThrow().definition();
        assertThat(echo.pluginId()).isEqualTo("t");
        assertThat(echo.channels()).containsExactly("web");
        assertThat(echo.inputSchema().path("required").toString()).isEqualTo("[\"text\"]");
        var sleep = host.tools().stream().filter(s -> s.name().equals("sleep")).findFirst().orElseThrow().definition();
        assertThat(sleep.inputSchema().path("properties").has("ms")).isTrue();
        StdioPluginStatus status = host.plugins().get(0);
        assertThat(status.id()).isEqualTo("t");
        assertThat(status.running()).isTrue();
        assertThat(status.starts()).isEqualTo(1);
        assertThat(status.livePids()).containsExactly(status.pid());
    }

    @Test
    void timeout_stopsTheHungPluginAndTheNextCallRestartsIt() {
        testPlugin("t", ",\"timeoutMs\":1500,\"stopGraceMs\":300,\"restartBackoffMs\":50", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);
        long first = pid(ex);

        ToolResultEvent hung = call(ex, "sleep", "{\"ms\":600000}");
        assertThat(hung.isError()).isTrue();
        assertThat(hung.error().code()).isEqualTo(ErrorCode.TIMEOUT);
        awaitGone(first);

        long second = pid(ex);
        assertThat(second).isNotEqualTo(first);
        assertThat(call(ex, "echo", "{\"text\":\"back\"}").content()).isEqualTo("back");
        assertThat(host.plugins().get(0).starts()).isEqualTo(2);
        assertThat(host.plugins().get(0).failures()).isZero();
    }

    @Test
    void timeout_callsQueuedBehindAHungCallRunOnTheRestartedProcess() {
        // sleep declares its own 1500 ms timeout; echo has the executor's 20 s
        testPlugin("t", ",\"stopGraceMs\":200,\"restartBackoffMs\":50", Map.of());
        ToolExecutor ex = executor(load());
        // serialized: echo waits behind the hung sleep (its wait counts toward its own timeout),
        // then runs on a fresh process once sleep has timed out
        List<ToolResultEvent> rs = results(turn(ex, ToolCall.ofJson("a", "sleep", "{\"ms\":600000}"),
                ToolCall.ofJson("b", "echo", "{\"text\":\"queued\"}")));
        assertThat(rs.get(0).error().code()).isEqualTo(ErrorCode.TIMEOUT);
        assertThat(rs.get(1).isError()).as(rs.get(1).content()).isFalse();
        assertThat(rs.get(1).content()).isEqualTo("queued");
    }

    @Test
    void crash_midCallIsAnErrorResultAndTheNextCallRestarts() {
        testPlugin("t", ",\"restartBackoffMs\":50", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);
        long first = pid(ex);

        ToolResultEvent crashed = call(ex, "crash", "{\"code\":3}");
        assertThat(crashed.isError()).isTrue();
        assertThat(crashed.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(crashed.content()).contains("plugin 't' exited with code 3");
        awaitGone(first);

        assertThat(call(ex, "echo", "{\"text\":\"again\"}").content()).isEqualTo("again");
        assertThat(pid(ex)).isNotEqualTo(first);
    }

    @Test
    void malformedLines_nonJsonIsSkippedAndNonObjectsFailTheCall() {
        testPlugin("t", "", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);
        long first = pid(ex);

        assertThat(call(ex, "noise", "{}").content()).isEqualTo("after noise");
        ToolResultEvent array = call(ex, "non_object", "{}");
        assertThat(array.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(array.content()).contains("not an object");
        // neither breaks the process
        assertThat(pid(ex)).isEqualTo(first);
    }

    @Test
    void overlongLine_failsTheCallAndRestartsThePlugin() {
        testPlugin("t", ",\"maxLineBytes\":8192,\"stopGraceMs\":200,\"restartBackoffMs\":50", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);
        long first = pid(ex);

        ToolResultEvent big = call(ex, "big", "{\"bytes\":5000000}");
        assertThat(big.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(big.content()).contains("longer than 8192 bytes");
        awaitGone(first);

        assertThat(call(ex, "big", "{\"bytes\":100}").content()).hasSize(100);
        assertThat(pid(ex)).isNotEqualTo(first);
    }

    @Test
    void concurrent_pluginTakesSeveralCallsAndAnswersThemById() {
        testPlugin("t", ",\"concurrent\":true", Map.of("CONCURRENT", "1"));
        ToolExecutor ex = executor(load());
        // each call only answers once both are running inside the plugin at the same time
        List<ToolResultEvent> rs = results(turn(ex, ToolCall.ofJson("a", "rendezvous", "{}"),
                ToolCall.ofJson("b", "rendezvous", "{}")));
        assertThat(rs).extracting(ToolResultEvent::toolCallId).containsExactly("a", "b");
        assertThat(rs).extracting(ToolResultEvent::content).containsExactly("met", "met");
    }

    @Test
    void serialized_pluginNeverSeesTwoCallsAtOnce() {
        // the script could run calls in parallel; the host must not let it
        testPlugin("t", "", Map.of("CONCURRENT", "1"));
        ToolExecutor ex = executor(load());
        List<ToolResultEvent> rs = results(turn(ex, ToolCall.ofJson("a", "inflight", "{\"ms\":300}"),
                ToolCall.ofJson("b", "inflight", "{\"ms\":300}"), ToolCall.ofJson("c", "inflight", "{\"ms\":300}")));
        assertThat(rs).extracting(ToolResultEvent::content).containsExactly("1", "1", "1");
    }

    @Test
    void close_leavesNoProcessBehindEvenChildrenOrPluginsIgnoringDeactivate() {
        testPlugin("a", "", Map.of());
        testPlugin("b", ",\"stopGraceMs\":300", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);
        long child = Long.parseLong(call(ex, "spawn", "{}").content());
        assertThat(alive(child)).isTrue();
        List<Long> pids = host.plugins().stream().map(StdioPluginStatus::pid).toList();
        assertThat(pids).hasSize(2).allMatch(PluginFixture::alive);

        // tool names clash (both plugins run the same script): plugin a's tools win, so talk to b directly
        var ignoring = host.tools().stream().filter(s -> s.definition().pluginId().equals("b")
                && s.name().equals("ignore_deactivate")).findFirst().orElseThrow();
        assertThat(ignoring.handler().call(ToolArguments.parse("{}"), ToolContext.builder().build())
                .block(WAIT).content()).isEqualTo("ignoring");

        host.closeGracefully().block(WAIT);

        awaitGone(child, pids.get(0), pids.get(1));
        awaitNoTestPluginProcess();
        assertThat(host.plugins()).allSatisfy(s -> {
            assertThat(s.running()).isFalse();
            assertThat(s.livePids()).isEmpty();
        });
        ToolResultEvent after = call(ex, "echo", "{\"text\":\"x\"}");
        assertThat(after.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(after.content()).contains("closed");
    }

    @Test
    void load_optionalPluginThatFailsToActivateIsSkipped() {
        testPlugin("good", "", Map.of());
        testPlugin("bad", ",\"optional\":true", Map.of("ACTIVATE", "error"));
        StdioPluginHost host = load();
        assertThat(host.plugins()).extracting(StdioPluginStatus::id).containsExactly("good");
        assertThat(host.skipped()).containsOnlyKeys("bad");
        assertThat(host.skipped().get("bad")).contains("not today");
    }

    @Test
    void load_requiredPluginThatFailsToActivateFailsTheLoadAndStopsTheOthers() {
        testPlugin("good", "", Map.of());
        testPlugin("bad", "", Map.of("ACTIVATE", "error"));
        assertThatThrownBy(this::load)
                .isInstanceOf(StdioPluginException.class)
                .hasMessageContaining("required plugin 'bad' failed to start")
                .hasMessageContaining("refused to activate: not today");
        awaitNoTestPluginProcess();
    }

    @Test
    void load_activationThatHangsTimesOutAndIsKilled() {
        testPlugin("slow", ",\"activationTimeoutMs\":700", Map.of("ACTIVATE", "hang"));
        assertThatThrownBy(this::load).hasMessageContaining("did not answer activate within 700 ms");
        awaitNoTestPluginProcess();
    }

    @Test
    void load_crashDuringActivationNamesTheExitCode() {
        testPlugin("dies", "", Map.of("ACTIVATE", "crash"));
        assertThatThrownBy(this::load).hasMessageContaining("plugin 'dies' exited with code 5");
    }

    @Test
    void load_badToolListFailsTheLoad() {
        testPlugin("odd", "", Map.of("ACTIVATE", "badtools"));
        assertThatThrownBy(this::load).hasMessageContaining("not a list");
        awaitNoTestPluginProcess();
    }

    @Test
    void load_missingCommandFailsClearly() {
        plugin("ghost", "{\"command\":\"./no-such-program\"}");
        assertThatThrownBy(this::load).isInstanceOf(StdioPluginException.class)
                .hasMessageContaining("cannot start plugin 'ghost'");
    }

    @Test
    void load_rejectsBadFoldersManifestsAndDuplicateIds() {
        assertThatThrownBy(() -> load(root.resolve("missing"))).hasMessageContaining("does not exist");
        plugin("one", "{\"id\":\"same\",\"command\":\"x\"}");
        plugin("two", "{\"id\":\"same\",\"command\":\"x\"}");
        assertThatThrownBy(this::load).hasMessageContaining("two plugins have the id 'same'");
    }

    @Test
    void load_invalidOptionalManifestIsSkippedButAnInvalidRequiredOneFails() {
        plugin("broken", "{\"optional\":true,\"args\":\"oops\",\"command\":\"x\"}");
        plugin("notaplugin", "{}").resolve(PluginManifest.FILE_NAME).toFile().delete();
        StdioPluginHost host = load();
        assertThat(host.tools()).isEmpty();
        assertThat(host.skipped()).containsOnlyKeys("broken");
        plugin("required", "{\"args\":\"oops\",\"command\":\"x\"}");
        assertThatThrownBy(this::load).hasMessageContaining("invalid plugin manifest").hasMessageContaining("'args'");
    }

    @Test
    void restart_backoffDelaysTheNextStartAfterRepeatedFailures() {
        testPlugin("t", ",\"restartBackoffMs\":400,\"restartBackoffMaxMs\":400", Map.of());
        StdioPluginHost host = load();
        ToolExecutor ex = executor(host);
        assertThat(call(ex, "crash", "{}").isError()).isTrue();
        long t0 = System.nanoTime();
        assertThat(call(ex, "echo", "{\"text\":\"x\"}").content()).isEqualTo("x");
        // the restart waited for the backoff (minus the time since the crash), so it is not instant
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isGreaterThan(Duration.ofMillis(100));
    }
}
