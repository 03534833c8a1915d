package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.metrics.CallRecord;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

class ToolExecutorApprovalTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AtomicInteger wipes = new AtomicInteger();
    private final AtomicInteger times = new AtomicInteger();
    private final AtomicReference<ApprovalSettings> settings =
            new AtomicReference<>(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build());
    private final List<OutboundEvent> events = new CopyOnWriteArrayList<>();

    private ToolSpec wipe() {
        return new ToolSpec(ToolDefinition.builder("wipe").description("w").sideEffecting(true).risk(Risk.HIGH)
                .parameter(ToolParameter.of("target", ToolParamType.STRING, "t")).build(),
                (a, c) -> Mono.fromSupplier(() -> {
                    wipes.incrementAndGet();
                    return ToolResult.text("wiped " + a.string("target"));
                }));
    }

    private ToolSpec getTime() {
        return new ToolSpec(ToolDefinition.builder("get_time").description("t").cacheScope(
                dev.toolbus.tool.CacheScope.NONE).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("noon " + times.incrementAndGet())));
    }

    private ToolExecutor executor(int maxParallel) {
        return ToolExecutor.builder().timer(vts).meterRegistry(meters).instanceId("i9").approval(settings::get)
                .settings(ExecutionSettings.builder().maxParallel(maxParallel).cacheResults(false).build())
                .tool(wipe()).tool(getTime()).tool(TestTools.echo()).build();
    }

    private final ToolExecutor ex = executor(5);

    private CompletableFuture<List<OutboundEvent>> start(ToolExecutor on, ToolCallsEvent t) {
        return on.execute(t).doOnNext(events::add).collectList().toFuture();
    }

    private CompletableFuture<List<OutboundEvent>> start(ToolCallsEvent t) {
        return start(ex, t);
    }

    private static ToolCallsEvent turnWith(String stream, String id, CallContext ctx, ToolCall... calls) {
        return new ToolCallsEvent(stream, id, List.of(calls), ctx, null);
    }

    private static CallContext ctx(String user, String agent, String turnMode) {
        return CallContext.builder().userId(user).groupId("").platform("").permission("").channel("").provider("")
                .model("").agentId(agent).putAll(turnMode == null ? Map.of() : Map.of("approval_mode", turnMode))
                .build();
    }

    private List<ApprovalRequestEvent> requests() {
        return events.stream().filter(e -> e instanceof ApprovalRequestEvent).map(e -> (ApprovalRequestEvent) e)
                .toList();
    }

    private ControlOutcome answer(String stream, String id, ApprovalDecision d) {
        return ex.control(new ApprovalResponseEvent(stream, id, d)).block();
    }

    private double count(String outcome) {
        return meters.counter(ToolMetrics.CONTROL_APPROVALS, "outcome", outcome).count();
    }

    private CallRecord logged(String callId) {
        return ex.callLog().recent(r -> r.toolCallId().equals(callId), 1).get(0);
    }

    @Test
    void autoBundlesTheAskingCallsInOneRequest_runsTheRestMeanwhile_andKeepsCallOrder() {
        vts.advanceTimeBy(Duration.ofSeconds(5));
        var run = start(turn("s", "t1", call("c1", "wipe", "{\"target\":\"disk\",\"token\":\"x\"}"),
                call("c2", "get_time", "{}"), call("c3", "echo", "{\"text\":\"hi\"}")));
        assertThat(requests()).singleElement().satisfies(r -> {
            assertThat(r.approvalId()).isEqualTo(ControlRequest.approvalId(TurnKey.of(Principal.local(), "s", "t1"),
                    List.of("c1", "c3")));
            assertThat(r.expiresAtMs()).isEqualTo(5_000 + 60_000);
            assertThat(r.calls()).extracting(ApprovalRequestEvent.Call::toolCallId).containsExactly("c1", "c3");
            assertThat(r.calls()).extracting(ApprovalRequestEvent.Call::risk).containsExactly(Risk.HIGH, Risk.MEDIUM);
            assertThat(r.calls().get(0).argumentsSummary()).isEqualTo("{\"target\":\"disk\",\"token\":\"***\"}");
            assertThat(r.text()).isEqualTo("""
                    The model requested these tools:
                    [1] wipe risk: high
                    arguments: {"target":"disk","token":"***"}
                    [2] echo risk: medium
                    arguments: {"text":"hi"}
                    Reply: confirm / cancel / allow for this conversation""");
        });
        assertThat(times.get()).as("the low-risk call ran meanwhile").isEqualTo(1);
        assertThat(wipes.get()).isZero();
        assertThat(run).isNotDone();

        assertThat(answer("s", requests().get(0).approvalId(), ApprovalDecision.APPROVE)).isEqualTo(ControlOutcome.APPLIED);
        List<OutboundEvent> out = run.join();
        assertThat(out).extracting(OutboundEvent::type).containsExactly("approval_request", "tool_result",
                "tool_result", "tool_result", "turn_completed");
        assertThat(TestTools.results(out)).extracting(ToolResultEvent::content)
                .containsExactly("wiped disk", "noon 1", "hi");
        assertThat(wipes.get()).isEqualTo(1);
        assertThat(answer("s", requests().get(0).approvalId(), ApprovalDecision.APPROVE)).isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(count("asked")).isEqualTo(2);
        assertThat(count("approved")).isEqualTo(2);
        assertThat(logged("c1").approval()).isEqualTo("approved");
        assertThat(logged("c2").approval()).isEmpty();
        assertThat(TestEngines.engine(ex).pendingApprovals()).isZero();
    }

    @Test
    void denyAndExpiryEndTheCallsNotApprovedSayingWhich() {
        var denied = start(turn("s", "t1", call("c1", "wipe", "{\"target\":\"a\"}")));
        answer("s", requests().get(0).approvalId(), ApprovalDecision.DENY);
        ToolResultEvent d = TestTools.results(denied.join()).get(0);
        assertThat(d.isError()).isTrue();
        assertThat(d.error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
        assertThat(d.content()).isEqualTo("Tool not executed: the user declined.");
        assertThat(logged("c1").approval()).isEqualTo("denied");
        assertThat(logged("c1").outcome()).isEqualTo("not_approved");

        var expired = start(turn("s", "t2", call("c2", "wipe", "{\"target\":\"b\"}")));
        String id = requests().get(1).approvalId();
        vts.advanceTimeBy(Duration.ofMillis(59_999));
        assertThat(expired).isNotDone();
        vts.advanceTimeBy(Duration.ofMillis(1));
        ToolResultEvent e = TestTools.results(expired.join()).get(0);
        assertThat(e.error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
        assertThat(e.content()).isEqualTo("Tool not executed: no answer to the approval request within 60000 ms.");
        assertThat(answer("s", id, ApprovalDecision.APPROVE)).as("expired").isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(wipes.get()).isZero();
        assertThat(count("denied")).isEqualTo(1);
        assertThat(count("expired")).isEqualTo(1);
        assertThat(logged("c2").approval()).isEqualTo("expired");
    }

    @Test
    void approveSessionSkipsTheNextAskForThatUserStreamAndTool() {
        var first = start(turnWith("s", "t1", ctx("bob", "", null), call("c1", "echo", "{\"text\":\"one\"}")));
        answer("s", requests().get(0).approvalId(), ApprovalDecision.APPROVE_SESSION);
        assertThat(TestTools.results(first.join()).get(0).content()).isEqualTo("one");
        assertThat(logged("c1").approval()).isEqualTo("approved_session");

        List<OutboundEvent> second = start(turnWith("s", "t2", ctx("bob", "", null),
                call("c2", "echo", "{\"text\":\"two\"}"))).join();
        assertThat(second).extracting(OutboundEvent::type).containsExactly("tool_result", "turn_completed");
        assertThat(logged("c2").approval()).isEqualTo("by_session_grant");
        assertThat(count("by_session_grant")).isEqualTo(1);

        start(turnWith("s", "t3", ctx("ann", "", null), call("c3", "echo", "{\"text\":\"x\"}")));
        start(turnWith("other", "t4", ctx("bob", "", null), call("c4", "echo", "{\"text\":\"x\"}")));
        assertThat(requests()).as("other user, other stream ask again").hasSize(3);
    }

    @Test
    void aSessionGrantStopsAtTheMaxRisk() {
        var first = start(turnWith("s", "t1", ctx("bob", "", null), call("c1", "wipe", "{\"target\":\"a\"}")));
        answer("s", requests().get(0).approvalId(), ApprovalDecision.APPROVE_SESSION);
        assertThat(TestTools.results(first.join()).get(0).content()).isEqualTo("wiped a");
        start(turnWith("s", "t2", ctx("bob", "", null), call("c2", "wipe", "{\"target\":\"b\"}")));
        assertThat(requests()).as("high is above sessionMaxRisk medium").hasSize(2);
    }

    @Test
    void confirmAllAsksForLowToo_andAskRunsNothingWithoutAsking() {
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.CONFIRM_ALL).build());
        start(turn("s", "t1", call("c1", "get_time", "{}")));
        assertThat(requests()).singleElement().satisfies(r -> assertThat(r.calls().get(0).risk()).isEqualTo(Risk.LOW));
        assertThat(times.get()).isZero();

        settings.set(ApprovalSettings.builder().mode(ApprovalMode.ASK).build());
        List<OutboundEvent> out = start(turn("s2", "t2", call("c2", "get_time", "{}"), call("c3", "wipe",
                "{\"target\":\"a\"}"))).join();
        assertThat(out).extracting(OutboundEvent::type).containsExactly("tool_result", "tool_result", "turn_completed");
        assertThat(TestTools.results(out)).allSatisfy(r -> {
            assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
            assertThat(r.content()).isEqualTo("Tool not executed: ask mode runs no tools.");
        });
        assertThat(requests()).hasSize(1);
        assertThat(count("ask_mode")).isEqualTo(2);
        assertThat(logged("c3").approval()).isEqualTo("ask_mode");
    }

    @Test
    void theTurnBeatsTheAgentBeatsTheConfig() {
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.OFF).agent("strict", ApprovalMode.CONFIRM_ALL)
                .build());
        assertThat(start(turnWith("s", "t1", ctx("u", "", null), call("c1", "wipe", "{\"target\":\"a\"}"))).join())
                .extracting(OutboundEvent::type).containsExactly("tool_result", "turn_completed");
        start(turnWith("s", "t2", ctx("u", "strict", null), call("c2", "get_time", "{}")));
        assertThat(requests()).hasSize(1);
        answer("s", requests().get(0).approvalId(), ApprovalDecision.DENY);
        assertThat(start(turnWith("s", "t3", ctx("u", "strict", "auto"), call("c3", "get_time", "{}"))).join())
                .extracting(OutboundEvent::type).containsExactly("tool_result", "turn_completed");
        start(turnWith("s", "t4", ctx("u", "", "confirm_all"), call("c4", "get_time", "{}")));
        assertThat(requests()).hasSize(2);
    }

    @Test
    void anExecutorWithoutApprovalSettingsHasNoApprovalStep() {
        ToolExecutor plain = ToolExecutor.builder().timer(vts).tool(wipe()).build();
        List<OutboundEvent> out = start(plain, turnWith("s", "t1", ctx("u", "", "confirm_all"),
                call("c1", "wipe", "{\"target\":\"a\"}"))).join();
        assertThat(out).extracting(OutboundEvent::type).containsExactly("tool_result", "turn_completed");
        assertThat(plain.control(new ApprovalResponseEvent("s", "ap-x-1", ApprovalDecision.APPROVE)).block())
                .isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
    }

    @Test
    void theBypassListNeverAsks() {
        settings.set(ApprovalSettings.builder().mode(ApprovalMode.CONFIRM_ALL).bypass(List.of("wipe")).build());
        assertThat(TestTools.results(start(turn("s", "t1", call("c1", "wipe", "{\"target\":\"a\"}"))).join()).get(0)
                .content()).isEqualTo("wiped a");
        assertThat(requests()).isEmpty();
    }

    @Test
    void aWaitingCallHoldsNoSlot_andHundredOtherStreamsAreNeverDelayed() {
        ToolExecutor one = executor(1);
        var waiting = start(one, turn("slow", "t", call("w", "wipe", "{\"target\":\"a\"}")));
        List<CompletableFuture<List<OutboundEvent>>> others = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            others.add(start(one, turn("s" + i, "t", call("c" + i, "get_time", "{}"))));
        }
        assertThat(others).allSatisfy(f -> assertThat(f).isCompleted());
        assertThat(times.get()).isEqualTo(100);
        assertThat(waiting).isNotDone();
        String id = requests().get(0).approvalId();
        assertThat(one.control(new ApprovalResponseEvent("slow", id, ApprovalDecision.APPROVE)).block())
                .isEqualTo(ControlOutcome.APPLIED);
        assertThat(TestTools.results(waiting.join()).get(0).content()).isEqualTo("wiped a");
        assertThat(one.inflight()).isZero();
    }

    @Test
    void laterTurnsOfTheSameStreamWaitAsAlways() {
        var first = start(turn("s", "t1", call("c1", "wipe", "{\"target\":\"a\"}")));
        var second = start(turn("s", "t2", call("c2", "get_time", "{}")));
        assertThat(second).isNotDone();
        answer("s", requests().get(0).approvalId(), ApprovalDecision.APPROVE);
        first.join();
        assertThat(TestTools.results(second.join()).get(0).content()).isEqualTo("noon 1");
    }

    @Test
    void aCancelResolvesThePendingApproval() {
        var run = start(turn("s", "t1", call("c1", "wipe", "{\"target\":\"a\"}"), call("c2", "echo",
                "{\"text\":\"x\"}")));
        String id = requests().get(0).approvalId();
        assertThat(ex.control(CancelEvent.builder().streamId("s").turnId("t1").toolCallId("c1").reason("stop")
                .build()).block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(TestEngines.engine(ex).pendingApprovals()).as("c2 still waits").isEqualTo(1);
        assertThat(ex.control(CancelEvent.builder().streamId("s").turnId("t1").reason("stop")
                .build()).block()).isEqualTo(ControlOutcome.APPLIED);
        List<OutboundEvent> out = run.join();
        assertThat(TestTools.results(out)).extracting(r -> r.error().code())
                .containsExactly(ErrorCode.CANCELLED, ErrorCode.CANCELLED);
        assertThat(TestEngines.engine(ex).pendingApprovals()).isZero();
        assertThat(answer("s", id, ApprovalDecision.APPROVE)).isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(count("cancelled")).isEqualTo(2);
        assertThat(wipes.get()).isZero();
        vts.advanceTimeBy(Duration.ofMinutes(2));
        assertThat(count("expired")).isZero();
    }

    @Test
    void aSubscriberThatGoesAwayWithdrawsItsRequest() {
        Disposable d = ex.execute(turn("s", "t1", call("c1", "wipe", "{\"target\":\"a\"}"))).doOnNext(events::add)
                .subscribe();
        assertThat(requests()).hasSize(1);
        d.dispose();
        assertThat(TestEngines.engine(ex).pendingApprovals()).isZero();
        assertThat(answer("s", requests().get(0).approvalId(), ApprovalDecision.APPROVE))
                .isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        assertThat(wipes.get()).isZero();
    }

    @Test
    void unknownIdsAndOtherStreamsAreUnknownRequests() {
        start(turn("s", "t1", call("c1", "wipe", "{\"target\":\"a\"}")));
        String id = requests().get(0).approvalId();
        assertThat(answer("other", id, ApprovalDecision.APPROVE)).isEqualTo(ControlOutcome.UNKNOWN_REQUEST);
        List<OutboundEvent> err = ex.handle(new ApprovalResponseEvent("s", "ap-nobody-7", ApprovalDecision.APPROVE))
                .collectList().block();
        assertThat(err).singleElement().isInstanceOfSatisfying(ErrorEvent.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_REQUEST);
            assertThat(e.streamId()).isEqualTo("s");
        });
        assertThat(TestEngines.engine(ex).pendingApprovals()).isEqualTo(1);
        assertThat(wipes.get()).isZero();
    }

    @Test
    void theTextFollowsTheLocale() {
        ToolExecutor zh = ToolExecutor.builder().timer(vts).approval(ApprovalSettings.builder().mode(ApprovalMode.AUTO)
                .build())
                .settings(ExecutionSettings.builder().locale(DescriptionLocale.ZH).build()).tool(wipe()).build();
        var run = start(zh, turn("s", "t1", call("c1", "wipe", "{\"target\":\"盘\"}")));
        assertThat(requests().get(0).text()).isEqualTo("检测到模型请求执行工具：\n[1] wipe 风险: high\n参数: {\"target\":\"盘\"}\n"
                + "回复：确认 / 取消 / 允许本对话");
        zh.control(new ApprovalResponseEvent("s", requests().get(0).approvalId(), ApprovalDecision.DENY)).block();
        assertThat(TestTools.results(run.join()).get(0).content()).isEqualTo("工具未执行：用户取消");
    }

    @Test
    void onABusTheRequestIsPublishedBeforeTheResults() {
        InMemoryBus bus = InMemoryBus.create();
        ToolExecutor live = ToolExecutor.builder().approval(ApprovalSettings.builder().mode(ApprovalMode.AUTO).build())
                .tool(wipe()).build();
        List<OutboundEvent> out = new CopyOnWriteArrayList<>();
        Disposable watch = bus.events("s").subscribe(out::add);
        Disposable d = live.attach(bus);
        bus.send(turn("s", "t", call("c1", "wipe", "{\"target\":\"a\"}")));
        await().atMost(Duration.ofSeconds(10)).until(() -> !out.isEmpty());
        assertThat(out).singleElement().isInstanceOf(ApprovalRequestEvent.class);
        bus.send(new ApprovalResponseEvent("s", ((ApprovalRequestEvent) out.get(0)).approvalId(),
                ApprovalDecision.APPROVE));
        await().atMost(Duration.ofSeconds(10)).until(() -> out.size() == 3);
        assertThat(out).extracting(OutboundEvent::type).containsExactly("approval_request", "tool_result",
                "turn_completed");
        assertThat(((ToolResultEvent) out.get(1)).content()).isEqualTo("wiped a");
        assertThat(((TurnCompletedEvent) out.get(2)).errorCount()).isZero();
        watch.dispose();
        d.dispose();
    }
}
