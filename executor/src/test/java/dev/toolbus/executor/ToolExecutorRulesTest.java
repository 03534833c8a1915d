package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.CallerType;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.Risk;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.CallGate;
import dev.toolbus.spi.CallRules;
import dev.toolbus.spi.GatedCall;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The executor's side of the {@link CallRules} SPI, with rules written in Java (the CEL rules of
 * {@code toolbus-rules} are tested through an executor in that module): where the step runs, what each
 * outcome does with the call, what the rules see, and the turn's counts.
 */
class ToolExecutorRulesTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final AtomicInteger transfers = new AtomicInteger();
    private final List<OutboundEvent> events = new CopyOnWriteArrayList<>();
    /** What the rules saw, one line per call decided. */
    private final List<String> seen = new CopyOnWriteArrayList<>();

    private ToolSpec transfer() {
        return new ToolSpec(ToolDefinition.builder("transfer").description("Move money").sideEffecting(true)
                .parameter(ToolParameter.of("to", ToolParamType.STRING, "to"))
                .parameter(ToolParameter.builder("amount", ToolParamType.INTEGER).required(false).build()).build(),
                (a, c) -> Mono.fromSupplier(() -> {
                    transfers.incrementAndGet();
                    return ToolResult.text("sent " + a.integer("amount", 0) + " to " + a.string("to"));
                }));
    }

    /** Rules from a function; records what each call showed them. */
    private CallRules rules(Function<CallRules.Call, CallRules.Verdict> f) {
        return call -> {
            CallRules.Counts t = call.turn();
            seen.add(call.tool().name() + " " + call.arguments() + " source=" + call.source() + " risk="
                    + call.risk() + " caller=" + call.caller() + " user=" + call.context().userId() + " turn="
                    + t.calls() + "/" + t.sideEffectingCalls() + "/" + t.dangerousCalls() + " " + t.byTool());
            return f.apply(call);
        };
    }

    private static CallRules.Verdict deny(String rule, String message) {
        return new CallRules.Verdict(CallRules.Outcome.DENY, rule, message);
    }

    private static CallRules.Verdict ask(String rule, String message) {
        return new CallRules.Verdict(CallRules.Outcome.ASK, rule, message);
    }

    private ToolExecutor.Builder builder(CallRules rules) {
        return ToolExecutor.builder().timer(vts).instanceId("r1").rules(rules).tool(transfer()).tool(TestTools.echo());
    }

    private List<OutboundEvent> run(ToolExecutor ex, ToolCallsEvent t) {
        return ex.execute(t).doOnNext(events::add).collectList().block(Duration.ofSeconds(5));
    }

    private static ToolResultEvent result(List<OutboundEvent> out, String id) {
        return TestTools.results(out).stream().filter(r -> r.toolCallId().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void deny_endsTheCallNotAllowedWithTheRulesMessage_andTheToolDoesNotRun() {
        ToolExecutor ex = builder(rules(c -> c.arguments().path("amount").asLong() > 100
                ? deny("big", "Transfers over 100 are not allowed.") : CallRules.Verdict.NONE)).build();
        var out = run(ex, turn("s", "t", call("c1", "transfer", "{\"to\":\"bob\",\"amount\":150}"),
                call("c2", "transfer", "{\"to\":\"bob\",\"amount\":50}")));
        ToolResultEvent big = result(out, "c1");
        assertThat(big.isError()).isTrue();
        assertThat(big.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(big.content()).isEqualTo("Transfers over 100 are not allowed.");
        assertThat(result(out, "c2").content()).isEqualTo("sent 50 to bob");
        assertThat(transfers).hasValue(1);
    }

    @Test
    void allowAndNone_letTheCallRun() {
        ToolExecutor ex = builder(rules(c -> c.tool().name().equals("echo")
                ? new CallRules.Verdict(CallRules.Outcome.ALLOW, "echo-ok", "") : CallRules.Verdict.NONE)).build();
        var out = run(ex, turn("s", "t", call("c1", "echo", "{\"text\":\"hi\"}"),
                call("c2", "transfer", "{\"to\":\"bob\"}")));
        assertThat(result(out, "c1").content()).isEqualTo("hi");
        assertThat(result(out, "c2").content()).isEqualTo("sent 0 to bob");
    }

    @Test
    void theRulesSeeTheValidatedCall_afterThePolicy_andTheArgumentChecks() {
        ToolExecutor ex = builder(rules(c -> CallRules.Verdict.NONE))
                .policy((tool, stream, ctx) -> tool.name().equals("echo")
                        ? dev.toolbus.spi.ToolPolicy.Decision.notAvailable("") : dev.toolbus.spi.ToolPolicy.Decision.ALLOW)
                .build();
        CallContext who = CallContext.builder().userId("u7").build();
        var out = run(ex, new ToolCallsEvent("s", "t", List.of(call("c1", "transfer", "{\"to\":\"bob\",\"amount\":5}"),
                call("c2", "transfer", "{\"amount\":\"lots\"}"), call("c3", "echo", "{\"text\":\"x\"}")), who, null));
        assertThat(result(out, "c2").error().code()).isEqualTo(ErrorCode.INVALID_ARGUMENTS);
        assertThat(result(out, "c3").error().code()).isEqualTo(ErrorCode.NOT_AVAILABLE);
        // only the valid call reached the rules (a builder tool is a PLUGIN source); its risk as the approval
        // step classifies it (no approval step: its defaults), the caller direct, the turn's counts empty
        assertThat(seen).containsExactly(
                "transfer {\"to\":\"bob\",\"amount\":5} source=PLUGIN risk=MEDIUM caller=direct user=u7 turn=0/0/0 {}");
    }

    @Test
    void theTurnsCounts_countEarlierCallsThatPassedTheRules_notRefusedOnes() {
        ToolExecutor ex = builder(rules(c -> c.arguments().path("amount").asLong() == 13
                ? deny("unlucky", "no") : CallRules.Verdict.NONE)).build();
        run(ex, turn("s", "t", call("c1", "echo", "{\"text\":\"a\"}"), call("c2", "transfer", "{\"to\":\"x\",\"amount\":1}"),
                call("c3", "transfer", "{\"to\":\"x\",\"amount\":13}"), call("c4", "transfer", "{\"to\":\"x\",\"amount\":2}")));
        assertThat(seen).extracting(l -> l.substring(l.indexOf("turn="))).containsExactly(
                "turn=0/0/0 {}",
                "turn=1/0/0 {echo=1}",
                "turn=2/1/0 {echo=1, transfer=1}",
                // c3 was denied: not counted
                "turn=2/1/0 {echo=1, transfer=1}");
        // a new turn starts from zero
        seen.clear();
        run(ex, turn("s", "t2", call("c5", "echo", "{\"text\":\"a\"}")));
        assertThat(seen.get(0)).contains("turn=0/0/0 {}");
    }

    @Test
    void rulesThatThrow_denyTheCall() {
        ToolExecutor ex = builder(c -> {
            throw new IllegalStateException("broken rules");
        }).build();
        ToolResultEvent r = result(run(ex, turn("s", "t", call("c1", "echo", "{\"text\":\"a\"}"))), "c1");
        assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(r.content()).contains("could not be evaluated").contains("broken rules");
    }

    @Test
    void ask_withoutAnApprovalStep_isRefusedNotAllowed() {
        ToolExecutor ex = builder(rules(c -> ask("owner-asks", "Ask the owner."))).build();
        ToolResultEvent r = result(run(ex, turn("s", "t", call("c1", "echo", "{\"text\":\"a\"}"))), "c1");
        assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(r.content()).isEqualTo(
                "Tool echo not executed: the rule 'owner-asks' asks for a person's approval, and approval is off here.");
    }

    @Test
    void ask_atAGateThatDoesNotAskForRules_isRefusedNotAllowed() {
        List<GatedCall> gated = new ArrayList<>();
        CallGate gate = call -> {
            gated.add(call);
            return null;
        };
        ToolExecutor ex = builder(rules(c -> ask("r", "m"))).callGate(gate).build();
        ToolResultEvent r = result(run(ex, turn("s", "t", call("c1", "echo", "{\"text\":\"a\"}"))), "c1");
        assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(gated).isEmpty();
    }

    @Test
    void ask_underModeOff_isRefusedNotAllowed_andUnderModeAsk_notApproved() {
        ToolExecutor off = builder(rules(c -> ask("r", "m"))).approval(ApprovalSettings.defaults()).build();
        ToolResultEvent r = result(run(off, turn("s", "t", call("c1", "echo", "{\"text\":\"a\"}"))), "c1");
        assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(r.content()).contains("the rule 'r' asks");
        ToolExecutor askMode = builder(rules(c -> ask("r", "m")))
                .approval(ApprovalSettings.builder().mode(ApprovalMode.ASK).build()).build();
        r = result(run(askMode, turn("s", "t", call("c1", "echo", "{\"text\":\"a\"}"))), "c1");
        assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
        assertThat(r.content()).isEqualTo("Tool not executed: ask mode runs no tools.");
    }

    @Test
    void ask_asksAtHighRisk_withTheRulesMessage_evenForABypassedLowRiskTool_thenRunsOnApproval() {
        ApprovalSettings s = ApprovalSettings.builder().mode(ApprovalMode.AUTO).low(List.of("transfer"))
                .bypass(List.of("transfer")).build();
        ToolExecutor ex = builder(rules(c -> c.arguments().path("amount").asLong() > 100
                ? ask("big-transfers", "Transfers over 100 need the owner's approval.") : CallRules.Verdict.NONE))
                .approval(s).build();
        CompletableFuture<List<OutboundEvent>> done = ex.execute(turn("s", "t",
                call("c1", "transfer", "{\"to\":\"bob\",\"amount\":150}"),
                call("c2", "transfer", "{\"to\":\"bob\",\"amount\":50}"))).doOnNext(events::add).collectList().toFuture();
        ApprovalRequestEvent req = events.stream().filter(e -> e instanceof ApprovalRequestEvent)
                .map(e -> (ApprovalRequestEvent) e).findFirst().orElseThrow();
        assertThat(req.calls()).hasSize(1);
        assertThat(req.calls().get(0).toolCallId()).isEqualTo("c1");
        assertThat(req.calls().get(0).risk()).isEqualTo(Risk.HIGH);
        assertThat(req.text()).isEqualTo("The model requested these tools:\n[1] transfer risk: high\n"
                + "arguments: {\"to\":\"bob\",\"amount\":150}\nreason: Transfers over 100 need the owner's approval.\n"
                + "Reply: confirm / cancel / allow for this conversation");
        // the bypassed call ran meanwhile
        assertThat(transfers).hasValue(1);
        ex.control(new ApprovalResponseEvent("s", req.approvalId(), ApprovalDecision.APPROVE)).block();
        List<OutboundEvent> out = done.join();
        assertThat(result(out, "c1").content()).isEqualTo("sent 150 to bob");
        assertThat(transfers).hasValue(2);
    }

    @Test
    void anAskedCall_isNotCoveredByASessionGrant() {
        ApprovalSettings s = ApprovalSettings.builder().mode(ApprovalMode.CONFIRM_ALL).sessionMaxRisk(Risk.HIGH).build();
        ToolExecutor ex = builder(rules(c -> c.arguments().path("amount").asLong() > 100
                ? ask("big", "big one") : CallRules.Verdict.NONE)).approval(s).build();
        CompletableFuture<List<OutboundEvent>> first = ex.execute(turn("s", "t1",
                call("c1", "transfer", "{\"to\":\"bob\",\"amount\":150}"))).doOnNext(events::add).collectList()
                .toFuture();
        ApprovalRequestEvent req = (ApprovalRequestEvent) events.stream()
                .filter(e -> e instanceof ApprovalRequestEvent).findFirst().orElseThrow();
        ex.control(new ApprovalResponseEvent("s", req.approvalId(), ApprovalDecision.APPROVE_SESSION)).block();
        assertThat(result(first.join(), "c1").isError()).isFalse();
        events.clear();
        // the grant covers the tool's ordinary asks, but a rule that asks asks again
        ex.execute(turn("s", "t2", call("c2", "transfer", "{\"to\":\"bob\",\"amount\":5}"),
                call("c3", "transfer", "{\"to\":\"bob\",\"amount\":500}"))).doOnNext(events::add).subscribe();
        List<ApprovalRequestEvent> asked = events.stream().filter(e -> e instanceof ApprovalRequestEvent)
                .map(e -> (ApprovalRequestEvent) e).toList();
        assertThat(asked).hasSize(1);
        assertThat(asked.get(0).calls()).extracting(ApprovalRequestEvent.Call::toolCallId).containsExactly("c3");
    }

    @Test
    void allowedCallers_comeFromTheRules_andADirectCallToAProgrammaticOnlyToolIsNotAllowed() {
        CallRules r = new CallRules() {
            @Override
            public Verdict decide(Call call) {
                return Verdict.NONE;
            }

            @Override
            public Set<CallerType> allowedCallers(ToolDefinition tool) {
                return tool.name().equals("echo") ? EnumSet.of(CallerType.PROGRAMMATIC) : tool.allowedCallers();
            }
        };
        ToolExecutor ex = builder(r).build();
        ToolResultEvent res = result(run(ex, turn("s", "t", call("c1", "echo", "{\"text\":\"a\"}"))), "c1");
        assertThat(res.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(res.content()).isEqualTo("Tool echo cannot be called by a direct caller; it allows: programmatic.");
    }

    @Test
    void theRisk_isTheApprovalSteps_underTheSettingsInForce() {
        ToolExecutor ex = builder(rules(c -> CallRules.Verdict.NONE))
                .approval(ApprovalSettings.builder().mode(ApprovalMode.OFF).high(List.of("echo")).build()).build();
        run(ex, turn("s", "t", call("c1", "echo", "{\"text\":\"a\"}")));
        assertThat(seen.get(0)).contains("risk=HIGH");
    }
}
