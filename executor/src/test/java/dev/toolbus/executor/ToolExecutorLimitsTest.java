package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.results;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.limits.LimitRule;
import dev.toolbus.executor.limits.LimitStep;
import dev.toolbus.executor.limits.Limits;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.metrics.ExecutorHealth;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.CancelEvent;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.spi.RateLimitStore;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Issue 11.2: token buckets, per-turn caps and concurrency caps, on virtual time. */
class ToolExecutorLimitsTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    /** A tool that answers after {@code ms} of virtual time. */
    private ToolSpec slow(String name, long ms, AtomicInteger started) {
        return new ToolSpec(ToolDefinition.builder(name).description(name).cacheScope(CacheScope.NONE).build(),
                (a, c) -> Mono.delay(Duration.ofMillis(ms), vts).doOnSubscribe(s -> started.incrementAndGet())
                        .map(x -> ToolResult.text(name + " done")));
    }

    private ToolExecutor executor(Limits limits, int maxParallel, ToolSpec... tools) {
        ToolExecutor.Builder b = ToolExecutor.builder().timer(vts).meterRegistry(meters).limits(limits)
                .settings(ExecutionSettings.builder().maxParallel(maxParallel).cacheResults(false).build());
        for (ToolSpec t : tools) {
            b.tool(t);
        }
        return b.build();
    }

    private static Limits rules(LimitRule.Builder... rules) {
        Limits.Builder b = Limits.builder();
        for (LimitRule.Builder r : rules) {
            b.rule(r);
        }
        Limits l = b.build();
        assertThat(l.warnings()).isEmpty();
        return l;
    }

    private static List<ToolResultEvent> run(ToolExecutor ex, ToolCallsEvent turn) {
        return results(ex.execute(turn).collectList().block(Duration.ofSeconds(10)));
    }

    private static ToolCallsEvent userTurn(String user, String turnId, ToolCall... calls) {
        return new ToolCallsEvent("s-" + user, turnId, List.of(calls), CallContext.builder().userId(user).build(), null);
    }

    private double counter(String name, String... tags) {
        var c = meters.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    @Test
    void aTokenBucketRefusesWithRetryAfterAndRefillsOnTheExecutorsClock() {
        ToolExecutor ex = executor(rules(LimitRule.builder("echo-rate").tools(List.of("ech*")).rate(2).periodMs(1000)),
                5, TestTools.echo());
        List<ToolResultEvent> r = run(ex, turn("s", "t1", call("a", "echo", "{\"text\":\"1\"}"),
                call("b", "echo", "{\"text\":\"2\"}"), call("c", "echo", "{\"text\":\"3\"}")));
        assertThat(r).extracting(ToolResultEvent::content).startsWith("1", "2");
        ToolResultEvent refused = r.get(2);
        assertThat(refused.error().code()).isEqualTo(ErrorCode.RATE_LIMITED);
        assertThat(refused.error().retryAfterMs()).isEqualTo(500L);
        assertThat(refused.content()).contains("echo").contains("echo-rate").contains("500 ms");
        assertThat(refused.attempts()).isZero();
        // the encoded event carries retry_after_ms
        assertThat(dev.toolbus.protocol.EventCodec.defaults().encode(refused)).contains("\"retry_after_ms\":500");

        vts.advanceTimeBy(Duration.ofMillis(499));
        assertThat(run(ex, turn("s", "t2", call("d", "echo", "{\"text\":\"4\"}"))).get(0).error().retryAfterMs())
                .isEqualTo(1L);
        vts.advanceTimeBy(Duration.ofMillis(1));
        assertThat(run(ex, turn("s", "t3", call("e", "echo", "{\"text\":\"5\"}"))).get(0).isError()).isFalse();
        assertThat(counter(ToolMetrics.LIMITS_REFUSED, "rule", "echo-rate", "reason", "rate")).isEqualTo(2);
    }

    @Test
    void burstBoundsTheCallsAfterAQuietSpell() {
        ToolExecutor ex = executor(rules(LimitRule.builder("b").rate(1).periodMs(100).burst(3)), 5, TestTools.echo());
        vts.advanceTimeBy(Duration.ofHours(1));
        List<ToolResultEvent> r = run(ex, turn("s", "t", call("a", "echo", "{\"text\":\"x\"}"), call("b", "echo", "{\"text\":\"x\"}"),
                call("c", "echo", "{\"text\":\"x\"}"), call("d", "echo", "{\"text\":\"x\"}")));
        assertThat(r).extracting(x -> x.isError()).containsExactly(false, false, false, true);
        assertThat(r.get(3).error().retryAfterMs()).isEqualTo(100L);
    }

    @Test
    void perUserBucketsAreSeparateAndOtherToolsAreNotLimited() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = executor(rules(LimitRule.builder("per-user").tools(List.of("echo")).rate(1).periodMs(60_000)
                .per(LimitRule.Per.USER)), 5, TestTools.echo(), TestTools.counter("count", runs));
        assertThat(run(ex, userTurn("alice", "t1", call("a", "echo", "{\"text\":\"x\"}"), call("b", "echo", "{\"text\":\"x\"}"),
                call("c", "count", "{}"), call("d", "count", "{}"))))
                .extracting(r -> r.isError() ? r.error().code() : null)
                .containsExactly(null, ErrorCode.RATE_LIMITED, null, null);
        assertThat(run(ex, userTurn("bob", "t1", call("a", "echo", "{\"text\":\"x\"}"))).get(0).isError()).isFalse();
        assertThat(run(ex, userTurn("alice", "t2", call("a", "echo", "{\"text\":\"x\"}"))).get(0).error().retryAfterMs())
                .isEqualTo(60_000L);
    }

    @Test
    void rulesMatchBySourcePluginStreamAndAgent() {
        ToolSpec weather = new ToolSpec(ToolDefinition.builder("forecast").description("f").pluginId("weather")
                .cacheScope(CacheScope.NONE).build(), (a, c) -> Mono.just(ToolResult.text("sunny")));
        ToolExecutor ex = executor(rules(
                LimitRule.builder("plugin").plugins(List.of("weath*")).maxCallsPerTurn(1),
                LimitRule.builder("agent").agents(List.of("bot-*")).sources(List.of("plugin")).tools(List.of("echo"))
                        .maxCallsPerTool(1),
                LimitRule.builder("stream").streams(List.of("noisy:*")).maxCallsPerTurn(2)),
                5, weather, TestTools.echo());
        assertThat(run(ex, turn("quiet", "t", call("a", "forecast", "{}"), call("b", "forecast", "{}"),
                call("c", "echo", "{\"text\":\"x\"}"), call("d", "echo", "{\"text\":\"x\"}"))))
                .extracting(r -> r.isError() ? r.error().code() : null)
                .containsExactly(null, ErrorCode.LIMIT_EXCEEDED, null, null);
        ToolCallsEvent agentTurn = new ToolCallsEvent("quiet", "t2", List.of(call("a", "echo", "{\"text\":\"x\"}"),
                call("b", "echo", "{\"text\":\"x\"}")), CallContext.builder().agentId("bot-7").build(), null);
        assertThat(run(ex, agentTurn)).extracting(ToolResultEvent::isError).containsExactly(false, true);
        assertThat(run(ex, turn("noisy:1", "t", call("a", "echo", "{\"text\":\"x\"}"), call("b", "echo", "{\"text\":\"x\"}"),
                call("c", "echo", "{\"text\":\"x\"}")))).extracting(ToolResultEvent::isError).containsExactly(false, false, true);
    }

    @Test
    void perStreamAndPerAgentBucketsAreSeparate() {
        ToolExecutor ex = executor(rules(
                LimitRule.builder("per-stream").tools(List.of("echo")).rate(1).periodMs(60_000).per(LimitRule.Per.STREAM),
                LimitRule.builder("per-agent").tools(List.of("count")).rate(1).periodMs(30_000).per(LimitRule.Per.AGENT)),
                5, TestTools.echo(), TestTools.counter("count", new AtomicInteger()));
        java.util.function.BiFunction<String, String, ToolCallsEvent> agentTurn = (stream, agent) ->
                new ToolCallsEvent(stream, "t-" + stream + agent, List.of(call("a", "echo", "{\"text\":\"x\"}"),
                        call("b", "count", "{}")), CallContext.builder().agentId(agent).userId("same-user").build(), null);
        assertThat(run(ex, agentTurn.apply("s1", "bot-a"))).extracting(ToolResultEvent::isError).containsExactly(false, false);
        // the same stream, another agent: the stream's echo bucket is empty, the agent's count bucket is full
        List<ToolResultEvent> r = run(ex, agentTurn.apply("s1", "bot-b"));
        assertThat(r).extracting(ToolResultEvent::isError).containsExactly(true, false);
        assertThat(r.get(0).error().retryAfterMs()).isEqualTo(60_000L);
        // another stream, the first agent: echo runs, count is refused with that rule's hint
        r = run(ex, agentTurn.apply("s2", "bot-a"));
        assertThat(r).extracting(ToolResultEvent::isError).containsExactly(false, true);
        assertThat(r.get(1).error().retryAfterMs()).isEqualTo(30_000L);
        assertThat(r.get(1).content()).contains("per-agent");
    }

    /** A tool of {@code plugin} that answers after {@code ms} of virtual time. */
    private ToolSpec slowOf(String name, String plugin, long ms, AtomicInteger started) {
        return new ToolSpec(ToolDefinition.builder(name).description(name).pluginId(plugin)
                .cacheScope(CacheScope.NONE).build(),
                (a, c) -> Mono.delay(Duration.ofMillis(ms), vts).doOnSubscribe(s -> started.incrementAndGet())
                        .map(x -> ToolResult.text(name + " done")));
    }

    private ToolExecutor executorOver(dev.toolbus.registry.ToolRegistry registry, Limits limits, int maxParallel) {
        return ToolExecutor.builder().registry(registry).timer(vts).meterRegistry(meters).limits(limits)
                .settings(ExecutionSettings.builder().maxParallel(maxParallel).cacheResults(false).build()).build();
    }

    @Test
    void sourcesMatchStdioMcpByServerNameAndCore() {
        AtomicInteger started = new AtomicInteger();
        dev.toolbus.registry.ToolRegistry registry = dev.toolbus.registry.ToolRegistry.create();
        registry.register(slowOf("gh_search", "github", 0, started), dev.toolbus.tool.ToolSource.MCP);
        registry.register(slowOf("gh_issue", "github", 0, started), dev.toolbus.tool.ToolSource.MCP);
        registry.register(slowOf("fs_read", "files", 0, started), dev.toolbus.tool.ToolSource.MCP);
        registry.register(slowOf("py_echo", "python-echo", 0, started), dev.toolbus.tool.ToolSource.STDIO);
        registry.register(slowOf("get_time", null, 0, started), dev.toolbus.tool.ToolSource.CORE);
        registry.register(slowOf("java_tool", null, 0, started), dev.toolbus.tool.ToolSource.PLUGIN);
        ToolExecutor ex = executorOver(registry, rules(
                LimitRule.builder("github").sources(List.of("mcp:GitHub")).maxCallsPerTurn(1),
                LimitRule.builder("stdio").sources(List.of("stdio")).maxCallsPerTurn(1),
                LimitRule.builder("core").sources(List.of("core")).maxCallsPerTurn(1),
                LimitRule.builder("all-mcp").sources(List.of("mcp")).maxCallsPerTurn(3)), 5);
        var r = ex.execute(turn("s", "t", call("a", "gh_search", "{}"), call("b", "gh_issue", "{}"),
                call("c", "fs_read", "{}"), call("d", "py_echo", "{}"), call("e", "py_echo", "{}"),
                call("f", "get_time", "{}"), call("g", "get_time", "{}"), call("h", "java_tool", "{}"),
                call("i", "java_tool", "{}"), call("j", "fs_read", "{}"), call("k", "fs_read", "{}")))
                .collectList().toFuture();
        vts.advanceTime();
        assertThat(results(r.join())).extracting(x -> x.isError() ? x.error().code() + " " + x.content() : "ok")
                .containsExactly("ok",
                        "LIMIT_EXCEEDED Tool gh_issue was not run: at most 1 such calls per turn (rule github).",
                        "ok", "ok",
                        "LIMIT_EXCEEDED Tool py_echo was not run: at most 1 such calls per turn (rule stdio).",
                        "ok",
                        "LIMIT_EXCEEDED Tool get_time was not run: at most 1 such calls per turn (rule core).",
                        "ok", "ok", // a Java plugin tool is source plugin, none of these
                        // every MCP call counts, the refused gh_issue too: j is the fourth
                        "LIMIT_EXCEEDED Tool fs_read was not run: at most 3 such calls per turn (rule all-mcp).",
                        "LIMIT_EXCEEDED Tool fs_read was not run: at most 3 such calls per turn (rule all-mcp).");
        assertThat(started).hasValue(6);
    }

    @Test
    void aConcurrencyCapOnAnMcpServerLetsOneOfItsCallsRunAndTheOtherServersToolsRunBeside() {
        AtomicInteger ghStarted = new AtomicInteger();
        AtomicInteger fsStarted = new AtomicInteger();
        dev.toolbus.registry.ToolRegistry registry = dev.toolbus.registry.ToolRegistry.create();
        registry.register(slowOf("gh_search", "github", 1000, ghStarted), dev.toolbus.tool.ToolSource.MCP);
        registry.register(slowOf("gh_issue", "github", 1000, ghStarted), dev.toolbus.tool.ToolSource.MCP);
        registry.register(slowOf("fs_read", "files", 1000, fsStarted), dev.toolbus.tool.ToolSource.MCP);
        ToolExecutor ex = executorOver(registry, rules(
                LimitRule.builder("one-github").plugins(List.of("github")).concurrency(1)), 5);
        var r = ex.execute(turn("s", "t", call("a", "gh_search", "{}"), call("b", "gh_issue", "{}"),
                call("c", "fs_read", "{}"), call("d", "fs_read", "{}"))).collectList().toFuture();
        assertThat(ghStarted).as("one github call at a time, whichever tool").hasValue(1);
        assertThat(fsStarted).hasValue(2);
        assertThat(ex.health().slotsInUse()).isEqualTo(3);
        vts.advanceTimeBy(Duration.ofMillis(1000));
        assertThat(ghStarted).hasValue(2);
        assertThat(r).isNotDone();
        vts.advanceTimeBy(Duration.ofMillis(1000));
        assertThat(results(r.join())).extracting(ToolResultEvent::content)
                .containsExactly("gh_search done", "gh_issue done", "fs_read done", "fs_read done");
        assertThat(counter(ToolMetrics.LIMITS_WAITED, "rule", "one-github")).isEqualTo(1);
    }

    @Test
    void perTurnCapsCountInCallOrderAndCarryNoRetryHint() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = executor(rules(LimitRule.builder("per-tool").maxCallsPerTool(2),
                        LimitRule.builder("per-turn").maxCallsPerTurn(4)), 5,
                TestTools.echo(), TestTools.counter("count", runs));
        List<ToolResultEvent> r = run(ex, turn("s", "t", call("a", "echo", "{\"text\":\"x\"}"), call("b", "count", "{}"),
                call("c", "echo", "{\"text\":\"x\"}"), call("d", "echo", "{\"text\":\"x\"}"), call("e", "count", "{}"), call("f", "count", "{}"),
                call("g", "nope", "{}")));
        assertThat(r).extracting(x -> x.isError() ? x.error().code() : null).containsExactly(null, null, null,
                ErrorCode.LIMIT_EXCEEDED, ErrorCode.LIMIT_EXCEEDED, ErrorCode.LIMIT_EXCEEDED, ErrorCode.UNKNOWN_TOOL);
        assertThat(r.get(3).content()).contains("at most 2 calls of it per turn").contains("per-tool");
        assertThat(r.get(3).error().retryAfterMs()).isNull();
        // every matching call counts in call order, run or not: e is the fifth call of the turn
        assertThat(r.get(4).content()).contains("at most 4 such calls per turn").contains("per-turn");
        // f is over both caps: the first rule in order answers
        assertThat(r.get(5).content()).contains("per-tool");
        assertThat(runs).hasValue(1);
        // the next turn starts counting again
        assertThat(run(ex, turn("s", "t2", call("a", "echo", "{\"text\":\"x\"}"), call("b", "echo", "{\"text\":\"x\"}"))))
                .extracting(ToolResultEvent::isError).containsExactly(false, false);
        assertThat(counter(ToolMetrics.LIMITS_REFUSED, "rule", "per-tool", "reason", "turn")).isEqualTo(2);
    }

    @Test
    void aCallOverItsConcurrencyCapWaitsWithoutHoldingASlot() {
        AtomicInteger started = new AtomicInteger();
        ToolExecutor ex = executor(rules(LimitRule.builder("one-slow").tools(List.of("slow")).concurrency(1)), 2,
                slow("slow", 1000, started), TestTools.echo());
        var slowTurn = ex.execute(turn("s1", "t", call("a", "slow", "{}"), call("b", "slow", "{}")))
                .collectList().toFuture();
        assertThat(started).hasValue(1);
        ExecutorHealth h = ex.health();
        assertThat(h.slotsInUse()).isEqualTo(1);
        assertThat(h.queuedCalls()).isZero();
        assertThat(meters.find(ToolMetrics.LIMITS_WAITING).tag("rule", "one-slow").gauge().value()).isEqualTo(1);
        assertThat(meters.find(ToolMetrics.LIMITS_RUNNING).tag("rule", "one-slow").gauge().value()).isEqualTo(1);
        // another tool runs at once on the free slot
        assertThat(run(ex, turn("s2", "t", call("e", "echo", "{\"text\":\"free\"}"))).get(0).content())
                .isEqualTo("free");
        vts.advanceTimeBy(Duration.ofMillis(1000));
        assertThat(started).hasValue(2);
        assertThat(slowTurn).isNotDone();
        vts.advanceTimeBy(Duration.ofMillis(1000));
        List<ToolResultEvent> r = results(slowTurn.join());
        assertThat(r).extracting(ToolResultEvent::content).containsExactly("slow done", "slow done");
        assertThat(r.get(1).elapsedMs()).isEqualTo(2000);
        assertThat(counter(ToolMetrics.LIMITS_WAITED, "rule", "one-slow")).isEqualTo(1);
        assertThat(meters.find(ToolMetrics.LIMITS_RUNNING).tag("rule", "one-slow").gauge().value()).isZero();
        assertThat(TestEngines.engine(ex).limits().capKeys()).isZero();
    }

    @Test
    void theWaitAtACapIsBoundedByMaxQueuedCalls_beyondItACallEndsRejected() {
        AtomicInteger started = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).meterRegistry(meters)
                .limits(rules(LimitRule.builder("one-slow").tools(List.of("slow")).concurrency(1)))
                .settings(ExecutionSettings.builder().maxParallel(5).maxQueuedCalls(2).cacheResults(false).build())
                .tool(slow("slow", 1000, started)).build();
        var turn = ex.execute(turn("s", "t", call("a", "slow", "{}"), call("b", "slow", "{}"), call("c", "slow", "{}"),
                call("d", "slow", "{}"))).collectList().toFuture();
        assertThat(started).hasValue(1);
        assertThat(meters.find(ToolMetrics.LIMITS_WAITING).tag("rule", "one-slow").gauge().value()).isEqualTo(2);
        vts.advanceTimeBy(Duration.ofMillis(3000));
        List<ToolResultEvent> r = results(turn.join());
        assertThat(r).extracting(x -> x.isError() ? x.error().code() : null).containsExactly(null, null, null,
                ErrorCode.REJECTED);
        assertThat(r.get(3).content()).isEqualTo("Tool slow is busy: 2 calls already wait for it (rule one-slow); retry later.");
        assertThat(r.get(3).attempts()).isZero();
        assertThat(started).hasValue(3);
        assertThat(TestEngines.engine(ex).limits().capKeys()).isZero();
    }

    @Test
    void withOneSlotAWaitingCappedCallDoesNotBlockAnotherTool() {
        AtomicInteger started = new AtomicInteger();
        ToolExecutor ex = executor(rules(LimitRule.builder("cap").tools(List.of("slow")).concurrency(1)), 1,
                slow("slow", 1000, started), slow("other", 10, new AtomicInteger()));
        var first = ex.execute(turn("s1", "t", call("a", "slow", "{}"))).collectList().toFuture();
        var waiting = ex.execute(turn("s2", "t", call("b", "slow", "{}"))).collectList().toFuture();
        var other = ex.execute(turn("s3", "t", call("c", "other", "{}"))).collectList().toFuture();
        // b waits on the cap, not in the slot queue: only "other" queues for the one slot
        assertThat(ex.health().queuedCalls()).isEqualTo(1);
        vts.advanceTimeBy(Duration.ofMillis(1000));
        assertThat(first).isDone();
        vts.advanceTimeBy(Duration.ofMillis(10));
        assertThat(other).isDone();
        assertThat(waiting).isNotDone();
        vts.advanceTimeBy(Duration.ofMillis(1000));
        assertThat(results(waiting.join()).get(0).content()).isEqualTo("slow done");
    }

    @Test
    void aCancelledWaitingCallEndsCancelledAtOnceAndLeavesNothingBehind() {
        AtomicInteger started = new AtomicInteger();
        ToolExecutor ex = executor(rules(LimitRule.builder("cap").tools(List.of("slow")).concurrency(1).per(LimitRule.Per.STREAM)),
                5, slow("slow", 1000, started));
        var t = ex.execute(turn("s", "t", call("a", "slow", "{}"), call("b", "slow", "{}"), call("c", "slow", "{}")))
                .collectList().toFuture();
        assertThat(started).hasValue(1);
        assertThat(ex.control(CancelEvent.builder().streamId("s").turnId("t").toolCallId("b").reason("user stop")
                .build()).block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(meters.find(ToolMetrics.LIMITS_WAITING).tag("rule", "cap").gauge().value()).isEqualTo(1);
        vts.advanceTimeBy(Duration.ofMillis(1000));
        assertThat(started).hasValue(2);
        vts.advanceTimeBy(Duration.ofMillis(1000));
        List<ToolResultEvent> r = results(t.join());
        assertThat(r.get(1).error().code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(r.get(1).elapsedMs()).isZero();
        assertThat(r.get(2).content()).isEqualTo("slow done");
        assertThat(TestEngines.engine(ex).limits().capKeys()).isZero();

        // a subscriber that goes away cancels its waiting calls too
        var a = ex.execute(turn("s", "t2", call("a", "slow", "{}"))).subscribe();
        var b = ex.execute(turn("s2", "t2", call("b", "slow", "{}"))).subscribe();
        assertThat(TestEngines.engine(ex).limits().capKeys()).isEqualTo(2); // per stream: two caps
        b.dispose();
        a.dispose();
        vts.advanceTimeBy(Duration.ofMillis(10));
        assertThat(TestEngines.engine(ex).limits().capKeys()).isZero();
    }

    @Test
    void aCancelOfTheWaitingCallsTurnFreesItsPlaceForTheNext() {
        AtomicInteger started = new AtomicInteger();
        ToolExecutor ex = executor(rules(LimitRule.builder("cap").tools(List.of("slow")).concurrency(1)), 5,
                slow("slow", 1000, started));
        var holder = ex.execute(turn("s1", "t", call("a", "slow", "{}"))).collectList().toFuture();
        var dropped = ex.execute(turn("s2", "t", call("b", "slow", "{}"))).collectList().toFuture();
        var next = ex.execute(turn("s3", "t", call("c", "slow", "{}"))).collectList().toFuture();
        ex.control(CancelEvent.ofTurn("s2", "t")).block();
        assertThat(results(dropped.join()).get(0).error().code()).isEqualTo(ErrorCode.CANCELLED);
        vts.advanceTimeBy(Duration.ofMillis(1000));
        assertThat(holder).isDone();
        assertThat(started).hasValue(2);
        vts.advanceTimeBy(Duration.ofMillis(1000));
        assertThat(results(next.join()).get(0).isError()).isFalse();
    }

    @Test
    void anErrorInTheHandlerReleasesItsPermit() {
        AtomicInteger runs = new AtomicInteger();
        ToolSpec oom = new ToolSpec(ToolDefinition.builder("oom").description("oom").cacheScope(CacheScope.NONE)
                .build(), (a, c) -> {
                    if (runs.incrementAndGet() == 1) {
                        throw new OutOfMemoryError("simulated");
                    }
                    return Mono.just(ToolResult.text("ok"));
                });
        ToolExecutor ex = executor(rules(LimitRule.builder("cap").tools(List.of("oom")).concurrency(1)), 5, oom);
        assertThat(run(ex, turn("s", "t1", call("a", "oom", "{}"))).get(0).error().code())
                .isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(TestEngines.engine(ex).limits().capKeys()).isZero();
        assertThat(run(ex, turn("s", "t2", call("b", "oom", "{}"))).get(0).content()).isEqualTo("ok");
        // a timeout frees it as well
        ToolExecutor ex2 = ToolExecutor.builder().timer(vts).tool(TestTools.hang(new AtomicInteger(), new AtomicInteger()))
                .limits(rules(LimitRule.builder("cap").concurrency(1)))
                .settings(ExecutionSettings.builder().timeoutMs(1000).build()).build();
        var hung = ex2.execute(turn("s", "t", call("a", "hang", "{}"), call("b", "hang", "{}"))).collectList().toFuture();
        vts.advanceTimeBy(Duration.ofMillis(2000));
        assertThat(results(hung.join())).extracting(r -> r.error().code()).containsExactly(ErrorCode.TIMEOUT,
                ErrorCode.TIMEOUT);
        assertThat(results(hung.join()).get(1).elapsedMs()).isEqualTo(2000);
        assertThat(TestEngines.engine(ex2).limits().capKeys()).isZero();
    }

    @Test
    void newLimitsApplyToTheNextCall() {
        AtomicReference<Limits> live = new AtomicReference<>(Limits.NONE);
        ToolExecutor ex = ToolExecutor.builder().timer(vts).meterRegistry(meters).limits(live::get)
                .tool(TestTools.echo()).build();
        assertThat(run(ex, turn("s", "t1", call("a", "echo", "{\"text\":\"x\"}"), call("b", "echo", "{\"text\":\"x\"}"))))
                .extracting(ToolResultEvent::isError).containsExactly(false, false);
        live.set(rules(LimitRule.builder("r").maxCallsPerTool(1)));
        assertThat(run(ex, turn("s", "t2", call("a", "echo", "{\"text\":\"x\"}"), call("b", "echo", "{\"text\":\"x\"}"))))
                .extracting(ToolResultEvent::isError).containsExactly(false, true);
        live.set(rules(LimitRule.builder("r").maxCallsPerTool(2)));
        assertThat(run(ex, turn("s", "t3", call("a", "echo", "{\"text\":\"x\"}"), call("b", "echo", "{\"text\":\"x\"}"))))
                .extracting(ToolResultEvent::isError).containsExactly(false, false);
    }

    @Test
    void aSharedStoreThatFailsOrHangsRefusesTheCall() {
        AtomicReference<Mono<Long>> answer = new AtomicReference<>(Mono.error(new IllegalStateException("down")));
        RateLimitStore broken = (key, rate, periodMs, burst) -> answer.get();
        ToolExecutor ex = ToolExecutor.builder().timer(vts).meterRegistry(meters).tool(TestTools.echo())
                .limits(rules(LimitRule.builder("shared").rate(5).shared(true))).rateLimitStore(broken).build();
        ToolResultEvent r = run(ex, turn("s", "t", call("a", "echo", "{\"text\":\"x\"}"))).get(0);
        assertThat(r.error().code()).isEqualTo(ErrorCode.RATE_LIMITED);
        assertThat(r.content()).contains("cannot be reached");
        assertThat(r.error().retryAfterMs()).isEqualTo(1000L);

        answer.set(Mono.never());
        var hanging = ex.execute(turn("s", "t2", call("a", "echo", "{\"text\":\"x\"}"))).collectList().toFuture();
        vts.advanceTimeBy(LimitStep.STORE_TIMEOUT.minusMillis(1));
        assertThat(hanging).isNotDone();
        vts.advanceTimeBy(Duration.ofMillis(1));
        assertThat(results(hanging.join()).get(0).error().code()).isEqualTo(ErrorCode.RATE_LIMITED);

        // an asynchronous answer: granted, then refused with the store's hint
        answer.set(Mono.just(0L).delayElement(Duration.ofMillis(5), vts));
        var later = ex.execute(turn("s", "t3", call("a", "echo", "{\"text\":\"in\"}"))).collectList().toFuture();
        vts.advanceTimeBy(Duration.ofMillis(5));
        assertThat(results(later.join()).get(0).content()).isEqualTo("in");
        answer.set(Mono.just(700L).delayElement(Duration.ofMillis(5), vts));
        var refused = ex.execute(turn("s", "t4", call("a", "echo", "{\"text\":\"x\"}"))).collectList().toFuture();
        vts.advanceTimeBy(Duration.ofMillis(5));
        assertThat(results(refused.join()).get(0).error().retryAfterMs()).isEqualTo(700L);
        assertThat(counter(ToolMetrics.LIMITS_REFUSED, "rule", "shared", "reason", "store")).isEqualTo(2);
    }

    @Test
    void withoutAMatchingRuleNoMeterAndNoLimitAppear() {
        List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
        ToolExecutor ex = executor(rules(LimitRule.builder("other").tools(List.of("nothing-here")).rate(1)), 5,
                TestTools.echo());
        for (int i = 0; i < 20; i++) {
            seen.addAll(ex.execute(turn("s", "t" + i, call("a", "echo", "{\"text\":\"x\"}"))).collectList().block());
        }
        assertThat(results(seen)).noneMatch(ToolResultEvent::isError);
        assertThat(counter(ToolMetrics.LIMITS_REFUSED, "rule", "other", "reason", "rate")).isZero();
    }
}
