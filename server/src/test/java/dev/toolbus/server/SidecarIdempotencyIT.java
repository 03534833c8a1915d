package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Idempotent turns on the stdio bus, against the real sidecar process: a turn sent again after it
 * finished is answered with its events marked {@code replayed} and not run; a turn sent twice at once
 * runs once and is answered once. The {@code count} sample tool shows how often it ran.
 */
class SidecarIdempotencyIT {

    private ToolbusProcess sidecar;

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    private static String turn(String turnId, String calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"s:i\",\"turn_id\":\"" + turnId + "\",\"calls\":[" + calls + "]}";
    }

    private static String count(String id, String key) {
        return "{\"tool_call_id\":\"" + id + "\",\"name\":\"count\",\"arguments\":{\"key\":\"" + key + "\"}}";
    }

    private List<JsonNode> ofTurn(String turnId) {
        return sidecar.events().stream().filter(e -> turnId.equals(e.path("turn_id").asText())).toList();
    }

    @Test
    void aRepeatedTurnIsReplayedAndADuplicateOfARunningTurnJoinsIt() throws Exception {
        sidecar = ToolbusProcess.sidecar("sidecar-idempotency");
        String first = turn("i1", count("c1", "a"));
        sidecar.send(first);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ofTurn("i1").size() == 2);
        sidecar.send(first); // the bot core retried
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> ofTurn("i1").size() == 4);
        List<JsonNode> i1 = ofTurn("i1");
        assertThat(i1.get(0).path("content").asText()).isEqualTo("run 1 of a");
        assertThat(i1.get(0).has("replayed")).isFalse();
        assertThat(i1.subList(2, 4)).allSatisfy(e -> assertThat(e.path("replayed").asBoolean()).isTrue());
        assertThat(i1.get(2).path("content").asText()).isEqualTo("run 1 of a");
        assertThat(i1.get(3).path("type").asText()).isEqualTo("turn_completed");
        String replayedLine = sidecar.lines().stream().filter(l -> l.contains("\"replayed\"")).findFirst().orElseThrow();
        assertThat(replayedLine).startsWith("{\"replayed\":true,\"type\":\"tool_result\"");

        // sent twice at once: the second arrives while the first sleeps, joins it and adds nothing
        String slow = turn("j1", "{\"tool_call_id\":\"c1\",\"name\":\"sleep\",\"arguments\":{\"ms\":1500}},"
                + count("c2", "b"));
        sidecar.send(slow).send(slow);
        assertThat(sidecar.closeInput().awaitExit(Duration.ofSeconds(60))).as(sidecar.stderr()).isZero();
        List<JsonNode> j1 = ofTurn("j1");
        assertThat(j1).extracting(e -> e.path("type").asText())
                .containsExactly("tool_result", "tool_result", "turn_completed");
        assertThat(j1).noneMatch(e -> e.has("replayed"));
        assertThat(j1.get(1).path("content").asText()).isEqualTo("run 2 of b"); // count ran once more in all
        assertThat(sidecar.events()).noneMatch(e -> e.path("type").asText().equals("error"));
    }
}
