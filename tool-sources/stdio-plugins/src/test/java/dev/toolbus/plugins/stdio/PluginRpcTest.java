package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.ToolContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * {@link PluginRpc} on its own, without a process: what it writes is recorded, and the plugin's lines
 * are handed to it as the stdout reader would. Correlation by id, answers for no waiting request, the
 * cancel of a pending call and its grace (on virtual time), and answers after close.
 */
class PluginRpcTest {

    /** The plugin's stdin: every line written, decoded; writes can be refused or made to fail. */
    private static final class Stdin implements PluginRpc.Lines {
        final List<JsonNode> written = new CopyOnWriteArrayList<>();
        final List<Consumer<String>> failures = new CopyOnWriteArrayList<>();
        volatile boolean full;

        @Override
        public boolean write(byte[] line, Consumer<String> failed) {
            if (full) {
                return false;
            }
            assertThat(line[line.length - 1]).as("one line per message").isEqualTo((byte) '\n');
            try {
                written.add(Json.mapper().readTree(new String(line, StandardCharsets.UTF_8)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            failures.add(failed);
            return true;
        }

        JsonNode last() {
            return written.get(written.size() - 1);
        }

        List<String> methods() {
            List<String> out = new ArrayList<>();
            written.forEach(n -> out.add(n.path("method").asText()));
            return out;
        }
    }

    private final Stdin stdin = new Stdin();
    private final List<String> unresponsive = new CopyOnWriteArrayList<>();
    private final VirtualTimeScheduler time = VirtualTimeScheduler.create();

    private PluginRpc rpc(long cancelGraceMs) {
        PluginManifest m = PluginManifest.parse(Json.mapper().createObjectNode().put("id", "p").put("command", "x")
                .put("cancelGraceMs", cancelGraceMs), Path.of("/tmp/p"));
        return new PluginRpc(m, stdin, unresponsive::add, time);
    }

    private static ObjectNode params(String tool) {
        return Json.mapper().createObjectNode().put("toolName", tool);
    }

    private static ToolContext ctx(String callId) {
        return ToolContext.builder().streamId("s").turnId("t").toolCallId(callId).toolName("tool").build();
    }

    /** A lease that counts what happens to it. */
    private static final class Lease implements Permits.Lease {
        volatile boolean retained;
        volatile int released;

        @Override
        public void retain() {
            retained = true;
        }

        @Override
        public void release() {
            released++;
        }
    }

    @Test
    void answersReachTheirRequestsById_inWhateverOrderTheyCome() {
        PluginRpc rpc = rpc(2000);
        List<JsonNode> first = new CopyOnWriteArrayList<>();
        List<JsonNode> second = new CopyOnWriteArrayList<>();
        rpc.execute(params("a"), ctx("c1"), null).subscribe(first::add);
        rpc.execute(params("b"), ctx("c2"), null).subscribe(second::add);
        assertThat(stdin.methods()).containsExactly("execute_tool", "execute_tool");
        long idA = stdin.written.get(0).path("id").asLong();
        long idB = stdin.written.get(1).path("id").asLong();
        assertThat(idA).isNotEqualTo(idB);
        assertThat(stdin.written.get(0).path("params").path("toolName").asText()).isEqualTo("a");
        assertThat(rpc.pendingCount()).isEqualTo(2);

        rpc.onLine("{\"id\":" + idB + ",\"result\":\"for b\"}");
        rpc.onLine("{\"id\":\"" + idA + "\",\"result\":\"for a\"}"); // an id echoed as a string counts too

        assertThat(first).singleElement().satisfies(n -> assertThat(n.path("result").asText()).isEqualTo("for a"));
        assertThat(second).singleElement().satisfies(n -> assertThat(n.path("result").asText()).isEqualTo("for b"));
        assertThat(rpc.pendingCount()).isZero();
    }

    @Test
    void anAnswerWithAnUnknownId_isDropped_andTheWaitingRequestStillWaits() {
        PluginRpc rpc = rpc(2000);
        List<JsonNode> answers = new CopyOnWriteArrayList<>();
        rpc.request("activate", params("x")).subscribe(answers::add);
        long id = stdin.last().path("id").asLong();

        rpc.onLine("{\"id\":" + (id + 100) + ",\"result\":\"stray\"}");
        rpc.onLine("not json at all");
        rpc.onLine("{\"method\":\"unknown_method\",\"params\":{}}");
        assertThat(answers).isEmpty();
        assertThat(rpc.pendingCount()).isOne();

        rpc.onLine("{\"id\":" + id + ",\"tools\":[]}");
        assertThat(answers).hasSize(1);
        assertThat(rpc.pendingCount()).isZero();
    }

    @Test
    void anAnswerWithoutId_goesToTheOnlyWaitingRequest_andToNoneWhenTwoWait() {
        PluginRpc rpc = rpc(2000);
        List<JsonNode> answers = new CopyOnWriteArrayList<>();
        rpc.execute(params("a"), ctx("c1"), null).subscribe(answers::add);
        rpc.onLine("{\"result\":\"xbot style\"}");
        assertThat(answers).singleElement().satisfies(n -> assertThat(n.path("result").asText()).isEqualTo("xbot style"));
        // an id that cannot be one of ours counts as none
        rpc.execute(params("a"), ctx("c1"), null).subscribe(answers::add);
        rpc.onLine("{\"id\":\"not-a-number\",\"result\":\"odd id\"}");
        assertThat(answers).hasSize(2);
        answers.clear();

        rpc.execute(params("b"), ctx("c2"), null).subscribe(answers::add);
        rpc.execute(params("c"), ctx("c3"), null).subscribe(answers::add);
        rpc.onLine("{\"result\":\"whose?\"}");
        assertThat(answers).isEmpty();
        assertThat(rpc.pendingCount()).isEqualTo(2);
    }

    @Test
    void aJsonAnswerThatIsNotAnObject_failsItsRequest() {
        PluginRpc rpc = rpc(2000);
        StepVerifier.create(rpc.request("activate", params("x")))
                .then(() -> rpc.onLine("[1, 2]"))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(StdioPluginException.class)
                        .hasMessageContaining("answered with JSON that is not an object"))
                .verify(Duration.ofSeconds(5));
        assertThat(rpc.pendingCount()).isZero();
    }

    @Test
    void cancellingAPendingCall_sendsCancel_holdsItsLease_andDiscardsTheLateAnswer() {
        PluginRpc rpc = rpc(2000);
        Lease lease = new Lease();
        List<JsonNode> answers = new CopyOnWriteArrayList<>();
        Disposable call = rpc.execute(params("slow"), ctx("call_7"), lease).subscribe(answers::add);
        long id = stdin.last().path("id").asLong();

        call.dispose();
        JsonNode cancel = stdin.last();
        assertThat(cancel.path("method").asText()).isEqualTo("cancel");
        assertThat(cancel.path("params").path("id").asLong()).isEqualTo(id);
        assertThat(cancel.path("params").path("toolCallId").asText()).isEqualTo("call_7");
        assertThat(cancel.path("params").path("reason").asText()).isEqualTo(ToolContext.CANCELLED);
        assertThat(lease.retained).as("the permit is kept until the plugin answers").isTrue();
        assertThat(lease.released).isZero();
        assertThat(rpc.pendingCount()).as("it waits for any answer").isOne();

        time.advanceTimeBy(Duration.ofMillis(1999));
        rpc.onLine("{\"id\":" + id + ",\"error\":\"cancelled\"}");
        assertThat(answers).as("the answer of a cancelled call is discarded").isEmpty();
        assertThat(lease.released).isOne();
        assertThat(rpc.pendingCount()).isZero();
        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(unresponsive).as("answered within the grace").isEmpty();
    }

    @Test
    void aCancelledCallNotAnsweredWithinTheGrace_reportsTheProcessUnresponsive() {
        PluginRpc rpc = rpc(2000);
        Disposable call = rpc.execute(params("stuck"), ctx("call_8"), null).subscribe();
        call.dispose();
        time.advanceTimeBy(Duration.ofMillis(1999));
        assertThat(unresponsive).isEmpty();
        time.advanceTimeBy(Duration.ofMillis(1));
        assertThat(unresponsive).singleElement().asString().contains("did not answer a cancelled call (call_8)")
                .contains("2000 ms");
    }

    @Test
    void withCancelGraceZero_aCancelReportsTheProcessUnresponsiveAtOnce_withoutWritingCancel() {
        PluginRpc rpc = rpc(0);
        Disposable call = rpc.execute(params("stuck"), ctx("call_9"), null).subscribe();
        call.dispose();
        assertThat(unresponsive).singleElement().asString().contains("cancelGraceMs is 0").contains("call_9");
        assertThat(stdin.methods()).containsExactly("execute_tool");
    }

    @Test
    void close_failsWaitingRequests_releasesLeases_andDropsAnswersThatComeAfter() {
        PluginRpc rpc = rpc(2000);
        Lease waitingLease = new Lease();
        Lease cancelledLease = new Lease();
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        List<JsonNode> answers = new CopyOnWriteArrayList<>();
        rpc.execute(params("a"), ctx("c1"), waitingLease).subscribe(answers::add, errors::add);
        long waitingId = stdin.last().path("id").asLong();
        Disposable cancelled = rpc.execute(params("b"), ctx("c2"), cancelledLease).subscribe(answers::add, errors::add);
        long cancelledId = stdin.written.get(1).path("id").asLong();
        cancelled.dispose();

        rpc.close("plugin 'p' exited with code 3");
        assertThat(rpc.isClosed()).isTrue();
        assertThat(errors).singleElement().satisfies(e -> assertThat(e).isInstanceOf(StdioPluginException.class)
                .hasMessage("plugin 'p' exited with code 3"));
        assertThat(waitingLease.released).isOne();
        assertThat(cancelledLease.released).as("a cancelled call gives its permit back too").isOne();
        assertThat(rpc.pendingCount()).isZero();

        rpc.onLine("{\"id\":" + waitingId + ",\"result\":\"too late\"}");
        rpc.onLine("{\"id\":" + cancelledId + ",\"result\":\"too late\"}");
        assertThat(answers).isEmpty();
        assertThat(errors).hasSize(1);
        time.advanceTimeBy(Duration.ofSeconds(10));
        assertThat(unresponsive).as("no grace runs out after close").isEmpty();

        int written = stdin.written.size();
        StepVerifier.create(rpc.request("activate", params("x")))
                .expectErrorSatisfies(e -> assertThat(e).hasMessage("plugin 'p' exited with code 3"))
                .verify(Duration.ofSeconds(5));
        assertThat(stdin.written).as("nothing is written after close").hasSize(written);
        rpc.close("a second reason");
        StepVerifier.create(rpc.request("activate", params("x")))
                .expectErrorSatisfies(e -> assertThat(e).hasMessage("plugin 'p' exited with code 3"))
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void aWriteThatFails_orIsRefused_failsItsRequestWithTheReason() {
        PluginRpc rpc = rpc(2000);
        List<Throwable> errors = new CopyOnWriteArrayList<>();
        rpc.request("activate", params("x")).subscribe(null, errors::add);
        stdin.failures.get(0).accept("cannot write to plugin 'p': Broken pipe");
        assertThat(errors).singleElement().satisfies(e -> assertThat(e).hasMessage("cannot write to plugin 'p': Broken pipe"));

        stdin.full = true;
        StepVerifier.create(rpc.execute(params("a"), ctx("c1"), null))
                .expectErrorSatisfies(e -> assertThat(e).hasMessage("plugin 'p' has too many writes queued"))
                .verify(Duration.ofSeconds(5));
        assertThat(rpc.pendingCount()).isZero();
    }

    @Test
    void aMessageForACallThatHasEnded_isAnsweredNotOk() {
        PluginRpc rpc = rpc(2000);
        rpc.onLine("{\"method\":\"send\",\"params\":{\"id\":42,\"rid\":\"r1\",\"content\":\"hello\"}}");
        JsonNode reply = stdin.last();
        assertThat(reply.path("method").asText()).isEqualTo("reply");
        assertThat(reply.path("params").path("rid").asText()).isEqualTo("r1");
        assertThat(reply.path("params").path("ok").asBoolean()).isFalse();
        assertThat(reply.path("params").path("error").asText()).contains("42");
    }

    @Test
    void activate_readsTheDeclaredTools_andARefusalFails() {
        PluginRpc rpc = rpc(2000);
        StepVerifier.create(rpc.activate(null, ""))
                .then(() -> rpc.onLine("{\"id\":" + stdin.last().path("id").asLong()
                        + ",\"tools\":[{\"name\":\"greet\",\"description\":\"Greets.\"}]}"))
                .assertNext(tools -> assertThat(tools).extracting(d -> d.name()).containsExactly("greet"))
                .verifyComplete();
        assertThat(stdin.written.get(0).path("params").path("pluginId").asText()).isEqualTo("p");

        StepVerifier.create(rpc.activate(null, ""))
                .then(() -> rpc.onLine("{\"id\":" + stdin.last().path("id").asLong() + ",\"error\":\"no key\"}"))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(StdioPluginException.class)
                        .hasMessageContaining("refused to activate: no key"))
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void deactivation_isARequestWithAFreshId() {
        PluginRpc rpc = rpc(2000);
        rpc.request("activate", params("x")).subscribe();
        long used = stdin.last().path("id").asLong();
        JsonNode line;
        try {
            line = Json.mapper().readTree(new String(rpc.deactivation(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(line.path("method").asText()).isEqualTo("deactivate");
        assertThat(line.path("id").asLong()).isGreaterThan(used);
    }
}
