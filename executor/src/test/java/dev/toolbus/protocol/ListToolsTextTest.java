package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ListToolsTextTest {

    private final EventCodec codec = EventCodec.defaults();

    @Test
    void text_is_read_and_written() {
        ListToolsEvent e = (ListToolsEvent) codec.decode("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"text\":\"draw a cat\"}");
        assertThat(e.text()).isEqualTo("draw a cat");
        assertThat(codec.encode(e)).contains("\"text\":\"draw a cat\"");
        assertThat(((ListToolsEvent) codec.decode(codec.encode(e))).text()).isEqualTo("draw a cat");
    }

    @Test
    void a_missing_or_blank_text_means_none() {
        assertThat(((ListToolsEvent) codec.decode("{\"type\":\"list_tools\",\"stream_id\":\"s\"}")).text()).isNull();
        assertThat(((ListToolsEvent) codec.decode("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"text\":\"  \"}")).text())
                .isNull();
    }

    @Test
    void a_text_that_is_not_a_string_is_a_bad_event() {
        assertThatThrownBy(() -> codec.decode("{\"type\":\"list_tools\",\"stream_id\":\"s\",\"text\":42}"))
                .isInstanceOf(EventDecodeException.class).hasMessageContaining("text must be a string");
    }
}
