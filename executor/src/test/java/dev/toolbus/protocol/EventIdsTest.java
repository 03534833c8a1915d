package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EventIdsTest {

    private static EventIds sniff(String prefix) {
        return EventIds.peek(prefix.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void sniff_findsTopLevelIdsInATruncatedEvent() {
        EventIds ids = sniff("{\"type\":\"tool_calls\",\"context\":{\"stream_id\":\"nested\"},"
                + "\"stream_id\":\"qq:group:1\",\"turn_id\":\"t9\",\"calls\":[{\"name\":\"echo\",\"argum");

        assertThat(ids).isEqualTo(new EventIds("qq:group:1", "t9"));
    }

    @Test
    void sniff_idsCutOffOrMissing_areNull() {
        assertThat(sniff("{\"type\":\"tool_calls\",\"calls\":[1,2")).isEqualTo(new EventIds(null, null));
        assertThat(sniff("{\"stream_id\":\"abc")).isEqualTo(new EventIds(null, null));
        assertThat(sniff("not json")).isEqualTo(new EventIds(null, null));
        assertThat(sniff("{\"stream_id\":\"  \"")).isEqualTo(new EventIds(null, null));
    }
}
