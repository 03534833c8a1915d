package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.IntNode;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.Visibility;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

class ToolExecutorBadInputTest {

    private final AtomicInteger runs = new AtomicInteger();

    private ToolSpec typed() {
        return new ToolSpec(ToolDefinition.builder("typed").description("typed")
                .parameter(ToolParameter.of("a", ToolParamType.INTEGER, "a"))
                .parameter(ToolParameter.builder("mode", ToolParamType.STRING).required(false)
                        .enumValues(List.of("fast", "slow")).build())
                .parameter(ToolParameter.builder("flag", ToolParamType.BOOLEAN).required(false).build())
                .build(), (a, c) -> Mono.fromSupplier(() -> {
                    runs.incrementAndGet();
                    return ToolResult.text("ran " + a.integer("a", -1));
                }));
    }

    private List<OutboundEvent> run(ToolExecutor ex, ToolCall... calls) {
        return ex.execute(turn("s", "t", calls)).collectList().block(Duration.ofSeconds(5));
    }

    @Test
    void everyKindOfBadCallGetsItsCodeAndTheGoodCallsStillRun() {
        ToolSpec hidden = new ToolSpec(ToolDefinition.builder("secret").description("s")
                .visibility(Visibility.HIDDEN).build(), (a, c) -> Mono.just(ToolResult.text("leak")));
        ToolExecutor ex = ToolExecutor.builder().tool(typed()).tool(hidden).build();
        List<OutboundEvent> events = run(ex,
                call("1", "nope", "{}"),
                call("2", "typed", "{not json"),
                call("3", "typed", "[1,2]"),
                call("4", "typed", "{}"),
                call("5", "typed", "{\"a\":\"7\"}"),
                call("6", "typed", "{\"a\":1,\"mode\":\"turbo\"}"),
                call("7", "typed", "{\"a\":1,\"flag\":\"yes\"}"),
                call("8", "secret", "{}"),
                call("9", "", "{}"),
                ToolCall.of("10", "typed", IntNode.valueOf(3)),
                call("11", "typed", "{\"a\":5,\"mode\":null}"),
                call("12", "typed", "{\"a\":2.0}"));
        List<ToolResultEvent> r = TestTools.results(events);
        assertThat(r).extracting(ToolResultEvent::toolCallId)
                .containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12");
        assertThat(r.subList(0, 10)).extracting(e -> e.error().code()).containsExactly(
                ErrorCode.UNKNOWN_TOOL, ErrorCode.INVALID_ARGUMENTS, ErrorCode.INVALID_ARGUMENTS,
                ErrorCode.INVALID_ARGUMENTS, ErrorCode.INVALID_ARGUMENTS, ErrorCode.INVALID_ARGUMENTS,
                ErrorCode.INVALID_ARGUMENTS, ErrorCode.NOT_AVAILABLE, ErrorCode.UNKNOWN_TOOL,
                ErrorCode.INVALID_ARGUMENTS);
        assertThat(r.get(0).content()).isEqualTo("Unknown tool: nope");
        assertThat(r.get(1).content()).startsWith("Invalid arguments for typed: not valid JSON");
        assertThat(r.get(2).content()).contains("must be a JSON object, got array");
        assertThat(r.get(3).content()).contains("missing required argument 'a'");
        assertThat(r.get(4).content()).contains("argument 'a' must be integer, got string");
        assertThat(r.get(5).content()).contains("argument 'mode' must be one of: fast, slow");
        assertThat(r.get(6).content()).contains("argument 'flag' must be boolean, got string");
        assertThat(r.get(7).content()).contains("not available");
        assertThat(r.get(8).content()).contains("no tool name");
        assertThat(r.get(10).isError()).isFalse();
        assertThat(r.get(11).content()).isEqualTo("ran 2");
        assertThat(runs).hasValue(2);
        TurnCompletedEvent done = (TurnCompletedEvent) events.get(events.size() - 1);
        assertThat(done.errorCount()).isEqualTo(10);
    }

    @Test
    void errorTextsFollowTheLocale() {
        ToolExecutor ex = ToolExecutor.builder().tool(typed())
                .settings(ExecutionSettings.builder().locale(DescriptionLocale.ZH).build()).build();
        List<ToolResultEvent> r = TestTools.results(run(ex, call("1", "nope", "{}"), call("2", "typed", "{}")));
        assertThat(r.get(0).content()).isEqualTo("未找到工具：nope");
        assertThat(r.get(1).content()).isEqualTo("工具 typed 缺少必填参数 a。");
    }

    @Test
    void policyDecidesAndDeniedCallsNeverRun() {
        ToolExecutor ex = ToolExecutor.builder().tool(typed())
                .policy((tool, stream, ctx) -> ctx.permission().equals("admin") ? ToolPolicy.Decision.ALLOW
                        : ToolPolicy.Decision.permissionDenied("typed needs admin"))
                .build();
        List<ToolResultEvent> r = TestTools.results(run(ex, call("1", "typed", "{\"a\":1}")));
        assertThat(r.get(0).error().code()).isEqualTo(ErrorCode.PERMISSION_DENIED);
        assertThat(r.get(0).content()).isEqualTo("typed needs admin");
        assertThat(runs).hasValue(0);
    }

    @Test
    void overloadIsRejectedNotQueuedForever() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger cancelled = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(TestTools.hang(started, cancelled))
                .settings(ExecutionSettings.builder().maxParallel(1).maxQueuedCalls(2).cacheResults(false).build())
                .build();
        reactor.core.Disposable running = ex.execute(turn("s", "t",
                call("1", "hang", "{}"), call("2", "hang", "{}"), call("3", "hang", "{}"),
                call("4", "hang", "{}"))).subscribe();
        // call 1 runs, 2 and 3 wait, 4 is one too many: answered at once (results are emitted in order,
        // so the call log shows it before the turn can emit anything)
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> ex.callLog().recent().stream()
                .anyMatch(c -> c.toolCallId().equals("4") && c.outcome().equals("rejected")));
        assertThat(ex.callLog().recent()).hasSize(1);
        assertThat(started).hasValue(1);
        running.dispose();
    }

    @Test
    void resultDataThatCannotBeEncodedIsAToolFailure() {
        ToolSpec weird = new ToolSpec(ToolDefinition.builder("weird").description("w").build(),
                (a, c) -> Mono.just(ToolResult.builder().content("x").data(new Object() {
                    @SuppressWarnings("unused")
                    public Object getSelf() {
                        return this;
                    }
                }).build()));
        ToolExecutor ex = ToolExecutor.builder().tool(weird).build();
        ToolResultEvent r = TestTools.results(run(ex, call("1", "weird", "{}"))).get(0);
        assertThat(r.error().code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(r.content()).contains("cannot be encoded");
    }
}
