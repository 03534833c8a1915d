package dev.toolbus.bus.redis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.ControlEvent;
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
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * How the Redis turn state writes approval requests, questions and answers: one JSON object each, the
 * events in their wire form ({@link EventCodec}), the principal with its scope. Also the numbers the
 * scripts compare principals by (see {@link #rank}).
 */
final class StateCodec {

    /** Questions of one call an input id is looked for among (a call asks far fewer). */
    static final int MAX_ORDINAL = 100_000;

    private static final String[] LADDER = {"member", "admin", "owner", "master"};

    private final EventCodec codec;

    StateCodec(EventCodec codec) {
        this.codec = codec;
    }

    /**
     * The rank of a principal's highest permission (member 0 … master 3), as {@link Principal#mayAnswerFor}
     * compares them: a principal answers for another when they are the same, or it answers for lower ones
     * and its rank is higher.
     */
    static int rank(Principal p) {
        for (int i = 0; i < LADDER.length; i++) {
            if (LADDER[i].equals(p.maxPermission())) {
                return i;
            }
        }
        return 0;
    }

    byte[] request(ControlRequest r) {
        ObjectNode n = Json.mapper().createObjectNode();
        n.put("kind", r.kind() == ControlRequest.Kind.APPROVAL ? "approval" : "input");
        n.set("principal", principal(r.principal()));
        n.put("stream", r.turn().streamId());
        n.put("turn", r.turn().turnId());
        if (r.kind() == ControlRequest.Kind.INPUT) {
            n.put("ordinal", ordinal(r));
        }
        n.put("event", codec.encode(r.event()));
        return n.toString().getBytes(StandardCharsets.UTF_8);
    }

    ControlRequest request(byte[] json) {
        JsonNode n = read(json);
        TurnKey turn = TurnKey.of(principal(n.get("principal")), n.get("stream").asText(), n.get("turn").asText());
        OutboundEvent e = codec.decodeOutbound(n.get("event").asText());
        if ("approval".equals(n.path("kind").asText())) {
            return ControlRequest.approval(turn, (ApprovalRequestEvent) e);
        }
        InputRequestEvent q = (InputRequestEvent) e;
        return ControlRequest.input(turn.call(q.toolCallId()), n.get("ordinal").asInt(), q);
    }

    byte[] answer(ControlAnswer a) {
        ObjectNode n = Json.mapper().createObjectNode();
        n.set("principal", principal(a.principal()));
        n.put("response", codec.encode((InboundEvent) a.response()));
        if (a.toolCallId() != null) {
            n.put("call", a.toolCallId());
        }
        return n.toString().getBytes(StandardCharsets.UTF_8);
    }

    ControlAnswer answer(byte[] json) {
        JsonNode n = read(json);
        Principal p = principal(n.get("principal"));
        ControlEvent response = (ControlEvent) codec.decode(n.get("response").asText());
        if (response instanceof ApprovalResponseEvent a) {
            return ControlAnswer.approval(p, a, n.hasNonNull("call") ? n.get("call").asText() : null);
        }
        return ControlAnswer.input(p, (InputResponseEvent) response);
    }

    private static ObjectNode principal(Principal p) {
        ObjectNode n = Json.mapper().createObjectNode();
        n.put("kind", p.kind().wireName());
        n.put("id", p.id());
        n.put("max", p.maxPermission());
        n.put("approves", p.approves().name().toLowerCase(Locale.ROOT));
        n.put("override", p.approvalOverride());
        return n;
    }

    private static Principal principal(JsonNode n) {
        Principal.Kind kind = Principal.Kind.valueOf(n.get("kind").asText().toUpperCase(Locale.ROOT));
        return Principal.builder(kind, n.get("id").asText()).maxPermission(n.get("max").asText())
                .approves(Principal.Approves.valueOf(n.get("approves").asText().toUpperCase(Locale.ROOT)))
                .approvalOverride(n.get("override").asBoolean()).build();
    }

    /** Which of its call's questions a question is: its id is derived from it ({@link ControlRequest#inputId}). */
    private static int ordinal(ControlRequest r) {
        CallKey call = r.calls().get(0);
        for (int n = 1; n <= MAX_ORDINAL; n++) {
            if (ControlRequest.inputId(call, n).equals(r.id())) {
                return n;
            }
        }
        throw new IllegalArgumentException("the question " + r.id() + " is not among the first " + MAX_ORDINAL
                + " of its call");
    }

    private static JsonNode read(byte[] json) {
        try {
            return Json.mapper().readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable turn-state record", e);
        }
    }
}
