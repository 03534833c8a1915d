package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

/** Issue 8 §4: a cancelled (or timed-out) call gets {@code cancel}; the process is kept unless it stays silent. */
class PluginCancelTest extends PluginFixture {

    private static ToolSpec tool(StdioPluginHost host, String name) {
        return host.tools().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
    }

    private static ToolContext ctx(String callId) {
        return ToolContext.builder().streamId("s").turnId("t").toolCallId(callId).build();
    }

    private static ToolResult run(StdioPluginHost host, String name, String args, String callId) {
        return tool(host, name).handler().call(ToolArguments.parse(args), ctx(callId)).block(WAIT);
    }

    private static Disposable start(StdioPluginHost host, String name, String args, String callId,
                                    CompletableFuture<ToolResult> into) {
        return tool(host, name).handler().call(ToolArguments.parse(args), ctx(callId))
                .subscribe(into::complete, into::completeExceptionally);
    }

    @Test
    void concurrent_cancelOfOneCallReachesThePlugin_theOtherCallAndTheProcessAreUnharmed() throws Exception {
        testPlugin("c", ",\"concurrent\":true", Map.of("CONCURRENT", "1"));
        StdioPluginHost host = load();
        long pid = host.plugins().get(0).pid();
        CompletableFuture<ToolResult> a = new CompletableFuture<>();
        CompletableFuture<ToolResult> b = new CompletableFuture<>();
        Disposable callA = start(host, "wait", "{\"ms\":30000}", "call-a", a);
        start(host, "wait", "{\"ms\":1500}", "call-b", b);
        await().atMost(WAIT).until(() -> host.pendingCount() == 2);

        callA.dispose();

        await().atMost(WAIT).until(() -> run(host, "cancels", "{}", "q").content().contains("call-a"));
        JsonNode cancels = Json.mapper().readTree(run(host, "cancels", "{}", "q").content());
        assertThat(cancels).hasSize(1);
        assertThat(cancels.get(0).path("toolCallId").asText()).isEqualTo("call-a");
        assertThat(cancels.get(0).path("id").isIntegralNumber()).isTrue();
        assertThat(b.get().content()).isEqualTo("waited");
        assertThat(a).isNotDone();
        assertThat(host.plugins().get(0).pid()).isEqualTo(pid);
        assertThat(host.plugins().get(0).starts()).isEqualTo(1);
    }

    @Test
    void serialized_pluginThatIgnoresCancelIsKilledAfterTheGrace_andTheNextCallWaitsForTheNewProcess() {
        testPlugin("s", ",\"cancelGraceMs\":500,\"restartBackoffMs\":50", Map.of());
        StdioPluginHost host = load();
        long first = Long.parseLong(run(host, "pid", "{}", "p1").content());
        CompletableFuture<ToolResult> hung = new CompletableFuture<>();
        Disposable d = start(host, "sleep", "{\"ms\":600000}", "hung", hung);
        await().atMost(WAIT).until(() -> host.pendingCount() == 1);

        d.dispose();
        // queued behind the cancelled call: it is not sent to the stuck process, it runs on the next one
        long second = Long.parseLong(run(host, "pid", "{}", "p2").content());

        assertThat(second).isNotEqualTo(first);
        awaitGone(first);
        assertThat(host.plugins().get(0).starts()).isEqualTo(2);
    }

    @Test
    void cancelGraceZero_killsAtOnceAsBefore() {
        testPlugin("z", ",\"cancelGraceMs\":0,\"restartBackoffMs\":50", Map.of("CONCURRENT", "1"));
        StdioPluginHost host = load();
        long first = host.plugins().get(0).pid();
        CompletableFuture<ToolResult> r = new CompletableFuture<>();
        Disposable d = start(host, "wait", "{\"ms\":30000}", "w", r);
        await().atMost(WAIT).until(() -> host.pendingCount() == 1);
        d.dispose();
        awaitGone(first);
    }
}
