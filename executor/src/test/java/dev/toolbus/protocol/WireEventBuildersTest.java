package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The builders of the wire events: what they require, default, copy and compare. */
class WireEventBuildersTest {

    private static final TraceContext TRACE =
            new TraceContext("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", null);

    @Test
    void toolResult_defaultsEmptyValues_andKeepsWhatWasSet() {
        ToolResultEvent r = ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c").attempts(2)
                .elapsedMs(7).build();
        assertThat(r.name()).isEmpty();
        assertThat(r.content()).isEmpty();
        assertThat(r.metadata()).isEmpty();
        assertThat(r.media()).isEmpty();
        assertThat(r.isError()).isFalse();
        assertThat(r.attempts()).isEqualTo(2);
        assertThat(r.elapsedMs()).isEqualTo(7);
        assertThat(r.trace()).isNull();
    }

    @Test
    void toolResult_refusesMissingIdsAndAnErrorWithoutItsInfo() {
        assertThatThrownBy(() -> ToolResultEvent.builder().turnId("t").toolCallId("c").build())
                .isInstanceOf(NullPointerException.class).hasMessage("streamId");
        assertThatThrownBy(() -> ToolResultEvent.builder().streamId("s").toolCallId("c").build())
                .isInstanceOf(NullPointerException.class).hasMessage("turnId");
        assertThatThrownBy(() -> ToolResultEvent.builder().streamId("s").turnId("t").build())
                .isInstanceOf(NullPointerException.class).hasMessage("toolCallId");
        assertThatThrownBy(() -> ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c").isError(true)
                .build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs an error");
    }

    @Test
    void toolResult_copiesTheMediaList_soTheCallersListCanChange() {
        List<MediaRef> media = new ArrayList<>();
        media.add(MediaRef.builder().index("tool_result:c:1").type("image").mimeType("image/png").build());
        ToolResultEvent r = ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c").media(media).build();
        media.clear();
        assertThat(r.media()).hasSize(1);
        assertThatThrownBy(() -> r.media().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void toBuilder_andWithTrace_copyEveryOtherField() {
        ToolResultEvent r = ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c").name("x")
                .content("boom").isError(true).error(new ErrorInfo(ErrorCode.TOOL_ERROR, "boom"))
                .data(Map.of("a", 1)).metadata(Map.of("m", "v")).attempts(3).cached(false).elapsedMs(9).build();
        assertThat(r.toBuilder().build()).isEqualTo(r).hasSameHashCodeAs(r);
        ToolResultEvent traced = r.withTrace(TRACE);
        assertThat(traced.trace()).isEqualTo(TRACE);
        assertThat(traced).isNotEqualTo(r);
        assertThat(traced.withTrace(null)).isEqualTo(r);
        assertThat(traced.toBuilder().trace(null).build()).isEqualTo(r);
        assertThat(r.toBuilder().attempts(4).build()).isNotEqualTo(r);
        assertThat(r.toString()).startsWith("ToolResultEvent[streamId=s, turnId=t, toolCallId=c, name=x");
    }

    @Test
    void cancel_factoriesAreTheBuildersCommonShapes() {
        assertThat(CancelEvent.ofStream("s")).isEqualTo(CancelEvent.builder().streamId("s").build());
        assertThat(CancelEvent.ofTurn("s", "t")).isEqualTo(CancelEvent.builder().streamId("s").turnId("t").build());
        CancelEvent one = CancelEvent.builder().streamId("s").turnId("t").toolCallId("c").reason("stop").build();
        assertThat(one.toolCallId()).isEqualTo("c");
        assertThat(one.reason()).isEqualTo("stop");
        assertThat(CancelEvent.ofStream("s").reason()).isEmpty();
        assertThatThrownBy(() -> CancelEvent.builder().streamId("s").toolCallId("c").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs its turn_id");
        assertThatThrownBy(() -> CancelEvent.ofTurn("s", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> CancelEvent.ofStream(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void progress_refusesNumbersThatAreNotFinite() {
        ToolProgressEvent.Builder b = ToolProgressEvent.builder().streamId("s").turnId("t").toolCallId("c");
        assertThat(b.progress(1.5).build().progress()).isEqualTo(1.5);
        assertThatThrownBy(() -> b.progress(Double.NaN).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("progress must be a finite number");
        assertThatThrownBy(() -> b.progress(1).total(Double.POSITIVE_INFINITY).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("total must be a finite number");
    }

    @Test
    void userMessage_keepsTheInProcessItem_butNeverWritesIt() {
        ContentPart item = ContentPart.builder("audio").mimeType("audio/wav").data("UklG").name("a.wav").build();
        UserMessageEvent m = UserMessageEvent.builder().streamId("s").turnId("t").messageId("tool_result:c:1")
                .toolCallId("c").content(List.of(ContentPart.text("<media />"))).item(item).build();
        assertThat(m.source()).isEqualTo(UserMessageEvent.TOOL_RESULT_MEDIA);
        assertThat(m.item()).isEqualTo(item);
        assertThat(m.withTrace(TRACE).item()).isEqualTo(item);
        EventCodec codec = EventCodec.defaults();
        String json = codec.encode(m);
        assertThat(json).doesNotContain("UklG").doesNotContain("a.wav");
        UserMessageEvent back = (UserMessageEvent) codec.decodeOutbound(json);
        assertThat(back.item()).isNull();
        assertThat(back.toBuilder().item(item).build()).isEqualTo(m);
    }

    @Test
    void skillsOff_answersWithEveryListEmptyAndTheSelectionMissing() {
        ListSkillsEvent request = new ListSkillsEvent("s", "r1", null, null, List.of("pdf"));
        SkillsEvent off = SkillsEvent.off(request);
        assertThat(off.mode()).isEqualTo("off");
        assertThat(off.requestId()).isEqualTo("r1");
        assertThat(off.missing()).containsExactly("pdf");
        assertThat(off.skills()).isEmpty();
        assertThat(off.documents()).isEmpty();
        assertThat(off.loaded()).isEmpty();
        assertThat(off.omitted()).isEmpty();
    }

    @Test
    void everyConvertedEvent_survivesTheWireWithItsTrace() {
        EventCodec codec = EventCodec.defaults();
        List<OutboundEvent> events = List.of(
                ToolsEvent.builder().streamId("s").requestId("r").format("openai").tools(List.of()).build(),
                InputRequestEvent.builder().streamId("s").turnId("t").toolCallId("c").inputId("in-1")
                        .expiresAtMs(5).message("city?").build(),
                SendMessageEvent.builder().streamId("s").turnId("t").toolCallId("c")
                        .messageId(SendMessageEvent.messageId("c", 1)).content(List.of(ContentPart.text("hi"))).build(),
                ApprovalRequestEvent.builder().streamId("s").turnId("t").approvalId("ap-1").expiresAtMs(5)
                        .calls(List.of(new ApprovalRequestEvent.Call("c", "rm", Risk.HIGH, "{}"))).text("ok?").build(),
                ToolProgressEvent.builder().streamId("s").turnId("t").toolCallId("c").name("p").progress(2).total(4.0)
                        .build(),
                SkillsEvent.builder().streamId("s").requestId("r").mode("all")
                        .skills(List.of(new SkillsEvent.SkillEntry("pdf", "PDF forms"))).skillsOmitted(1)
                        .truncated(true).build(),
                ToolResultEvent.builder().streamId("s").turnId("t").toolCallId("c").name("x").content("ok")
                        .media(List.of(MediaRef.builder().index("tool_result:c:1").type("image").build()))
                        .attempts(1).build());
        for (OutboundEvent e : events) {
            OutboundEvent traced = e.withTrace(TRACE);
            assertThat(codec.decodeOutbound(codec.encode(traced))).as(e.type()).isEqualTo(traced);
            assertThat(codec.decodeOutbound(codec.encode(e))).as(e.type()).isEqualTo(e);
        }
    }
}
