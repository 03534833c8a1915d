package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.executor.approval.ApprovalSettings;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.Caller;
import dev.toolbus.protocol.CallerType;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** {@code caller} on a call and {@code allowed_callers} on a tool, without and with an approval step. */
class ToolExecutorCallersTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final List<OutboundEvent> events = new CopyOnWriteArrayList<>();

    private static ToolSpec tool(String name, CallerType... callers) {
        return new ToolSpec(ToolDefinition.builder(name).description("d").allowedCallers(callers)
                .parameter(ToolParameter.builder("q", ToolParamType.STRING).required(false).build()).build(),
                (a, c) -> Mono.just(ToolResult.text(name + " ran")));
    }

    private ToolExecutor.Builder builder() {
        return ToolExecutor.builder().timer(vts).instanceId("c1")
                .tool(tool("direct_only", CallerType.DIRECT))
                .tool(tool("both", CallerType.DIRECT, CallerType.PROGRAMMATIC))
                .tool(tool("code_only", CallerType.PROGRAMMATIC));
    }

    private static ToolResultEvent only(List<OutboundEvent> out) {
        return TestTools.results(out).get(0);
    }

    private List<OutboundEvent> run(ToolExecutor ex, ToolCallsEvent t) {
        return ex.execute(t).doOnNext(events::add).collectList().block(Duration.ofSeconds(5));
    }

    private static ToolCallsEvent fromCode(String tool) {
        return turn("s", "t", call("c1", tool, "{}").withCaller(Caller.programmatic("srvtoolu_1")));
    }

    @Test
    void aToolAllowsOnlyDirectCallers_byDefault() {
        assertThat(ToolDefinition.builder("x").description("d").build().allowedCallers())
                .containsExactly(CallerType.DIRECT);
    }

    @Test
    void aProgrammaticCall_toADirectOnlyTool_isNotAllowed_andDoesNotRun() {
        ToolResultEvent r = only(run(builder().build(), fromCode("direct_only")));
        assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(r.content()).isEqualTo(
                "Tool direct_only cannot be called by a programmatic caller; it allows: direct.");
    }

    @Test
    void aProgrammaticCall_toAToolThatAllowsIt_runs() {
        assertThat(only(run(builder().build(), fromCode("both"))).content()).isEqualTo("both ran");
        assertThat(only(run(builder().build(), fromCode("code_only"))).content()).isEqualTo("code_only ran");
    }

    @Test
    void aDirectCall_toAProgrammaticOnlyTool_isNotAllowed() {
        ToolResultEvent r = only(run(builder().build(), turn("s", "t", call("c1", "code_only", "{}"))));
        assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(r.content()).isEqualTo("Tool code_only cannot be called by a direct caller; it allows: programmatic.");
    }

    @Test
    void aProgrammaticCall_thatNeedsApproval_endsNotApprovedAtOnce_sayingWhy() {
        ToolExecutor ex = builder().approval(ApprovalSettings.builder().mode(ApprovalMode.CONFIRM_ALL).build()).build();
        List<OutboundEvent> out = run(ex, fromCode("both"));
        ToolResultEvent r = only(out);
        assertThat(r.error().code()).isEqualTo(ErrorCode.NOT_APPROVED);
        assertThat(r.content()).isEqualTo("Tool both not executed: it needs a person's approval, and a call made "
                + "from code cannot wait for one. Call it directly instead.");
        assertThat(out).noneMatch(e -> e instanceof ApprovalRequestEvent);
        // the same tool called directly is asked for
        events.clear();
        ex.execute(turn("s", "t2", call("c2", "both", "{}"))).doOnNext(events::add).subscribe();
        assertThat(events).anyMatch(e -> e instanceof ApprovalRequestEvent);
    }

    @Test
    void withApprovalProgrammaticAsk_aProgrammaticCallWaitsForThePerson() {
        ToolExecutor ex = builder().approval(ApprovalSettings.builder().mode(ApprovalMode.CONFIRM_ALL)
                .askProgrammatic(true).build()).build();
        CompletableFuture<List<OutboundEvent>> done = ex.execute(fromCode("both")).doOnNext(events::add)
                .collectList().toFuture();
        ApprovalRequestEvent req = events.stream().filter(e -> e instanceof ApprovalRequestEvent)
                .map(e -> (ApprovalRequestEvent) e).findFirst().orElseThrow();
        ex.control(new ApprovalResponseEvent("s", req.approvalId(), ApprovalDecision.APPROVE)).block();
        assertThat(only(done.join()).content()).isEqualTo("both ran");
    }

    @Test
    void aProgrammaticCall_thatNeedsNoApproval_runsUnderApproval() {
        // AUTO runs low-risk calls unasked
        ToolExecutor ex = builder().approval(ApprovalSettings.builder().mode(ApprovalMode.AUTO)
                .low(List.of("both")).build()).build();
        assertThat(only(run(ex, fromCode("both"))).content()).isEqualTo("both ran");
    }

    @Test
    void theCallerIsShownToAGate() {
        List<Caller> seen = new CopyOnWriteArrayList<>();
        ToolExecutor ex = builder().callGate(c -> {
            seen.add(c.caller());
            return null;
        }).build();
        run(ex, fromCode("both"));
        run(ex, turn("s", "t2", call("c2", "both", "{}")));
        assertThat(seen).containsExactly(Caller.programmatic("srvtoolu_1"), Caller.DIRECT);
    }

    @Test
    void listings_showAllowedCallers_inTheFormatsThatHaveTheField() {
        ToolExecutor ex = builder().build();
        java.util.Map<String, String> openAi = new java.util.HashMap<>();
        for (var t : ex.listTools(new dev.toolbus.protocol.ListToolsEvent("s", "r", null,
                dev.toolbus.protocol.ListToolsEvent.Format.OPENAI)).tools()) {
            openAi.put(t.path("function").path("name").asText(), t.path("allowed_callers").toString());
        }
        assertThat(openAi).containsEntry("both", "[\"direct\",\"programmatic\"]")
                .containsEntry("code_only", "[\"programmatic\"]")
                // the default (direct only) is left out, so listings of ordinary tools do not change
                .containsEntry("direct_only", "");
        java.util.Map<String, String> anthropic = new java.util.HashMap<>();
        for (var t : ex.listTools(new dev.toolbus.protocol.ListToolsEvent("s", "r", null,
                dev.toolbus.protocol.ListToolsEvent.Format.ANTHROPIC)).tools()) {
            anthropic.put(t.path("name").asText(), t.path("allowed_callers").toString());
        }
        assertThat(anthropic).containsEntry("both", "[\"direct\",\"code_execution_20250825\"]")
                .containsEntry("direct_only", "");
        for (var t : ex.listTools(new dev.toolbus.protocol.ListToolsEvent("s", "r", null,
                dev.toolbus.protocol.ListToolsEvent.Format.MCP)).tools()) {
            assertThat(t.has("allowed_callers")).isFalse();
        }
    }

    @Test
    void listings_showTheOperatorsOverride() {
        dev.toolbus.spi.CallRules override = new dev.toolbus.spi.CallRules() {
            @Override
            public Verdict decide(Call call) {
                return Verdict.NONE;
            }

            @Override
            public java.util.Set<CallerType> allowedCallers(ToolDefinition tool) {
                return tool.name().equals("direct_only") ? java.util.EnumSet.allOf(CallerType.class)
                        : tool.allowedCallers();
            }
        };
        ToolExecutor ex = builder().rules(override).build();
        var tools = ex.listTools(new dev.toolbus.protocol.ListToolsEvent("s", "r", null,
                dev.toolbus.protocol.ListToolsEvent.Format.ANTHROPIC)).tools();
        assertThat(tools.stream().filter(t -> t.path("name").asText().equals("direct_only")).findFirst().orElseThrow()
                .path("allowed_callers").toString()).isEqualTo("[\"direct\",\"code_execution_20250825\"]");
        assertThat(only(run(ex, fromCode("direct_only"))).content()).isEqualTo("direct_only ran");
    }
}
