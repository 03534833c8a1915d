package dev.toolbus.bus.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.EventCodec;
import dev.toolbus.protocol.InboundEvent;
import dev.toolbus.protocol.InputRequestEvent;
import dev.toolbus.protocol.InputResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.spi.CallKey;
import dev.toolbus.spi.ControlAnswer;
import dev.toolbus.spi.ControlRequest;
import dev.toolbus.spi.Principal;
import dev.toolbus.spi.TurnKey;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The values of the state topic, as JSON (one object per record; short field names, the expiry
 * {@code x} in every one). Events and answers are kept as the protocol's own JSON, encoded and decoded
 * by the bus's {@link EventCodec}, so a record reads back as the event that was written.
 *
 * <table>
 *   <caption>Records</caption>
 *   <tr><th>key</th><th>value</th></tr>
 *   <tr><td>{@code o:}</td><td>{@code {"o":token,"c":clientId,"at":ms}}: the partition's owner from here on</td></tr>
 *   <tr><td>{@code j:<call hash>}</td><td>{@code {"x":ms}} started; {@code {"x":ms,"f":[event JSON, ...]}} finished</td></tr>
 *   <tr><td>{@code r:<request id>}</td><td>the request, its answers and whether it is closed</td></tr>
 *   <tr><td>{@code h:<hash>}</td><td>an answer held for a request not raised yet</td></tr>
 *   <tr><td>{@code g:<grant hash>}</td><td>{@code {"x":ms}}: a session grant until then</td></tr>
 *   <tr><td>{@code c:<cut hash>}</td><td>a cut result's full text and limit</td></tr>
 * </table>
 * A record whose {@code x} has passed counts as absent; its owner writes a tombstone (a null value) so
 * compaction removes it.
 */
final class StateCodec {

    private final ObjectMapper mapper = Json.mapper();
    private final EventCodec codec;

    StateCodec(EventCodec codec) {
        this.codec = codec;
    }

    ObjectNode object() {
        return mapper.createObjectNode();
    }

    byte[] bytes(ObjectNode node) {
        try {
            return mapper.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a state record: " + e.getMessage(), e);
        }
    }

    ObjectNode read(byte[] value) {
        try {
            JsonNode n = mapper.readTree(value);
            if (!(n instanceof ObjectNode o)) {
                throw new IllegalArgumentException("a state record is not a JSON object");
            }
            return o;
        } catch (IOException e) {
            throw new IllegalArgumentException("unreadable state record: " + e.getMessage(), e);
        }
    }

    static long expiry(ObjectNode value) {
        return value.path("x").asLong(0);
    }

    // ---------------------------------------------------------------- owner markers

    byte[] owner(String token, String clientId, long atMs) {
        ObjectNode n = object();
        n.put("o", token);
        n.put("c", clientId);
        n.put("at", atMs);
        return bytes(n);
    }

    // ---------------------------------------------------------------- journal

    byte[] started(long expiresAtMs) {
        ObjectNode n = object();
        n.put("x", expiresAtMs);
        return bytes(n);
    }

    /** A finished call, with its events when their JSON is at most {@code maxEventBytes} (else without). */
    byte[] finished(long expiresAtMs, List<OutboundEvent> events, long maxEventBytes) {
        ObjectNode n = object();
        n.put("x", expiresAtMs);
        ArrayNode f = n.putArray("f");
        long size = 0;
        List<String> encoded = new ArrayList<>(events.size());
        for (OutboundEvent e : events) {
            String json = codec.encode(e);
            size += json.length();
            encoded.add(json);
        }
        if (size <= maxEventBytes) {
            encoded.forEach(f::add);
        }
        return bytes(n);
    }

    /** Whether a journal value is of a finished call. */
    static boolean isFinished(ObjectNode value) {
        return value.has("f");
    }

    List<OutboundEvent> events(ObjectNode value) {
        JsonNode f = value.path("f");
        List<OutboundEvent> out = new ArrayList<>(f.size());
        for (JsonNode e : f) {
            out.add(codec.decodeOutbound(e.asText()));
        }
        return out;
    }

    // ---------------------------------------------------------------- principals and answers

    ObjectNode principal(Principal p) {
        ObjectNode n = object();
        n.put("k", p.kind().wireName());
        n.put("i", p.id());
        n.put("m", p.maxPermission());
        n.put("a", p.approves().name().toLowerCase(Locale.ROOT));
        n.put("o", p.approvalOverride());
        return n;
    }

    static Principal principal(JsonNode n) {
        return Principal.builder(Principal.Kind.valueOf(n.path("k").asText().toUpperCase(Locale.ROOT)), n.path("i").asText())
                .maxPermission(n.path("m").asText("master"))
                .approves(Principal.Approves.valueOf(n.path("a").asText("lower").toUpperCase(Locale.ROOT)))
                .approvalOverride(n.path("o").asBoolean(false))
                .build();
    }

    ObjectNode answer(ControlAnswer a) {
        ObjectNode n = object();
        n.set("p", principal(a.principal()));
        n.put("r", codec.encode((InboundEvent) a.response()));
        if (a.toolCallId() != null) {
            n.put("c", a.toolCallId());
        }
        return n;
    }

    ControlAnswer answer(JsonNode n) {
        Principal p = principal(n.path("p"));
        InboundEvent r = codec.decode(n.path("r").asText());
        if (r instanceof ApprovalResponseEvent a) {
            return ControlAnswer.approval(p, a, n.hasNonNull("c") ? n.path("c").asText() : null);
        }
        if (r instanceof InputResponseEvent i) {
            return ControlAnswer.input(p, i);
        }
        throw new IllegalArgumentException("a recorded answer is a " + r.getClass().getSimpleName());
    }

    // ---------------------------------------------------------------- requests

    /**
     * A request record.
     *
     * @param keepUntilMs when the record may go (its expiry plus the record TTL)
     * @param ordinal the question's ordinal (0 for an approval)
     * @param answers per call of the request (its tool call id), the answer that won
     */
    byte[] request(long keepUntilMs, ControlRequest r, int ordinal, java.util.Map<String, ControlAnswer> answers,
                   boolean closed) {
        ObjectNode n = object();
        n.put("x", keepUntilMs);
        n.put("k", r.kind() == ControlRequest.Kind.APPROVAL ? "a" : "i");
        n.set("p", principal(r.principal()));
        n.put("s", r.streamId());
        n.put("t", r.turn().turnId());
        if (ordinal > 0) {
            n.put("n", ordinal);
        }
        n.put("ev", codec.encode(r.event()));
        ArrayNode a = n.putArray("a");
        answers.forEach((call, answer) -> a.addObject().put("call", call).set("ans", answer(answer)));
        if (closed) {
            n.put("cl", true);
        }
        return bytes(n);
    }

    /** A request record read back: the request, its ordinal, its answers by tool call id, closed. */
    record RequestRecord(ControlRequest request, int ordinal, java.util.Map<String, ControlAnswer> answers, boolean closed) {
    }

    RequestRecord request(ObjectNode n) {
        Principal p = principal(n.path("p"));
        TurnKey turn = TurnKey.of(p, n.path("s").asText(), n.path("t").asText());
        OutboundEvent event = codec.decodeOutbound(n.path("ev").asText());
        int ordinal = n.path("n").asInt(0);
        ControlRequest r;
        if ("a".equals(n.path("k").asText())) {
            r = ControlRequest.approval(turn, (ApprovalRequestEvent) event);
        } else {
            InputRequestEvent q = (InputRequestEvent) event;
            r = ControlRequest.input(CallKey.of(turn, q.toolCallId()), ordinal, q);
        }
        java.util.Map<String, ControlAnswer> answers = new java.util.LinkedHashMap<>();
        for (JsonNode a : n.path("a")) {
            answers.put(a.path("call").asText(), answer(a.path("ans")));
        }
        return new RequestRecord(r, ordinal, answers, n.path("cl").asBoolean(false));
    }

    // ---------------------------------------------------------------- held answers

    byte[] held(long untilMs, ControlAnswer a) {
        ObjectNode n = object();
        n.put("x", untilMs);
        n.set("a", answer(a));
        return bytes(n);
    }

    // ---------------------------------------------------------------- grants and cut results

    byte[] grant(long expiresAtMs) {
        ObjectNode n = object();
        n.put("x", expiresAtMs);
        return bytes(n);
    }

    byte[] cut(long expiresAtMs, String streamId, String text, int limit) {
        ObjectNode n = object();
        n.put("x", expiresAtMs);
        n.put("s", streamId);
        n.put("l", limit);
        n.put("t", text);
        return bytes(n);
    }
}
