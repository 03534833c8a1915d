package dev.toolbus.executor.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.protocol.ContentPart;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.SendMessageEvent;
import dev.toolbus.protocol.ToolProgressEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

class TurnLiveEventsTest {

    private static ToolProgressEvent progress(int i) {
        return ToolProgressEvent.builder().streamId("s").turnId("t").toolCallId("c").name("p").progress(i).build();
    }

    @Test
    void publishesOneAtATimeInOrderAndRunsTheIdleWaiterAfterTheLast() {
        List<OutboundEvent> published = new ArrayList<>();
        List<Sinks.Empty<Void>> pending = new ArrayList<>();
        TurnLiveEvents ch = new TurnLiveEvents(events -> {
            published.addAll(events);
            Sinks.Empty<Void> s = Sinks.empty();
            pending.add(s);
            return s.asMono();
        });
        AtomicBoolean done2 = new AtomicBoolean();
        ch.offer(progress(1));
        ch.offer(progress(2)).subscribe(null, null, () -> done2.set(true));
        AtomicBoolean idle = new AtomicBoolean();
        ch.whenIdle(() -> idle.set(true));
        // the second waits until the first publish completed
        assertThat(published).hasSize(1);
        pending.get(0).tryEmitEmpty();
        assertThat(published).extracting(e -> ((ToolProgressEvent) e).progress()).containsExactly(1.0, 2.0);
        assertThat(done2).isFalse();
        assertThat(idle).isFalse();
        pending.get(1).tryEmitEmpty();
        assertThat(done2).isTrue();
        assertThat(idle).isTrue();
    }

    @Test
    void aFailedPublishFailsItsEntryAndTheNextOneStillGoes() {
        List<OutboundEvent> published = new ArrayList<>();
        TurnLiveEvents ch = new TurnLiveEvents(events -> {
            published.addAll(events);
            return published.size() == 1 ? Mono.error(new IllegalStateException("broker down")) : Mono.empty();
        });
        List<Throwable> errors = new ArrayList<>();
        ch.offer(progress(1)).subscribe(null, errors::add);
        ch.offer(progress(2)).subscribe(null, errors::add);
        assertThat(errors).singleElement().satisfies(e -> assertThat(e).hasMessage("broker down"));
        assertThat(published).hasSize(2);
        AtomicBoolean idle = new AtomicBoolean();
        ch.whenIdle(() -> idle.set(true));
        assertThat(idle).isTrue();
    }

    @Test
    void offersBeyondTheEntryOrByteBoundAreRefused() {
        TurnLiveEvents stuck = new TurnLiveEvents(events -> Mono.never());
        for (int i = 0; i < TurnLiveEvents.MAX_PENDING; i++) {
            assertThat(stuck.offer(progress(i))).isNotNull();
        }
        assertThat(stuck.offer(progress(999))).isNull();

        TurnLiveEvents big = new TurnLiveEvents(events -> Mono.never());
        String mb = "x".repeat(1024 * 1024);
        assertThat(big.offer(SendMessageEvent.builder().streamId("s").turnId("t").toolCallId("c").messageId("c:msg:1")
                .content(List.of(ContentPart.text(mb))).build()))
                .isNotNull();
        assertThat(big.offer(SendMessageEvent.builder().streamId("s").turnId("t").toolCallId("c").messageId("c:msg:2")
                .content(List.of(ContentPart.text(mb))).build()))
                .isNull();
    }

    @Test
    void aPublishFunctionThatThrowsAnErrorStillSettlesTheEntry() {
        TurnLiveEvents ch = new TurnLiveEvents(events -> {
            throw new StackOverflowError("deep");
        });
        List<Throwable> errors = new ArrayList<>();
        ch.offer(progress(1)).subscribe(null, errors::add);
        assertThat(errors).singleElement().isInstanceOf(StackOverflowError.class);
        AtomicBoolean idle = new AtomicBoolean();
        ch.whenIdle(() -> idle.set(true));
        assertThat(idle).isTrue();
    }
}
