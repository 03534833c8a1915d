package dev.toolbus.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.Caller;
import dev.toolbus.protocol.CallerType;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * CEL rules through a real executor ({@link LiveRules} over the executor's {@code CallRules} SPI): the
 * worked examples of docs/policy.md with their real output (checked against the doc), each outcome,
 * run-time errors failing closed, hot reload, caller overrides and the turn's counts.
 */
class ExecutorRulesTest {

    /** The three rules of docs/policy.md, "Rules over the call". */
    static RuleSet.Builder docRules() {
        return RuleSet.builder()
                .group("money", List.of("transfer", "refund_*"))
                .rule(Rule.builder("big-transfers-need-the-owner").tools("group:money")
                        .when("args.amount > 100 && ctx.permission != 'owner'").then(RuleAction.ASK)
                        .message("Transfers over 100 need the owner's approval.").build())
                .rule(Rule.builder("one-irreversible-call-per-turn").tools("*")
                        .when("tool.side_effecting && turn.side_effecting_calls > 0").then(RuleAction.ASK).build())
                .rule(Rule.builder("no-code-for-payments").tools("group:money")
                        .when("caller.type == 'programmatic'").then(RuleAction.DENY)
                        .message("Payments are not made from code.").build());
    }

    private final List<OutboundEvent> events = new CopyOnWriteArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    private static ToolSpec tool(String name, boolean sideEffecting, String reply) {
        return new ToolSpec(ToolDefinition.builder(name).description(name).sideEffecting(sideEffecting)
                .parameter(ToolParameter.builder("to", ToolParamType.STRING).required(false).build())
                .parameter(ToolParameter.builder("amount", ToolParamType.INTEGER).required(false).build())
                .parameter(ToolParameter.builder("text", ToolParamType.STRING).required(false).build())
                .parameter(ToolParameter.builder("path", ToolParamType.STRING).required(false).build())
                .build(),
                (a, c) -> Mono.just(ToolResult.text(reply.replace("$to", a.string("to", ""))
                        .replace("$amount", String.valueOf(a.integer("amount", 0))).replace("$text", a.string("text", "")))));
    }

    private ToolExecutor executor(java.util.function.Supplier<RuleSet> rules, ApprovalSettings approval) {
        ToolExecutor.Builder b = ToolExecutor.builder().instanceId("x1")
                .rules(LiveRules.of(rules, meters))
                .tool(tool("transfer", true, "sent $amount to $to"))
                .tool(tool("write_file", true, "wrote"))
                .tool(tool("echo", false, "$text"));
        if (approval != null) {
            b.approval(approval);
        }
        return b.build();
    }

    /** Ordinary calls run unasked; a rule that asks is asked. */
    private static final ApprovalSettings AUTO_LOW = ApprovalSettings.builder().mode(ApprovalMode.AUTO)
            .low(List.of("transfer", "write_file", "echo")).build();

    private static ToolCall call(String id, String name, String args) {
        return ToolCall.ofJson(id, name, args);
    }

    private static final java.util.concurrent.atomic.AtomicInteger STREAMS = new java.util.concurrent.atomic.AtomicInteger();

    /** A turn in a stream of its own (a turn waiting for approval holds its stream's later turns). */
    private static ToolCallsEvent turn(String permission, ToolCall... calls) {
        return new ToolCallsEvent("qq:u" + STREAMS.incrementAndGet(), "t1", List.of(calls),
                CallContext.builder().userId("u1").permission(permission).build(), null);
    }

    /** Runs a turn; returns its results, or the approval request it stopped at. */
    private List<OutboundEvent> run(ToolExecutor ex, ToolCallsEvent t) {
        events.clear();
        ex.execute(t).doOnNext(events::add).subscribe();
        return new ArrayList<>(events);
    }

    private static ToolResultEvent result(List<OutboundEvent> out, String id) {
        return out.stream().filter(e -> e instanceof ToolResultEvent r && r.toolCallId().equals(id))
                .map(e -> (ToolResultEvent) e).findFirst().orElseThrow(() -> new AssertionError("no result " + id
                        + " in " + out));
    }

    private static ApprovalRequestEvent request(List<OutboundEvent> out) {
        return out.stream().filter(e -> e instanceof ApprovalRequestEvent).map(e -> (ApprovalRequestEvent) e)
                .findFirst().orElseThrow(() -> new AssertionError("no approval_request in " + out));
    }

    private static String policyDoc() throws Exception {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("docs/policy.md"))) {
            p = p.getParent();
        }
        return Files.readString(p.resolve("docs/policy.md"));
    }

    @Test
    void theWorkedExamples_realOutput_asDocumented() throws Exception {
        RuleSet rules = docRules().allowedCallers("transfer", List.of(CallerType.DIRECT, CallerType.PROGRAMMATIC))
                .build();
        ToolExecutor ex = executor(() -> rules, AUTO_LOW);
        List<String> shown = new ArrayList<>();

        // 1. a member's big transfer: asked, high risk, with the rule's message
        ApprovalRequestEvent big = request(run(ex, turn("member", call("c1", "transfer", "{\"to\":\"bob\",\"amount\":150}"))));
        assertThat(big.calls().get(0).risk().wireName()).isEqualTo("high");
        assertThat(big.text()).contains("[1] transfer risk: high");
        shown.add("reason: Transfers over 100 need the owner's approval.");
        assertThat(big.text()).contains(shown.get(0));

        // 2. the same by the owner: runs
        ToolResultEvent owner = result(run(ex, turn("owner", call("c2", "transfer", "{\"to\":\"bob\",\"amount\":150}"))), "c2");
        assertThat(owner.isError()).isFalse();
        shown.add(owner.content());
        assertThat(owner.content()).isEqualTo("sent 150 to bob");

        // 3. a transfer after a write_file in the same turn: the second side-effecting call is asked
        List<OutboundEvent> out = run(ex, turn("member", call("c3", "write_file", "{\"path\":\"a.txt\"}"),
                call("c4", "transfer", "{\"to\":\"bob\",\"amount\":50}")));
        assertThat(result(out, "c3").content()).isEqualTo("wrote");
        ApprovalRequestEvent second = request(out);
        assertThat(second.calls()).extracting(ApprovalRequestEvent.Call::toolCallId).containsExactly("c4");
        shown.add("reason: The rule 'one-irreversible-call-per-turn' asks for approval of this call.");
        assertThat(second.text()).contains(shown.get(2));

        // 4. a transfer from code execution: denied by the rule
        ToolResultEvent code = result(run(ex, turn("member", call("c5", "transfer", "{\"to\":\"bob\",\"amount\":50}")
                .withCaller(Caller.programmatic("srvtoolu_1")))), "c5");
        assertThat(code.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(code.content()).isEqualTo("Payments are not made from code.");
        shown.add(code.content());
        // without the allowedCallers override, the tool's own declaration (direct only) refuses it first
        ToolExecutor plain = executor(() -> docRules().build(), AUTO_LOW);
        ToolResultEvent refused = result(run(plain, turn("member", call("c6", "transfer", "{\"to\":\"bob\",\"amount\":50}")
                .withCaller(Caller.programmatic("srvtoolu_1")))), "c6");
        assertThat(refused.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        shown.add(refused.content());
        assertThat(refused.content()).isEqualTo("Tool transfer cannot be called by a programmatic caller; it allows: direct.");

        // 5. no amount: the rule cannot be evaluated, the call is denied naming it
        ToolResultEvent noAmount = result(run(ex, turn("member", call("c7", "transfer", "{\"to\":\"bob\"}"))), "c7");
        assertThat(noAmount.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(noAmount.content()).startsWith("The rule 'big-transfers-need-the-owner' could not be evaluated (")
                .endsWith("); the call is refused.");
        shown.add(noAmount.content());

        // 6. echo: runs
        ToolResultEvent echo = result(run(ex, turn("member", call("c8", "echo", "{\"text\":\"hi\"}"))), "c8");
        assertThat(echo.content()).isEqualTo("hi");

        // 7. approval mode off: an ask cannot be asked, the call is not allowed
        ToolExecutor off = executor(() -> rules, ApprovalSettings.defaults());
        ToolResultEvent offAsk = result(run(off, turn("member", call("c9", "transfer", "{\"to\":\"bob\",\"amount\":150}"))), "c9");
        assertThat(offAsk.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        shown.add(offAsk.content());
        assertThat(offAsk.content()).isEqualTo("Tool transfer not executed: the rule 'big-transfers-need-the-owner' "
                + "asks for a person's approval, and approval is off here.");

        String doc = policyDoc();
        for (String s : shown) {
            assertThat(doc).as("docs/policy.md shows the real output").contains(s);
        }
        // the decisions were counted
        assertThat(meters.get(RuleMetrics.DECISIONS).tag("rule", "no-code-for-payments").tag("outcome", "deny")
                .counter().count()).isEqualTo(1.0);
        assertThat(meters.get(RuleMetrics.ERRORS).tag("rule", "big-transfers-need-the-owner").counter().count())
                .isEqualTo(1.0);
    }

    @Test
    void allow_endsTheEvaluation_soALaterDenyIsNotRead() {
        RuleSet rules = RuleSet.builder()
                .rule(Rule.builder("owners-may").tools("transfer").when("ctx.permission == 'owner'")
                        .then(RuleAction.ALLOW).build())
                .rule(Rule.builder("no-transfers").tools("transfer").when("true").then(RuleAction.DENY)
                        .message("No transfers.").build()).build();
        ToolExecutor ex = executor(() -> rules, null);
        assertThat(result(run(ex, turn("owner", call("a", "transfer", "{\"to\":\"x\",\"amount\":1}"))), "a").content())
                .isEqualTo("sent 1 to x");
        ToolResultEvent member = result(run(ex, turn("member", call("b", "transfer", "{\"to\":\"x\",\"amount\":1}"))), "b");
        assertThat(member.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(member.content()).isEqualTo("No transfers.");
    }

    @Test
    void aReload_appliesToTheNextCall() {
        AtomicReference<RuleSet> live = new AtomicReference<>(RuleSet.NONE);
        ToolExecutor ex = executor(live::get, null);
        assertThat(result(run(ex, turn("member", call("a", "echo", "{\"text\":\"one\"}"))), "a").content()).isEqualTo("one");
        live.set(RuleSet.builder().rule(Rule.builder("quiet").tools("echo").when("args.text.size() > 2")
                .then(RuleAction.DENY).message("Too loud.").build()).build());
        assertThat(result(run(ex, turn("member", call("b", "echo", "{\"text\":\"two\"}"))), "b").content())
                .isEqualTo("Too loud.");
        assertThat(result(run(ex, turn("member", call("c", "echo", "{\"text\":\"ok\"}"))), "c").content()).isEqualTo("ok");
        live.set(RuleSet.NONE);
        assertThat(result(run(ex, turn("member", call("d", "echo", "{\"text\":\"three\"}"))), "d").content())
                .isEqualTo("three");
    }

    @Test
    void theTurnsCountsAndTheDangerousList_reachTheRules() {
        RuleSet rules = RuleSet.builder().dangerousTools(List.of("write_*"))
                .rule(Rule.builder("one-dangerous").tools("*").when("turn.dangerous_calls >= 1").then(RuleAction.DENY)
                        .message("one dangerous call per turn").build())
                .rule(Rule.builder("two-echoes").tools("echo").when("turn.by_tool['echo'] >= 2 && turn.calls >= 2")
                        .then(RuleAction.DENY).message("two echoes are enough").build()).build();
        ToolExecutor ex = executor(() -> rules, null);
        List<OutboundEvent> out = run(ex, turn("member", call("a", "echo", "{\"text\":\"1\"}"),
                call("b", "echo", "{\"text\":\"2\"}"), call("c", "echo", "{\"text\":\"3\"}")));
        assertThat(result(out, "c").content()).isEqualTo("two echoes are enough");
        out = run(ex, turn("member", call("d", "write_file", "{}"), call("e", "echo", "{\"text\":\"x\"}")));
        assertThat(result(out, "d").content()).isEqualTo("wrote");
        assertThat(result(out, "e").content()).isEqualTo("one dangerous call per turn");
    }

    @Test
    void callerOverrides_widenOrNarrowWhoMayCall_byNameOrGlob() {
        RuleSet rules = RuleSet.builder().allowedCallers("e*", List.of(CallerType.PROGRAMMATIC))
                .allowedCallers("echo", List.of(CallerType.DIRECT, CallerType.PROGRAMMATIC)).build();
        ToolExecutor ex = executor(() -> rules, null);
        // the exact name wins over the glob
        assertThat(result(run(ex, turn("member", call("a", "echo", "{\"text\":\"x\"}")
                .withCaller(Caller.programmatic("p")))), "a").content()).isEqualTo("x");
        assertThat(result(run(ex, turn("member", call("b", "echo", "{\"text\":\"y\"}"))), "b").content()).isEqualTo("y");
        ToolResultEvent w = result(run(ex, turn("member", call("c", "write_file", "{}").withCaller(Caller.programmatic("p")))), "c");
        assertThat(w.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
    }

    @Test
    void theCallerAndTheRiskReachTheRules() {
        RuleSet rules = RuleSet.builder()
                .rule(Rule.builder("code-id").tools("echo").when("caller.type == 'programmatic' && caller.id == 'run-9'")
                        .then(RuleAction.DENY).message("not run-9").build())
                .rule(Rule.builder("high").tools("write_file").when("tool.risk == 'high'").then(RuleAction.DENY)
                        .message("high risk").build())
                .allowedCallers("echo", List.of(CallerType.DIRECT, CallerType.PROGRAMMATIC)).build();
        ToolExecutor ex = executor(() -> rules, ApprovalSettings.builder().mode(ApprovalMode.OFF)
                .high(List.of("write_file")).build());
        assertThat(result(run(ex, turn("member", call("a", "echo", "{\"text\":\"x\"}")
                .withCaller(Caller.programmatic("run-9")))), "a").content()).isEqualTo("not run-9");
        assertThat(result(run(ex, turn("member", call("b", "echo", "{\"text\":\"x\"}")
                .withCaller(Caller.programmatic("run-8")))), "b").content()).isEqualTo("x");
        assertThat(result(run(ex, turn("member", call("c", "write_file", "{}"))), "c").content()).isEqualTo("high risk");
    }
}
