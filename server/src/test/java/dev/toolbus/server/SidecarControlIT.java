package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Conversation control through {@code toolbus serve --bus stdio --sample-tools} as a real process:
 * control events are read on stdin like turns; the live events come out on stdout before their results.
 */
class SidecarControlIT {

    private static final Duration EXIT = Duration.ofSeconds(60);
    private static final Duration WAIT = Duration.ofSeconds(30);

    private ToolbusProcess sidecar;

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    private ToolbusProcess start(TestInfo test, String... extra) throws Exception {
        sidecar = ToolbusProcess.sidecar("sidecar-control-" + test.getTestMethod().orElseThrow().getName(), extra);
        return sidecar;
    }

    private static String turn(String stream, String turn, String calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                + "\",\"calls\":[" + calls + "]}";
    }

    private static String call(String id, String name, String args) {
        return "{\"tool_call_id\":\"" + id + "\",\"name\":\"" + name + "\",\"arguments\":" + args + "}";
    }

    private static List<JsonNode> ofStream(List<JsonNode> events, String stream) {
        return events.stream().filter(e -> stream.equals(e.path("stream_id").asText())).toList();
    }

    private static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.path("type").asText()).toList();
    }

    private static Optional<JsonNode> find(ToolbusProcess p, String stream, String type) {
        return ofStream(p.events(), stream).stream().filter(e -> type.equals(e.path("type").asText())).findFirst();
    }

    private static JsonNode awaitEvent(ToolbusProcess p, String stream, String type, Duration atMost) {
        await().atMost(atMost).until(() -> find(p, stream, type).isPresent());
        return find(p, stream, type).orElseThrow();
    }

    @Test
    void cancelDuringA30sSleepEndsItCancelledPromptlyKeepsTheRestAndFreesTheSlot(TestInfo test) throws Exception {
        ToolbusProcess p = start(test, "--max-parallel=1");
        // warm up: the process answers a turn, so the timing below measures the cancel only
        p.send(turn("warm", "w1", call("w", "echo", "{\"text\":\"ready\"}")));
        awaitEvent(p, "warm", "turn_completed", WAIT);
        p.send(turn("s:c", "t1", call("c1", "echo", "{\"text\":\"before\"}") + ","
                + call("c2", "sleep", "{\"ms\":30000}") + "," + call("c3", "echo", "{\"text\":\"after\"}")));
        p.send("{\"type\":\"cancel\",\"stream_id\":\"s:c\",\"turn_id\":\"t1\",\"tool_call_id\":\"c2\","
                + "\"reason\":\"user said stop\"}");
        // the issue allows one second
        JsonNode done = awaitEvent(p, "s:c", "turn_completed", Duration.ofSeconds(1));
        List<JsonNode> events = ofStream(p.events(), "s:c");
        assertThat(types(events)).containsExactly("tool_result", "tool_result", "tool_result", "turn_completed");
        assertThat(events.get(0).path("content").asText()).isEqualTo("before");
        assertThat(events.get(1).path("tool_call_id").asText()).isEqualTo("c2");
        assertThat(events.get(1).path("error").path("code").asText()).isEqualTo("CANCELLED");
        assertThat(events.get(2).path("content").asText()).isEqualTo("after");
        assertThat(done.path("error_count").asInt()).isEqualTo(1);
        // one slot: the next call runs only if the cancelled sleep gave it back
        p.send(turn("s:d", "t1", call("d1", "sleep", "{\"ms\":10}")));
        assertThat(awaitEvent(p, "s:d", "tool_result", WAIT).path("content").asText()).isEqualTo("slept 10");
        // a cancel for nothing unfinished is a no-op: no event
        p.send("{\"type\":\"cancel\",\"stream_id\":\"s:c\"}");
        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();
        assertThat(ofStream(p.events(), "s:c")).hasSize(4);
    }

    @Test
    void progressAndGreetEventsArriveInOrderBeforeTheirResults(TestInfo test) throws Exception {
        ToolbusProcess p = start(test);
        p.send(turn("s:p", "t1", call("p1", "progress", "{\"steps\":3,\"ms\":150}")));
        p.send(turn("s:g", "t1", call("g1", "greet", "{\"text\":\"你好！\"}")));
        // 20 steps 5 ms apart under the default 100 ms rate limit: fewer events, the last one kept
        p.send(turn("s:r", "t1", call("r1", "progress", "{\"steps\":20,\"ms\":5}")));
        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();

        List<JsonNode> prog = ofStream(p.events(), "s:p");
        assertThat(types(prog)).containsExactly("tool_progress", "tool_progress", "tool_progress", "tool_result",
                "turn_completed");
        assertThat(prog.subList(0, 3)).extracting(e -> e.path("progress").asInt()).containsExactly(1, 2, 3);
        assertThat(prog.get(0).path("total").asInt()).isEqualTo(3);
        assertThat(prog.get(0).path("name").asText()).isEqualTo("progress");
        assertThat(prog.get(3).path("content").asText()).isEqualTo("done 3");

        List<JsonNode> greet = ofStream(p.events(), "s:g");
        assertThat(types(greet)).containsExactly("send_message", "tool_result", "turn_completed");
        assertThat(greet.get(0).path("message_id").asText()).isEqualTo("g1:msg:1");
        assertThat(greet.get(0).path("content").get(0).path("text").asText()).isEqualTo("你好！");
        assertThat(greet.get(1).path("content").asText()).isEqualTo("greeted");

        List<JsonNode> limited = ofStream(p.events(), "s:r");
        List<JsonNode> steps = limited.stream().filter(e -> e.path("type").asText().equals("tool_progress")).toList();
        assertThat(steps.size()).isBetween(1, 19);
        assertThat(steps.get(steps.size() - 1).path("progress").asInt()).isEqualTo(20);
        assertThat(steps).extracting(e -> e.path("progress").asInt()).isSorted();
        assertThat(types(limited).subList(steps.size(), limited.size())).containsExactly("tool_result",
                "turn_completed");
    }

    @Test
    void askCityRoundTripsAcceptDeclineCancelAndExpiry(TestInfo test) throws Exception {
        ToolbusProcess p = start(test, "--input-timeout-ms=1000");
        String[][] cases = {{"s:a", "accept", "city Paris"}, {"s:d", "decline", "no answer"},
                {"s:x", "cancel", "no answer"}};
        for (String[] c : cases) {
            p.send(turn(c[0], "t1", call("a1", "ask_city", "{}")));
            JsonNode q = awaitEvent(p, c[0], "input_request", WAIT);
            assertThat(q.path("message").asText()).isEqualTo("Which city?");
            assertThat(q.path("schema").path("properties").path("city").path("type").asText()).isEqualTo("string");
            String id = q.path("input_id").asText();
            assertThat(id).startsWith("in-");
            p.send("{\"type\":\"input_response\",\"stream_id\":\"" + c[0] + "\",\"input_id\":\"" + id
                    + "\",\"action\":\"" + c[1] + "\",\"content\":{\"city\":\"Paris\"}}");
            assertThat(awaitEvent(p, c[0], "tool_result", WAIT).path("content").asText()).isEqualTo(c[2]);
            // a second answer to the same id is unknown
            p.send("{\"type\":\"input_response\",\"stream_id\":\"" + c[0] + "\",\"input_id\":\"" + id
                    + "\",\"action\":\"accept\"}");
            assertThat(awaitEvent(p, c[0], "error", WAIT).path("code").asText()).isEqualTo("UNKNOWN_REQUEST");
        }
        p.send(turn("s:e", "t1", call("a1", "ask_city", "{}")));
        JsonNode q = awaitEvent(p, "s:e", "input_request", WAIT);
        assertThat(awaitEvent(p, "s:e", "tool_result", WAIT).path("content").asText()).isEqualTo("no answer");
        // an answer after expiry, and one naming another stream, are unknown
        p.send("{\"type\":\"input_response\",\"stream_id\":\"s:e\",\"input_id\":\"" + q.path("input_id").asText()
                + "\",\"action\":\"accept\"}");
        assertThat(awaitEvent(p, "s:e", "error", WAIT).path("message").asText()).contains(q.path("input_id").asText());
        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();
        assertThat(ofStream(p.events(), "s:e").stream().filter(e -> e.path("type").asText().equals("error")))
                .hasSize(1);
    }

    @Test
    void badControlEventsGetBadEventErrorsAndTheSidecarKeepsGoing(TestInfo test) throws Exception {
        ToolbusProcess p = start(test);
        p.send("{\"type\":\"cancel\",\"stream_id\":\"s:b\",\"tool_call_id\":\"c1\"}");
        p.send("{\"type\":\"approval_response\",\"stream_id\":\"s:b\",\"approval_id\":\"ap-x-1\",\"decision\":\"maybe\"}");
        p.send("{\"type\":\"approval_response\",\"stream_id\":\"s:b\",\"approval_id\":\"ap-x-1\",\"decision\":\"approve\"}");
        p.send(turn("s:b", "t1", call("c1", "echo", "{\"text\":\"still here\"}")));
        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();
        List<JsonNode> events = ofStream(p.events(), "s:b");
        assertThat(types(events)).containsExactly("error", "error", "error", "tool_result", "turn_completed");
        assertThat(events.get(0).path("code").asText()).isEqualTo("BAD_EVENT");
        assertThat(events.get(0).path("message").asText()).contains("without turn_id");
        assertThat(events.get(1).path("message").asText()).contains("approve, deny or approve_session");
        assertThat(events.get(2).path("code").asText()).isEqualTo("UNKNOWN_REQUEST");
    }
}
