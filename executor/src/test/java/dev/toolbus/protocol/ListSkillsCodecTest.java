package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class ListSkillsCodecTest {

    private final EventCodec codec = EventCodec.defaults();

    @Test
    void allFields_areReadAndWrittenBack() {
        ListSkillsEvent e = (ListSkillsEvent) codec.decode("{\"type\":\"list_skills\",\"stream_id\":\"s\",\"request_id\":7,"
                + "\"context\":{\"user_id\":\"u\"},\"text\":\"merge the pdf\",\"selected\":[\" deploy \",\"deploy\",\"\",\"pdf\"]}");
        assertThat(e.requestId()).isEqualTo("7");
        assertThat(e.context().userId()).isEqualTo("u");
        assertThat(e.text()).isEqualTo("merge the pdf");
        assertThat(e.selected()).containsExactly("deploy", "pdf");
        assertThat(codec.decode(codec.encode(e))).isEqualTo(e);
    }

    @Test
    void onlyTheStreamIsNeeded() {
        ListSkillsEvent e = (ListSkillsEvent) codec.decode("{\"type\":\"list_skills\",\"stream_id\":\"s\"}");
        assertThat(e).isEqualTo(ListSkillsEvent.of("s"));
        assertThat(e.text()).isNull();
        assertThat(e.selected()).isEmpty();
    }

    @Test
    void badFields_areBadEventsNamingTheField() {
        assertThatThrownBy(() -> codec.decode("{\"type\":\"list_skills\",\"stream_id\":\"s\",\"selected\":\"pdf\"}"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("selected must be an array");
        assertThatThrownBy(() -> codec.decode("{\"type\":\"list_skills\",\"stream_id\":\"s\",\"selected\":[{}]}"))
                .hasMessageContaining("selected[0] must be a string");
        assertThatThrownBy(() -> codec.decode("{\"type\":\"list_skills\",\"stream_id\":\"s\",\"text\":1}"))
                .hasMessageContaining("text must be a string");
        assertThatThrownBy(() -> codec.decode("{\"type\":\"list_skills\",\"stream_id\":\"s\",\"request_id\":{}}"))
                .hasMessageContaining("request_id must be a string");
        String many = String.join(",", Collections.nCopies(65, "\"x\""));
        assertThatThrownBy(() -> codec.decode("{\"type\":\"list_skills\",\"stream_id\":\"s\",\"selected\":[" + many + "]}"))
                .hasMessageContaining("at most 64");
        String longName = "n".repeat(129);
        assertThatThrownBy(() -> codec.decode("{\"type\":\"list_skills\",\"stream_id\":\"s\",\"selected\":[\"" + longName
                + "\"]}")).hasMessageContaining("selected[0]");
        EventDecodeException e = (EventDecodeException) org.assertj.core.api.Assertions.catchThrowable(
                () -> codec.decode("{\"type\":\"list_skills\",\"stream_id\":\"s\",\"selected\":7}"));
        assertThat(e.streamId()).isEqualTo("s");
    }

    @Test
    void theAnswer_roundTrips() {
        SkillsEvent s = Samples.skills();
        String json = codec.encode(s);
        assertThat(json).startsWith("{\"type\":\"skills\",\"stream_id\":\"qq:group:123\",\"request_id\":\"sk-1\",\"mode\":\"auto\"")
                .contains("\"reason\":\"matched\"").contains("\"skills_omitted\":2");
        assertThat(codec.decodeOutbound(json)).isEqualTo(s);
        SkillsEvent off = SkillsEvent.off(new ListSkillsEvent("s", "r", null, null, List.of("a")));
        assertThat(off.mode()).isEqualTo("off");
        assertThat(off.missing()).containsExactly("a");
    }
}
