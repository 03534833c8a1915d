package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.assembly.samples.SampleTools;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/** {@code toolbus serve --bus stdio --sample-tools} as a real process: JSON lines in, JSON lines out. */
class SidecarIT {

    private static final Duration EXIT = Duration.ofSeconds(60);

    private ToolbusProcess sidecar;

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    private ToolbusProcess start(TestInfo test, String... extra) throws Exception {
        sidecar = ToolbusProcess.sidecar("sidecar-" + test.getTestMethod().orElseThrow().getName(), extra);
        return sidecar;
    }

    private static String turn(String stream, String turn, String calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                + "\",\"calls\":[" + calls + "],\"context\":{\"user_id\":\"u1\",\"platform\":\"test\"}}";
    }

    private static String call(String id, String name, String args) {
        return "{\"tool_call_id\":\"" + id + "\",\"name\":\"" + name + "\",\"arguments\":" + args + "}";
    }

    private static List<JsonNode> ofTurn(List<JsonNode> events, String stream, String turn) {
        return events.stream()
                .filter(e -> stream.equals(e.path("stream_id").asText()) && turn.equals(e.path("turn_id").asText()))
                .toList();
    }

    private static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.path("type").asText()).toList();
    }

    private static List<JsonNode> errors(List<JsonNode> events) {
        return events.stream().filter(e -> e.path("type").asText().equals("error")).toList();
    }

    @Test
    void goodTurns_getResultsInCallOrderThenMediaThenTurnCompleted(TestInfo test) throws Exception {
        ToolbusProcess p = start(test);
        p.send(turn("s:a", "a1", call("c1", "echo", "{\"text\":\"hi\"}") + ","
                + call("c2", "draw", "{\"label\":\"a cat\"}") + ","
                + "{\"id\":\"c3\",\"type\":\"function\",\"function\":{\"name\":\"add\","
                + "\"arguments\":\"{\\\"a\\\":2,\\\"b\\\":3}\"}}"));
        p.send(turn("s:b", "b1", call("c1", "add", "{\"a\":-7,\"b\":10}")));

        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();

        List<JsonNode> a = ofTurn(p.events(), "s:a", "a1");
        assertThat(types(a)).containsExactly("tool_result", "tool_result", "tool_result", "user_message",
                "turn_completed");
        assertThat(a.subList(0, 3)).extracting(e -> e.path("tool_call_id").asText()).containsExactly("c1", "c2", "c3");
        assertThat(a.subList(0, 3)).allSatisfy(e -> assertThat(e.path("is_error").asBoolean()).isFalse());
        assertThat(a.get(0).path("content").asText()).isEqualTo("hi");
        assertThat(a.get(1).path("content").asText()).startsWith("drew a cat");
        assertThat(a.get(1).path("media")).hasSize(1);
        assertThat(a.get(2).path("data").path("sum").asLong()).isEqualTo(5);
        assertThat(a.get(2).path("content").asText()).contains("5");

        JsonNode media = a.get(3);
        assertThat(media.path("source").asText()).isEqualTo("tool_result_media");
        assertThat(media.path("tool_call_id").asText()).isEqualTo("c2");
        assertThat(media.path("message_id").asText()).isEqualTo("tool_result:c2:1");
        JsonNode image = media.path("content").get(media.path("content").size() - 1);
        assertThat(image.path("type").asText()).isEqualTo("image");
        assertThat(image.path("mime_type").asText()).isEqualTo("image/png");
        assertThat(image.path("data").asText()).isEqualTo(SampleTools.PNG_BASE64);

        assertThat(a.get(4).path("tool_call_ids")).extracting(JsonNode::asText).containsExactly("c1", "c2", "c3");
        assertThat(a.get(4).path("error_count").asInt()).isZero();

        List<JsonNode> b = ofTurn(p.events(), "s:b", "b1");
        assertThat(types(b)).containsExactly("tool_result", "turn_completed");
        assertThat(b.get(0).path("data").path("sum").asLong()).isEqualTo(3);
        assertThat(errors(p.events())).isEmpty();
    }

    @Test
    void failingCalls_areToolResultsWithTheirErrorCodes(TestInfo test) throws Exception {
        ToolbusProcess p = start(test);
        p.send(turn("s:e", "e1", call("c1", "search_web", "{\"query\":\"x\"}") + ","
                + call("c2", "add", "{\"a\":\"two\",\"b\":3}") + ","
                + call("c3", "fail", "{\"message\":\"the disk is on fire\"}") + ","
                + call("c4", "echo", "\"{not json\"") + ","
                + call("c5", "add", "{\"a\":1}") + ","
                + call("c6", "echo", "{\"text\":\"still fine\"}")));

        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();

        List<JsonNode> e = ofTurn(p.events(), "s:e", "e1");
        assertThat(types(e)).containsExactly("tool_result", "tool_result", "tool_result", "tool_result",
                "tool_result", "tool_result", "turn_completed");
        assertThat(e.subList(0, 5)).allSatisfy(r -> assertThat(r.path("is_error").asBoolean()).isTrue());
        assertThat(e.subList(0, 5)).extracting(r -> r.path("error").path("code").asText())
                .containsExactly("UNKNOWN_TOOL", "INVALID_ARGUMENTS", "TOOL_FAILED", "INVALID_ARGUMENTS",
                        "INVALID_ARGUMENTS");
        assertThat(e.get(0).path("content").asText()).contains("search_web");
        assertThat(e.get(1).path("content").asText()).contains("a");
        assertThat(e.get(2).path("content").asText()).contains("the disk is on fire");
        assertThat(e.get(5).path("content").asText()).isEqualTo("still fine");
        assertThat(e.get(6).path("error_count").asInt()).isEqualTo(5);
    }

    @Test
    void badLines_getBadEventErrorsAndTheSidecarKeepsGoing(TestInfo test) throws Exception {
        ToolbusProcess p = start(test, "--max-event-bytes", "2048");
        p.send("this is not json");
        p.send("{\"type\":\"tool_calls\",\"calls\":[]}");
        p.send("{\"type\":\"bogus\",\"stream_id\":\"s:u\",\"turn_id\":\"u1\"}");
        p.send("{\"type\":\"tool_calls\",\"stream_id\":\"s:big\",\"turn_id\":\"big1\",\"calls\":["
                + call("c1", "echo", "{\"text\":\"" + "x".repeat(10_000) + "\"}") + "]}");
        p.send("[1,2,3]");
        p.send(turn("s:ok", "ok1", call("c1", "echo", "{\"text\":\"after the bad lines\"}")));

        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();

        List<JsonNode> errors = errors(p.events());
        assertThat(errors).hasSize(5).allSatisfy(e -> assertThat(e.path("code").asText()).isEqualTo("BAD_EVENT"));
        assertThat(errors).filteredOn(e -> !e.has("stream_id")).hasSize(3);
        assertThat(errors).filteredOn(e -> e.path("stream_id").asText().equals("s:u")).singleElement()
                .satisfies(e -> assertThat(e.path("message").asText()).contains("bogus"));
        assertThat(errors).filteredOn(e -> e.path("stream_id").asText().equals("s:big")).singleElement()
                .satisfies(e -> assertThat(e.path("message").asText()).contains("2048-byte limit"));
        assertThat(ofTurn(p.events(), "s:big", "big1")).hasSize(1);

        List<JsonNode> ok = ofTurn(p.events(), "s:ok", "ok1");
        assertThat(types(ok)).containsExactly("tool_result", "turn_completed");
        assertThat(ok.get(0).path("content").asText()).isEqualTo("after the bad lines");
    }

    @Test
    void endOfInput_drainsEveryTurnInFlightThenExitsZero(TestInfo test) throws Exception {
        ToolbusProcess p = start(test, "--max-parallel", "2");
        for (int i = 0; i < 10; i++) {
            p.send(turn("s:" + i, "t1", call("c1", "sleep", "{\"ms\":300}")));
            p.send(turn("s:" + i, "t2", call("c1", "echo", "{\"text\":\"second of " + i + "\"}")));
        }

        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();

        List<JsonNode> events = p.events();
        for (int i = 0; i < 10; i++) {
            String s = "s:" + i;
            List<JsonNode> own = events.stream().filter(e -> e.path("stream_id").asText().equals(s)).toList();
            assertThat(own).extracting(e -> e.path("turn_id").asText() + "/" + e.path("type").asText())
                    .containsExactly("t1/tool_result", "t1/turn_completed", "t2/tool_result", "t2/turn_completed");
            assertThat(own.get(0).path("content").asText()).isEqualTo("slept 300");
        }
        assertThat(events).hasSize(40);
    }

    @Test
    void stdout_carriesOnlyEvents_evenWithDebugLogging(TestInfo test) throws Exception {
        ToolbusProcess p = start(test, "--log-level", "debug");
        p.send(turn("s:l", "l1", call("c1", "echo", "{\"text\":\"x\"}")));

        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();

        assertThat(types(p.events())).containsExactly("tool_result", "turn_completed");
        assertThat(p.stderr()).isNotBlank();
    }

    @Test
    void settingWarnings_goToStderr(TestInfo test) throws Exception {
        ToolbusProcess p = start(test, "--max-parallel", "50", "--timeout-ms", "5");

        assertThat(p.closeInput().awaitExit(EXIT)).isZero();

        assertThat(p.lines()).isEmpty();
        assertThat(p.stderr()).contains("warning: maxParallel 50 is above 20", "warning: timeout 5 ms is below 1000");
    }

    @Test
    void unknownBus_exitsWith2AndPrintsNothingOnStdout(TestInfo test) throws Exception {
        sidecar = ToolbusProcess.start("sidecar-unknown-bus", "serve", "--bus", "mqtt://127.0.0.1");

        assertThat(sidecar.closeInput().awaitExit(EXIT)).isEqualTo(2);

        assertThat(sidecar.lines()).isEmpty();
        assertThat(sidecar.stderr()).contains("unknown bus 'mqtt://127.0.0.1'");
    }

    @Test
    void pluginsFromAFolderRunThroughTheSidecar(TestInfo test) throws Exception {
        java.nio.file.Path examples = java.nio.file.Path.of("..", "docs", "examples", "plugins").toAbsolutePath()
                .normalize();
        ToolbusProcess p = start(test, "--plugins", examples.toString(), "--log-level", "warn");
        p.send(turn("s:p", "p1", call("c1", "py_echo", "{\"text\":\"Bob\"}")));
        assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();
        List<JsonNode> events = ofTurn(p.events(), "s:p", "p1");
        assertThat(types(events)).endsWith("turn_completed");
        assertThat(events.get(0).path("is_error").asBoolean()).as(events.get(0).toString()).isFalse();
        assertThat(events.get(0).path("content").asText()).contains("Bob");
    }

    @Test
    void sigterm_finishesTheRunningTurnThenExits(TestInfo test) throws Exception {
        ToolbusProcess p = start(test);
        // the calls of a turn start together: once echo's result is out, the sleep is running
        p.send(turn("s:t", "t1", call("c1", "echo", "{\"text\":\"first\"}") + ","
                + call("c2", "sleep", "{\"ms\":1500}")));
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !p.lines().isEmpty());

        p.terminate().awaitExit(EXIT);

        List<JsonNode> events = ofTurn(p.events(), "s:t", "t1");
        assertThat(types(events)).as(p.stderr()).containsExactly("tool_result", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).isEqualTo("slept 1500");
        assertThat(p.stderr()).contains("all turns drained; stopped");
    }
}
