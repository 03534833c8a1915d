package dev.toolbus.benchmarks.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The wire texts of the load: the inbound turn (one {@code echo} call), and the two events the raw
 * loops answer it with, shaped like the executor's {@code tool_result} and {@code turn_completed}.
 */
final class EchoEvents {

    static final ObjectMapper JSON = new ObjectMapper();

    /** The argument every call carries, and so the text every correct result holds. */
    static final String TEXT = "hello";

    /**
     * The sample tool every call names: {@code echo} (read-only, the default) or {@code count}
     * (side-effecting: it goes through the call journal); the harness's {@code --tool}.
     */
    static volatile String tool = "echo";

    private EchoEvents() {
    }

    /** Turn ids are {@code <tag>.<stream index>.<turn index>}; the tag tells phases and runs apart. */
    static String turnId(String tag, int stream, int turn) {
        return tag + "." + stream + "." + turn;
    }

    static String streamId(int stream) {
        return "load:s" + stream;
    }

    /** The inbound {@code tool_calls} event of one turn, as a bot core publishes it. */
    static byte[] turn(String streamId, String turnId) {
        String json = "{\"type\":\"tool_calls\",\"stream_id\":\"" + streamId + "\",\"turn_id\":\"" + turnId
                + "\",\"calls\":[{\"tool_call_id\":\"" + turnId + ".c\",\"name\":\"" + tool + "\",\"arguments\":{\""
                + ("echo".equals(tool) ? "text" : "key") + "\":\"" + TEXT + "\"}}]}";
        return json.getBytes(StandardCharsets.UTF_8);
    }

    static JsonNode parse(byte[] json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What the raw loops do instead of the executor: decode the turn, run {@code echo} on each call, and
     * encode one {@code tool_result} per call and the {@code turn_completed}. Returns the stream id
     * followed by the encoded events.
     */
    static Answer answer(byte[] turnJson) {
        JsonNode turn = parse(turnJson);
        String streamId = turn.path("stream_id").asText();
        String turnId = turn.path("turn_id").asText();
        JsonNode calls = turn.path("calls");
        byte[][] events = new byte[calls.size() + 1][];
        ObjectNode done = JSON.createObjectNode();
        done.put("type", "turn_completed").put("stream_id", streamId).put("turn_id", turnId);
        var ids = done.putArray("tool_call_ids");
        for (int i = 0; i < calls.size(); i++) {
            JsonNode call = calls.get(i);
            String id = call.path("tool_call_id").asText();
            String name = call.path("name").asText();
            boolean known = "echo".equals(name) || "count".equals(name); // the raw loops answer both alike
            ObjectNode result = JSON.createObjectNode();
            result.put("type", "tool_result").put("stream_id", streamId).put("turn_id", turnId)
                    .put("tool_call_id", id).put("name", name)
                    .put("content", known ? call.path("arguments").path("text").asText() : "unknown tool " + name)
                    .put("is_error", !known).put("attempts", 1).put("cached", false).put("elapsed_ms", 0);
            events[i] = write(result);
            ids.add(id);
        }
        done.put("error_count", 0).put("elapsed_ms", 0);
        events[calls.size()] = write(done);
        return new Answer(streamId, events);
    }

    private static byte[] write(JsonNode node) {
        try {
            return JSON.writeValueAsBytes(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The events answering one turn, all for one stream. */
    record Answer(String streamId, byte[][] events) {
    }
}
