package dev.toolbus.assembly.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.InputAction;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.spi.ControlOutcome;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.test.scheduler.VirtualTimeScheduler;

/** progress, greet and ask_city run by a real executor on virtual time. */
class ConversationSampleToolsTest {

    private final VirtualTimeScheduler vts = VirtualTimeScheduler.create();
    private final ToolExecutor ex = ToolExecutor.builder().timer(vts).tools(new SampleTools(vts).specs())
            .settings(ExecutionSettings.builder().cacheResults(false).build()).build();

    private static ToolCallsEvent turn(String name, String args) {
        return turn("t", name, args);
    }

    /** A turn of its own id: a turn run again would get its question's recorded answer without asking. */
    private static ToolCallsEvent turn(String turnId, String name, String args) {
        return ToolCallsEvent.of("s", turnId, List.of(ToolCall.ofJson("c1", name, args)));
    }

    private static String content(List<OutboundEvent> events) {
        return events.stream().filter(e -> e instanceof ToolResultEvent).map(e -> ((ToolResultEvent) e).content())
                .findFirst().orElseThrow();
    }

    @Test
    void progressReportsEachStepThenAnswersDone() {
        var run = ex.execute(turn("progress", "{\"steps\":4,\"ms\":200}")).collectList().toFuture();
        vts.advanceTimeBy(Duration.ofSeconds(1));
        List<OutboundEvent> out = run.join();
        assertThat(out).filteredOn(e -> e instanceof ToolProgressEvent)
                .extracting(e -> ((ToolProgressEvent) e).progress()).containsExactly(1.0, 2.0, 3.0, 4.0);
        ToolProgressEvent first = (ToolProgressEvent) out.get(0);
        assertThat(first.total()).isEqualTo(4.0);
        assertThat(first.message()).isEqualTo("step 1 of 4");
        assertThat(content(out)).isEqualTo("done 4");
    }

    @Test
    void progressWithBadArgumentsIsAnErrorResult() {
        List<OutboundEvent> out = ex.execute(turn("progress", "{\"steps\":-1,\"ms\":5}")).collectList().block();
        assertThat(((ToolResultEvent) out.get(0)).isError()).isTrue();
    }

    @Test
    void greetSendsTheTextBeforeItsResult() {
        List<OutboundEvent> out = ex.execute(turn("greet", "{\"text\":\"你好！\"}")).collectList().block();
        assertThat(out).extracting(OutboundEvent::type).containsExactly("send_message", "tool_result",
                "turn_completed");
        assertThat(((SendMessageEvent) out.get(0)).content().get(0).text()).isEqualTo("你好！");
        assertThat(content(out)).isEqualTo("greeted");
    }

    @Test
    void askCityAnswersWithTheCityOrNoAnswer() {
        for (InputAction action : InputAction.values()) {
            List<OutboundEvent> seen = new CopyOnWriteArrayList<>();
            var run = ex.execute(turn("t-" + action, "ask_city", "{}")).doOnNext(seen::add).collectList().toFuture();
            InputRequestEvent q = (InputRequestEvent) seen.get(0);
            assertThat(q.message()).isEqualTo("Which city?");
            assertThat(q.schema().path("properties").path("city").path("type").asText()).isEqualTo("string");
            assertThat(ex.control(new InputResponseEvent("s", q.inputId(), action,
                    Json.mapper().createObjectNode().put("city", "Paris"))).block()).isEqualTo(ControlOutcome.APPLIED);
            assertThat(content(run.join())).isEqualTo(action == InputAction.ACCEPT ? "city Paris" : "no answer");
        }
        var expiring = ex.execute(turn("t-expiring", "ask_city", "{}")).collectList().toFuture();
        vts.advanceTimeBy(Duration.ofMillis(ExecutionSettings.DEFAULT_INPUT_TIMEOUT_MS));
        assertThat(content(expiring.join())).isEqualTo("no answer");
    }
}
