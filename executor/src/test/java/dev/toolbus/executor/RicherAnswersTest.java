package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.EventDecodeException;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Issue 20 item 4: an approve may edit the arguments (validated, decided again), a deny may say why. */
class RicherAnswersTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final List<String> sent = new CopyOnWriteArrayList<>();
    private final List<OutboundEvent> live = new CopyOnWriteArrayList<>();

    private final ToolExecutor ex = ToolExecutor.builder().timer(vts).instanceId("r1")
            .approval(() -> ApprovalSettings.builder().mode(ApprovalMode.AUTO).build())
            .tool(new ToolSpec(ToolDefinition.builder("send_mail").description("sends").sideEffecting(true)
                    .risk(Risk.HIGH).parameter(ToolParameter.of("to", ToolParamType.STRING, "to"))
                    .parameter(ToolParameter.builder("count", ToolParamType.INTEGER).required(false).build()).build(),
                    (a, c) -> Mono.fromSupplier(() -> {
                        sent.add(a.string("to"));
                        return ToolResult.text("sent to " + a.string("to"));
                    })))
            .build();

    private CompletableFuture<List<OutboundEvent>> start(String turnId, String... tos) {
        var calls = new dev.toolbus.protocol.ToolCall[tos.length];
        for (int i = 0; i < tos.length; i++) {
            calls[i] = call("c" + (i + 1), "send_mail", "{\"to\":\"" + tos[i] + "\"}");
        }
        return ex.execute(turn("s", turnId, calls)).doOnNext(live::add).collectList().toFuture();
    }

    private String requestId() {
        return live.stream().filter(e -> e instanceof ApprovalRequestEvent).map(e -> ((ApprovalRequestEvent) e).approvalId())
                .reduce((a, b) -> b).orElseThrow();
    }

    private ControlOutcome answer(ApprovalDecision d, String callId, ObjectNode args, String message) {
        return ex.control(new ApprovalResponseEvent("s", requestId(), d, callId, args, message)).block();
    }

    private static ObjectNode args(String json) {
        try {
            return (ObjectNode) Json.mapper().readTree(json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void anApproveWithArguments_runsTheCallWithTheEdit_andSaysSo() {
        CompletableFuture<List<OutboundEvent>> run = start("t1", "all@corp");
        assertThat(answer(ApprovalDecision.APPROVE, null, args("{\"to\":\"bob@corp\"}"), null))
                .isEqualTo(ControlOutcome.APPLIED);
        ToolResultEvent r = TestTools.results(run.join()).get(0);
        assertThat(r.content()).isEqualTo("sent to bob@corp");
        assertThat(r.metadata()).containsEntry("arguments_edited", true);
        assertThat(sent).containsExactly("bob@corp");
        assertThat(ex.callLog().recent(x -> x.toolCallId().equals("c1"), 1).get(0).approval())
                .isEqualTo("approved_edited");
    }

    @Test
    void anEditTheSchemaRefuses_endsTheCallInvalidArguments_withoutRunningIt() {
        CompletableFuture<List<OutboundEvent>> run = start("t1", "all@corp");
        answer(ApprovalDecision.APPROVE, "c1", args("{\"to\":\"bob@corp\",\"count\":\"many\"}"), null);
        ToolResultEvent r = TestTools.results(run.join()).get(0);
        assertThat(r.error().code()).isEqualTo(ErrorCode.INVALID_ARGUMENTS);
        assertThat(sent).isEmpty();
    }

    @Test
    void inARequestOfSeveralCalls_theEditNamesItsCall_andTheOthersWaitForTheirAnswer() {
        CompletableFuture<List<OutboundEvent>> run = start("t1", "a@corp", "b@corp");
        answer(ApprovalDecision.APPROVE, "c2", args("{\"to\":\"z@corp\"}"), null);
        assertThat(sent).containsExactly("z@corp");
        assertThat(run).isNotDone();
        answer(ApprovalDecision.DENY, null, null, "not to a, ever");
        List<ToolResultEvent> r = TestTools.results(run.join());
        assertThat(r.get(0).error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
        assertThat(r.get(0).content()).isEqualTo("Tool not executed: the user declined, saying: not to a, ever");
        assertThat(r.get(1).content()).isEqualTo("sent to z@corp");
        assertThat(r.get(1).metadata()).containsEntry("arguments_edited", true);
    }

    @Test
    void anEditThatNamesNoCall_ofARequestOfSeveral_runsNothing() {
        CompletableFuture<List<OutboundEvent>> run = start("t1", "a@corp", "b@corp");
        answer(ApprovalDecision.APPROVE, null, args("{\"to\":\"z@corp\"}"), null);
        assertThat(TestTools.results(run.join())).allSatisfy(r -> {
            assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
            assertThat(r.content()).contains("tool_call_id");
        });
        assertThat(sent).isEmpty();
    }

    @Test
    void theWireCarriesTheNewFields_andRefusesTheirMisuse() {
        EventCodec codec = EventCodec.defaults();
        ApprovalResponseEvent e = new ApprovalResponseEvent("s", "ap-0123456789abcdef", ApprovalDecision.APPROVE, "c1",
                args("{\"to\":\"x\"}"), null);
        assertThat(codec.decode(codec.encode(e))).isEqualTo(e);
        ApprovalResponseEvent deny = new ApprovalResponseEvent("s", "ap-0123456789abcdef", ApprovalDecision.DENY, null,
                null, "no");
        assertThat(codec.decode(codec.encode(deny))).isEqualTo(deny);
        String base = "{\"type\":\"approval_response\",\"stream_id\":\"s\",\"approval_id\":\"ap-1\",";
        assertThatThrownBy(() -> codec.decode(base + "\"decision\":\"approve\",\"message\":\"why\"}"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("deny only");
        assertThatThrownBy(() -> codec.decode(base + "\"decision\":\"deny\",\"arguments\":{}}"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("not deny");
        assertThatThrownBy(() -> codec.decode(base + "\"decision\":\"approve\",\"arguments\":[1]}"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("must be an object");
        assertThatThrownBy(() -> codec.decode(base + "\"decision\":\"deny\",\"message\":\"" + "x".repeat(2_001) + "\"}"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("2000");
    }
}
