package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A replayed event on the wire: {@code "replayed":true} first, then the event as it was; it matches its schema and reads back. */
class ReplayedEventTest {

    private final EventCodec codec = EventCodec.defaults();

    @Test
    void everyRecordedEventIsWrittenWithReplayedFirst_matchesItsSchema_andReadsBack() {
        List<OutboundEvent> recorded = List.of(Samples.toolResult(), Samples.toolResultError(), Samples.toolResultMedia(),
                Samples.userMessageImage(), Samples.userMessageAudio(), Samples.turnCompleted(), Samples.error());
        for (OutboundEvent e : recorded) {
            String plain = codec.encode(e);
            String wire = codec.encode(ReplayedEvent.of(e));
            assertThat(wire).isEqualTo("{\"replayed\":true," + plain.substring(1));
            assertThat(SchemaConformanceTest.errors(e.type(), Samples.json(wire))).as(wire).isEmpty();
            OutboundEvent back = codec.decodeOutbound(wire);
            assertThat(back).isInstanceOf(ReplayedEvent.class);
            assertThat(back.type()).isEqualTo(e.type());
            assertThat(codec.encode(back)).isEqualTo(wire);
        }
    }

    @Test
    void markingTwiceMarksOnce_andReplayedFalseIsAPlainEvent() {
        OutboundEvent e = Samples.turnCompleted();
        assertThat(ReplayedEvent.of(ReplayedEvent.of(e))).isEqualTo(ReplayedEvent.of(e));
        assertThat(new ReplayedEvent(ReplayedEvent.of(e)).event()).isEqualTo(e);
        String plain = codec.encode(e);
        assertThat(codec.decodeOutbound("{\"replayed\":false," + plain.substring(1))).isNotInstanceOf(ReplayedEvent.class);
    }
}
