package dev.toolbus.server.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PrefixSnifferTest {

    private static PrefixSniffer.Ids sniff(String prefix) {
        return PrefixSniffer.sniff(prefix.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void sniff_findsTopLevelIdsInATruncatedEvent() {
        PrefixSniffer.Ids ids = sniff("{\"type\":\"tool_calls\",\"context\":{\"stream_id\":\"nested\"},"
                + "\"stream_id\":\"qq:group:1\",\"turn_id\":\"t9\",\"calls\":[{\"name\":\"echo\",\"argum");

        assertThat(ids).isEqualTo(new PrefixSniffer.Ids("qq:group:1", "t9"));
    }

    @Test
    void sniff_idsCutOffOrMissing_areNull() {
        assertThat(sniff("{\"type\":\"tool_calls\",\"calls\":[1,2")).isEqualTo(new PrefixSniffer.Ids(null, null));
        assertThat(sniff("{\"stream_id\":\"abc")).isEqualTo(new PrefixSniffer.Ids(null, null));
        assertThat(sniff("not json")).isEqualTo(new PrefixSniffer.Ids(null, null));
        assertThat(sniff("{\"stream_id\":\"  \"")).isEqualTo(new PrefixSniffer.Ids(null, null));
    }
}
