package dev.toolbus.executor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ErrorEvent;
import dev.toolbus.protocol.ListSkillsEvent;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SkillsEvent;
import dev.toolbus.spi.SkillProvider;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/** list_skills through {@link ToolExecutor#handle} and the bus loop, with and without a provider. */
class ListSkillsRoutingTest {

    private static final SkillProvider ONE = r -> Mono.just(SkillsEvent.builder().streamId(r.streamId())
            .requestId(r.requestId()).mode("all").skills(List.of(new SkillsEvent.SkillEntry("pdf", "PDF forms")))
            .build());

    @Test
    void withoutAProvider_theAnswerIsModeOffAndEmpty() {
        ToolExecutor ex = ToolExecutor.builder().build();
        OutboundEvent e = ex.handle(new ListSkillsEvent("s", "r1", null, "hi", List.of("x"))).blockLast();
        SkillsEvent s = (SkillsEvent) e;
        assertThat(s.mode()).isEqualTo("off");
        assertThat(s.requestId()).isEqualTo("r1");
        assertThat(s.skills()).isEmpty();
        assertThat(s.missing()).containsExactly("x");
    }

    @Test
    void onABus_listSkillsIsAnsweredOnItsStream_andAFailingProviderGivesAnErrorEvent() {
        InMemoryBus bus = InMemoryBus.create();
        ToolExecutor ex = ToolExecutor.builder().skills(ONE).build();
        var got = bus.events("s1").take(1).collectList().toFuture();
        Disposable running = ex.attach(bus);
        bus.send("{\"type\":\"list_skills\",\"stream_id\":\"s1\",\"request_id\":\"q\"}");
        SkillsEvent s = (SkillsEvent) got.join().get(0);
        assertThat(s.requestId()).isEqualTo("q");
        assertThat(s.skills()).extracting(SkillsEvent.SkillEntry::name).containsExactly("pdf");
        running.dispose();

        InMemoryBus bus2 = InMemoryBus.create();
        ToolExecutor broken = ToolExecutor.builder().skills(r -> Mono.error(new IllegalStateException("boom"))).build();
        var err = bus2.events("s2").take(1).collectList().toFuture();
        var next = bus2.events("s3").take(1).collectList().toFuture();
        Disposable r2 = broken.attach(bus2);
        bus2.send("{\"type\":\"list_skills\",\"stream_id\":\"s2\"}");
        bus2.send("{\"type\":\"list_skills\",\"stream_id\":\"s3\"}");
        ErrorEvent e = (ErrorEvent) err.join().get(0);
        assertThat(e.code()).isEqualTo(ErrorCode.TOOL_FAILED);
        assertThat(e.message()).contains("list_skills failed").doesNotContain("boom");
        // the loop goes on after the failure
        assertThat(next.orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join()).hasSize(1);
        r2.dispose();
    }
}
