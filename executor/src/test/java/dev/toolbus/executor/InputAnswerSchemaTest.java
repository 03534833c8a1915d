package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.metrics.ToolMetrics;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.ControlOutcome;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Issue 21, low: an {@code input_response} whose content broke the question's schema reached the
 * tool. It is now checked against the schema: refused with a clear error, and the question still waits.
 */
class InputAnswerSchemaTest {

    private static final JsonNode SCHEMA = read("{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\","
            + "\"maxLength\":40}},\"required\":[\"city\"],\"additionalProperties\":false}");

    private static JsonNode read(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final ToolExecutor ex = ToolExecutor.builder().timer(VirtualTimeScheduler.create()).meterRegistry(meters)
            .tool(new ToolSpec(ToolDefinition.builder("ask_city").description("a").build(),
                    (a, c) -> c.ask("Which city?", SCHEMA).map(ans -> {
                        seen.add(String.valueOf(ans.content()));
                        return ToolResult.text(ans.accepted() ? "city " + ans.content().get("city").asText()
                                : "no answer (" + ans.outcome() + ")");
                    }))).build();
    private final List<OutboundEvent> events = new CopyOnWriteArrayList<>();

    private String questionId() {
        return events.stream().filter(e -> e instanceof InputRequestEvent).map(e -> ((InputRequestEvent) e).inputId())
                .findFirst().orElseThrow();
    }

    @Test
    void contentBreakingTheSchemaNeverReachesTheTool() {
        var run = ex.execute(turn("s", "t", call("c1", "ask_city", "{}"))).doOnNext(events::add).collectList()
                .toFuture();
        String id = questionId();
        for (String bad : List.of("{\"city\":5}", "{}", "{\"city\":\"Paris\",\"admin\":true}",
                "{\"city\":\"" + "x".repeat(41) + "\"}", "\"Paris\"")) {
            assertThat(ex.control(new InputResponseEvent("s", id, InputAction.ACCEPT, read(bad))).block())
                    .as(bad).isEqualTo(ControlOutcome.INVALID_ANSWER);
        }
        List<OutboundEvent> answer = ex.handle(new InputResponseEvent("s", id, InputAction.ACCEPT,
                read("{\"city\":5}"))).collectList().block();
        assertThat(answer).singleElement().isInstanceOfSatisfying(ErrorEvent.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.BAD_EVENT);
            assertThat(e.streamId()).isEqualTo("s");
            assertThat(e.message()).startsWith("the content of input_response '" + id + "' does not match the"
                    + " question's schema: ").contains("city").endsWith("; it was not passed to the tool, and the"
                    + " question still waits for an answer");
        });
        assertThat(seen).as("the tool saw none of them").isEmpty();
        assertThat(run).isNotDone();
        assertThat(ex.control(new InputResponseEvent("s", id, InputAction.ACCEPT, read("{\"city\":\"Paris\"}")))
                .block()).isEqualTo(ControlOutcome.APPLIED);
        assertThat(TestTools.results(run.join()).get(0).content()).isEqualTo("city Paris");
        assertThat(meters.counter(ToolMetrics.CONTROL_INPUTS, "outcome", "invalid").count()).isEqualTo(6);
    }

    @Test
    void declineAndCancelNeedNoContent() {
        var run = ex.execute(turn("s", "t", call("c1", "ask_city", "{}"))).doOnNext(events::add).collectList()
                .toFuture();
        assertThat(ex.control(new InputResponseEvent("s", questionId(), InputAction.DECLINE, null)).block())
                .isEqualTo(ControlOutcome.APPLIED);
        assertThat(TestTools.results(run.join()).get(0).content()).isEqualTo("no answer (DECLINE)");
    }
}
