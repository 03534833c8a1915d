package dev.toolbus.executor;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.protocol.TurnCompletedEvent;
import dev.toolbus.protocol.UserMessageEvent;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

class ToolExecutorLoadTest {

    static final String PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4//8/AAX+Av5B4iG8AAAAAElFTkSuQmCC";

    @Test
    void parallelismBoundHoldsUnderLoad() {
        AtomicInteger now = new AtomicInteger();
        AtomicInteger peak = new AtomicInteger();
        ToolSpec work = new ToolSpec(ToolDefinition.builder("work").description("w").build(),
                (a, c) -> Mono.fromCallable(() -> {
                            int n = now.incrementAndGet();
                            peak.accumulateAndGet(n, Math::max);
                            return n;
                        })
                        .delayElement(Duration.ofMillis(1), Schedulers.parallel())
                        .map(x -> {
                            now.decrementAndGet();
                            return ToolResult.text("done");
                        }));
        ToolExecutor ex = ToolExecutor.builder().tool(work)
                .settings(ExecutionSettings.builder().maxParallel(3).cacheResults(false).build()).build();
        Long turns = Flux.range(0, 300)
                .flatMap(i -> ex.execute(turn("s" + (i % 37), "t" + i,
                        call("a", "work", "{}"), call("b", "work", "{}"))), 256)
                .filter(e -> e instanceof TurnCompletedEvent)
                .count().block(Duration.ofSeconds(60));
        assertThat(turns).isEqualTo(300);
        assertThat(peak.get()).isEqualTo(3);
        assertThat(ex.inflight()).isZero();
    }

    @Test
    void mediaMessagesComeAfterAllToolResultsOfTheTurn() {
        ToolSpec draw = new ToolSpec(ToolDefinition.builder("draw").description("d").build(),
                (a, c) -> Mono.just(ToolResult.builder().content("drew").item(ContentItem.imageBase64(PNG, "image/png"))
                        .build()));
        ToolExecutor ex = ToolExecutor.builder().tool(draw).tool(TestTools.echo()).build();
        List<OutboundEvent> events = ex.execute(turn("s", "t",
                        call("c1", "draw", "{}"), call("c2", "echo", "{\"text\":\"x\"}"), call("c3", "draw", "{}")))
                .collectList().block(Duration.ofSeconds(5));
        assertThat(events).extracting(OutboundEvent::type).containsExactly("tool_result", "tool_result",
                "tool_result", "user_message", "user_message", "turn_completed");
        ToolResultEvent first = (ToolResultEvent) events.get(0);
        assertThat(first.content()).isEqualTo("drew\n\n<tool_result_media_list>\n"
                + "  <media msg_id=\"tool_result:c1:1\" type=\"image\" mime=\"image/png\" />\n"
                + "</tool_result_media_list>");
        assertThat(first.media()).hasSize(1);
        assertThat(first.media().get(0).index()).isEqualTo("tool_result:c1:1");
        UserMessageEvent m = (UserMessageEvent) events.get(3);
        assertThat(m.messageId()).isEqualTo("tool_result:c1:1");
        assertThat(m.toolCallId()).isEqualTo("c1");
        assertThat(m.source()).isEqualTo("tool_result_media");
        assertThat(m.content()).extracting(p -> p.type()).containsExactly("text", "image");
        assertThat(m.content().get(1).mimeType()).isEqualTo("image/png");
        assertThat(((UserMessageEvent) events.get(4)).messageId()).isEqualTo("tool_result:c3:1");
    }

    @Test
    void oversizedMediaIsAClearErrorResult() {
        String big = "A".repeat(4 * 1024 * 1024);
        ToolSpec huge = new ToolSpec(ToolDefinition.builder("huge").description("h").build(),
                (a, c) -> Mono.just(ToolResult.builder().content("big").item(ContentItem.imageBase64(big, "image/png"))
                        .build()));
        ToolExecutor ex = ToolExecutor.builder().tool(huge)
                .settings(ExecutionSettings.builder().maxMediaBytes(1024 * 1024).build()).build();
        List<OutboundEvent> events = ex.execute(turn("s", "t", call("c", "huge", "{}")))
                .collectList().block(Duration.ofSeconds(5));
        assertThat(events).extracting(OutboundEvent::type).containsExactly("tool_result", "turn_completed");
        ToolResultEvent r = (ToolResultEvent) events.get(0);
        assertThat(r.error().code().name()).isEqualTo("MEDIA_TOO_LARGE");
        assertThat(r.media()).isEmpty();
    }
}
