package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.EventCodec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code toolbus demo} as a real process. */
class DemoIT {

    @Test
    void demo_printsEveryEventAsAValidJsonLineAndExitsZero() throws Exception {
        try (ToolbusProcess demo = ToolbusProcess.start("demo", "demo")) {
            assertThat(demo.closeInput().awaitExit(Duration.ofSeconds(60))).as(demo.stderr()).isZero();

            EventCodec codec = EventCodec.defaults();
            assertThat(demo.lines()).isNotEmpty().allSatisfy(line -> assertThat(codec.decodeOutbound(line)).isNotNull());

            List<JsonNode> events = demo.events();
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("turn_completed")).hasSize(3);
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("tool_result")).hasSize(7);
            assertThat(events).filteredOn(e -> e.path("type").asText().equals("user_message")).singleElement()
                    .satisfies(m -> assertThat(m.path("message_id").asText()).isEqualTo("tool_result:call_2:1"));
            assertThat(events).extracting(e -> e.path("error").path("code").asText())
                    .contains("TOOL_FAILED", "UNKNOWN_TOOL", "INVALID_ARGUMENTS");
            assertThat(events).extracting(e -> e.path("stream_id").asText()).containsOnly("demo:alice", "demo:bob");
        }
    }
}
