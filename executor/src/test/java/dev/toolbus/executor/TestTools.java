package dev.toolbus.executor;

import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/** Tools and helpers for executor tests. */
public final class TestTools {

    private TestTools() {
    }

    public static ToolSpec echo() {
        return new ToolSpec(ToolDefinition.builder("echo").description("Echo text")
                .parameter(ToolParameter.of("text", ToolParamType.STRING, "text")).build(),
                (a, c) -> Mono.just(ToolResult.text(a.string("text"))));
    }

    /** sleep(ms) on the given scheduler (virtual time in tests). */
    public static ToolSpec sleep(Scheduler scheduler) {
        return new ToolSpec(ToolDefinition.builder("sleep").description("Sleep")
                .parameter(ToolParameter.of("ms", ToolParamType.INTEGER, "ms")).build(),
                (a, c) -> Mono.delay(Duration.ofMillis(a.integer("ms", 0)), scheduler)
                        .map(x -> ToolResult.text("slept " + a.integer("ms", 0))));
    }

    /** A tool that never completes and counts cancellations. */
    public static ToolSpec hang(AtomicInteger started, AtomicInteger cancelled) {
        return new ToolSpec(ToolDefinition.builder("hang").description("Never answers").build(),
                (a, c) -> Mono.<ToolResult>never()
                        .doOnSubscribe(s -> started.incrementAndGet())
                        .doOnCancel(cancelled::incrementAndGet));
    }

    /** A tool that throws on its first {@code failures} runs, then answers "ok". */
    public static ToolSpec flaky(String name, int failures, AtomicInteger runs, boolean sideEffecting) {
        return new ToolSpec(ToolDefinition.builder(name).description("Flaky").sideEffecting(sideEffecting).build(),
                (a, c) -> {
                    int n = runs.incrementAndGet();
                    if (n <= failures) {
                        throw new IllegalStateException("boom " + n);
                    }
                    return Mono.just(ToolResult.text("ok after " + n));
                });
    }

    /** Counts runs; answers "n=<count>:<arg>". */
    public static ToolSpec counter(String name, AtomicInteger runs) {
        return new ToolSpec(ToolDefinition.builder(name).description("Counts")
                .parameter(ToolParameter.builder("q", ToolParamType.STRING).required(false).build()).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("n=" + runs.incrementAndGet() + ":" + a.string("q", ""))));
    }

    public static ToolSpec blocking(String name, ToolHandler.BlockingToolHandler body) {
        return new ToolSpec(ToolDefinition.builder(name).description("Blocking").build(), ToolHandler.blocking(body));
    }

    public static ToolCall call(String id, String name, String argsJson) {
        return ToolCall.ofJson(id, name, argsJson);
    }

    public static ToolCallsEvent turn(String stream, String turnId, ToolCall... calls) {
        return ToolCallsEvent.of(stream, turnId, List.of(calls));
    }

    public static List<ToolResultEvent> results(List<OutboundEvent> events) {
        List<ToolResultEvent> out = new ArrayList<>();
        for (OutboundEvent e : events) {
            if (e instanceof ToolResultEvent r) {
                out.add(r);
            }
        }
        return out;
    }

    public static String json(Object o) {
        try {
            return Json.mapper().writeValueAsString(o);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
