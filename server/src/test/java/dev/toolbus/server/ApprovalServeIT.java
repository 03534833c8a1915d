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
 * The approval step through a real {@code serve --bus stdio --sample-tools} process: {@code wipe}
 * (risk high) under {@code --approval-mode auto} waits for an {@code approval_response}.
 */
class ApprovalServeIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private ToolbusProcess sidecar;

    @AfterEach
    void stop() {
        if (sidecar != null) {
            sidecar.close();
        }
    }

    private ToolbusProcess start(TestInfo test, String... extra) throws Exception {
        String[] args = new String[2 + extra.length];
        args[0] = "--log-level";
        args[1] = "warn";
        System.arraycopy(extra, 0, args, 2, extra.length);
        sidecar = ToolbusProcess.sidecar("approval-" + test.getTestMethod().orElseThrow().getName(), args);
        return sidecar;
    }

    private static String turn(String stream, String turn, String context, String... calls) {
        return "{\"type\":\"tool_calls\",\"stream_id\":\"" + stream + "\",\"turn_id\":\"" + turn
                + "\",\"calls\":[" + String.join(",", calls) + "],\"context\":{\"user_id\":\"u1\"" + context + "}}";
    }

    private static String call(String id, String name, String args) {
        return "{\"tool_call_id\":\"" + id + "\",\"name\":\"" + name + "\",\"arguments\":" + args + "}";
    }

    private static String answer(String stream, String approvalId, String decision) {
        return "{\"type\":\"approval_response\",\"stream_id\":\"" + stream + "\",\"approval_id\":\"" + approvalId
                + "\",\"decision\":\"" + decision + "\"}";
    }

    private static List<JsonNode> ofTurn(ToolbusProcess p, String stream, String turn) {
        return p.events().stream()
                .filter(e -> stream.equals(e.path("stream_id").asText()) && turn.equals(e.path("turn_id").asText()))
                .toList();
    }

    private static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.path("type").asText()).toList();
    }

    private static JsonNode awaitEvent(ToolbusProcess p, String stream, String turn, String type) {
        await().atMost(WAIT).until(() -> first(p, stream, turn, type).isPresent());
        return first(p, stream, turn, type).orElseThrow();
    }

    private static Optional<JsonNode> first(ToolbusProcess p, String stream, String turn, String type) {
        return ofTurn(p, stream, turn).stream().filter(e -> e.path("type").asText().equals(type)).findFirst();
    }

    @Test
    void wipeUnderAuto_asksOnce_andRunsOnlyAfterApprove(TestInfo test) throws Exception {
        ToolbusProcess p = start(test, "--approval-mode=auto");
        p.send(turn("s1", "t1", "", call("c1", "wipe", "{\"target\":\"disk\"}"),
                call("c2", "echo", "{\"text\":\"hi\",\"api_key\":\"sk-secret\"}")));
        JsonNode request = awaitEvent(p, "s1", "t1", "approval_request");
        assertThat(request.path("approval_id").asText()).as("derived from the turn").matches("ap-[0-9a-f]{16}");
        assertThat(request.path("expires_at_ms").asLong()).isGreaterThan(System.currentTimeMillis() + 30_000);
        assertThat(request.path("calls")).hasSize(2);
        assertThat(request.path("calls").get(0).path("tool_call_id").asText()).isEqualTo("c1");
        assertThat(request.path("calls").get(0).path("risk").asText()).isEqualTo("high");
        assertThat(request.path("calls").get(0).path("arguments_summary").asText()).isEqualTo("{\"target\":\"disk\"}");
        assertThat(request.path("calls").get(1).path("risk").asText()).isEqualTo("medium");
        assertThat(request.path("calls").get(1).path("arguments_summary").asText())
                .isEqualTo("{\"text\":\"hi\",\"api_key\":\"***\"}");
        assertThat(request.path("text").asText()).startsWith("The model requested these tools:\n[1] wipe risk: high");
        assertThat(types(ofTurn(p, "s1", "t1"))).as("nothing ran before the answer").containsExactly("approval_request");

        p.send(answer("s1", request.path("approval_id").asText(), "approve"));
        awaitEvent(p, "s1", "t1", "turn_completed");
        List<JsonNode> events = ofTurn(p, "s1", "t1");
        assertThat(types(events)).containsExactly("approval_request", "tool_result", "tool_result", "turn_completed");
        assertThat(events.get(1).path("content").asText()).isEqualTo("wiped disk");
        assertThat(events.get(2).path("content").asText()).isEqualTo("hi");
        assertThat(events.get(3).path("error_count").asInt()).isZero();

        p.send(answer("s1", request.path("approval_id").asText(), "approve"));
        await().atMost(WAIT).until(() -> p.events().stream().anyMatch(e -> e.path("type").asText().equals("error")));
        JsonNode error = p.events().stream().filter(e -> e.path("type").asText().equals("error")).findFirst().orElseThrow();
        assertThat(error.path("code").asText()).as("answered twice").isEqualTo("UNKNOWN_REQUEST");
        assertThat(p.closeInput().awaitExit(WAIT)).as(p.stderr()).isZero();
    }

    @Test
    void deny_isNotApproved_andApproveSessionSkipsTheNextAsk(TestInfo test) throws Exception {
        ToolbusProcess p = start(test, "--approval-mode=auto");
        p.send(turn("s1", "t1", "", call("c1", "wipe", "{\"target\":\"disk\"}")));
        JsonNode request = awaitEvent(p, "s1", "t1", "approval_request");
        p.send(answer("s1", request.path("approval_id").asText(), "deny"));
        JsonNode denied = awaitEvent(p, "s1", "t1", "tool_result");
        assertThat(denied.path("is_error").asBoolean()).isTrue();
        assertThat(denied.path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(denied.path("content").asText()).contains("declined");

        p.send(turn("s1", "t2", "", call("c1", "echo", "{\"text\":\"one\"}")));
        JsonNode ask = awaitEvent(p, "s1", "t2", "approval_request");
        p.send(answer("s1", ask.path("approval_id").asText(), "approve_session"));
        assertThat(awaitEvent(p, "s1", "t2", "tool_result").path("content").asText()).isEqualTo("one");

        p.send(turn("s1", "t3", "", call("c1", "echo", "{\"text\":\"two\"}")));
        awaitEvent(p, "s1", "t3", "turn_completed");
        assertThat(types(ofTurn(p, "s1", "t3"))).as("granted for the session").containsExactly("tool_result",
                "turn_completed");
        assertThat(ofTurn(p, "s1", "t3").get(0).path("content").asText()).isEqualTo("two");

        p.send(turn("s1", "t4", "", call("c1", "wipe", "{\"target\":\"disk\"}")));
        awaitEvent(p, "s1", "t4", "approval_request");
        p.send(turn("s1", "t5", ",\"approval_mode\":\"ask\"", call("c1", "echo", "{\"text\":\"x\"}")));
        p.send(answer("s1", awaitEvent(p, "s1", "t4", "approval_request").path("approval_id").asText(), "deny"));
        JsonNode askMode = awaitEvent(p, "s1", "t5", "tool_result");
        assertThat(askMode.path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(askMode.path("content").asText()).contains("ask mode");
        assertThat(types(ofTurn(p, "s1", "t5"))).doesNotContain("approval_request");
        assertThat(p.closeInput().awaitExit(WAIT)).as(p.stderr()).isZero();
    }

    @Test
    void noAnswerBeforeTheTimeout_isNotApproved(TestInfo test) throws Exception {
        ToolbusProcess p = start(test, "--approval-mode=confirm_all", "--approval-timeout-ms=1000");
        p.send(turn("s1", "t1", "", call("c1", "wipe", "{\"target\":\"disk\"}")));
        JsonNode request = awaitEvent(p, "s1", "t1", "approval_request");
        JsonNode expired = awaitEvent(p, "s1", "t1", "tool_result");
        assertThat(expired.path("error").path("code").asText()).isEqualTo("NOT_APPROVED");
        assertThat(expired.path("content").asText()).contains("no answer").contains("1000 ms");
        p.send(answer("s1", request.path("approval_id").asText(), "approve"));
        await().atMost(WAIT).until(() -> p.events().stream().anyMatch(e -> e.path("type").asText().equals("error")));
        assertThat(p.events().stream().filter(e -> e.path("type").asText().equals("error")).findFirst().orElseThrow()
                .path("code").asText()).isEqualTo("UNKNOWN_REQUEST");
        assertThat(p.closeInput().awaitExit(WAIT)).as(p.stderr()).isZero();
    }
}
