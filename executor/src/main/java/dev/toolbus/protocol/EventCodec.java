package dev.toolbus.protocol;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Encodes and decodes wire events (JSON, snake_case; docs/protocol.md): turns, {@code list_tools} and
 * the control events ({@code cancel}, {@code approval_response}, {@code input_response}) inbound; results,
 * media, {@code turn_completed}, {@code tools}, errors and the live events ({@code approval_request},
 * {@code tool_progress}, {@code send_message}, {@code input_request}) outbound. Thread-safe and cheap to
 * share.
 *
 * <p>Decoding is lenient where peers differ: {@code arguments} as an object or as a JSON string, the
 * OpenAI {@code tool_calls} item shape ({@code {"id","type":"function","function":{"name","arguments"}}}),
 * a missing {@code turn_id} (generated) or {@code tool_call_id} (derived from the turn id). It is strict
 * about everything else: one JSON object of at most {@link #maxEventBytes()} bytes of well-formed UTF-8,
 * nothing after it, no duplicate keys, no NaN or Infinity, nesting at most {@link Json#MAX_NESTING_DEPTH}
 * deep, a non-blank string {@code stream_id}, a known {@code type}. Every violation raises
 * {@link EventDecodeException} with a message a person can act on and the ids that could be read.
 *
 * <pre>{@code
 * EventCodec codec = EventCodec.defaults();
 * try {
 *     InboundEvent event = codec.decode(bytes);
 *     ...
 * } catch (EventDecodeException e) {
 *     if (e.streamId() != null) publish(codec.encode(e.toErrorEvent()));
 *     else deadLetter(bytes, e.getMessage());
 * }
 * }</pre>
 */
public final class EventCodec {

    /** Default bound of one inbound event: 1 MiB. */
    public static final int DEFAULT_MAX_EVENT_BYTES = 1024 * 1024;

    private static final EventCodec DEFAULT = new EventCodec(DEFAULT_MAX_EVENT_BYTES,
            () -> "turn-" + UUID.randomUUID());

    private final ObjectMapper mapper = Json.mapper();
    private final int maxEventBytes;
    private final JsonInput input = new JsonInput(mapper);
    private final InboundDecoder inbound;
    private final OutboundCodec outbound = new OutboundCodec(mapper);

    private EventCodec(int maxEventBytes, Supplier<String> turnIds) {
        if (maxEventBytes < 1024) {
            throw new IllegalArgumentException("maxEventBytes must be at least 1024, got " + maxEventBytes);
        }
        this.maxEventBytes = maxEventBytes;
        this.inbound = new InboundDecoder(mapper, Objects.requireNonNull(turnIds, "turnIds"));
    }

    /** The codec with a 1 MiB bound and random turn ids ({@code turn-<uuid>}). */
    public static EventCodec defaults() {
        return DEFAULT;
    }

    /**
     * A codec with its own bound and turn-id generator.
     *
     * @param maxEventBytes the largest accepted inbound event, in UTF-8 bytes (at least 1024)
     * @param turnIds generates a {@code turn_id} for turns that arrive without one; must return
     *     non-blank, unique values
     * @return the codec
     * @throws IllegalArgumentException when {@code maxEventBytes} is below 1024
     */
    public static EventCodec create(int maxEventBytes, Supplier<String> turnIds) {
        return new EventCodec(maxEventBytes, turnIds);
    }

    /** The largest accepted inbound event, in bytes. */
    public int maxEventBytes() {
        return maxEventBytes;
    }

    /**
     * Decodes one inbound event from UTF-8 bytes. The size is checked before anything is parsed.
     *
     * @throws EventDecodeException when the input is not a valid event
     */
    public InboundEvent decode(byte[] utf8) {
        return decode(utf8, 0, utf8.length);
    }

    /**
     * Decodes one inbound event from a slice of UTF-8 bytes.
     *
     * @throws EventDecodeException when the input is not a valid event
     */
    public InboundEvent decode(byte[] utf8, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, utf8.length);
        if (length > maxEventBytes) {
            throw tooLarge(length + " bytes", EventIdPeek.of(utf8, offset, length));
        }
        ObjectNode root = input.readObject(utf8, offset, length);
        if (InboundLimits.maySurrogate(utf8, offset, length)) {
            InboundLimits.checkSurrogates(root);
        }
        return InboundLimits.checkLengths(inbound.decode(root));
    }

    /**
     * Decodes one inbound event from a string. The size is counted in UTF-8 bytes without encoding.
     *
     * @throws EventDecodeException when the input is not a valid event
     */
    public InboundEvent decode(String json) {
        long bytes = json.length() > maxEventBytes ? json.length() : Utf8.length(json, maxEventBytes);
        if (bytes > maxEventBytes) {
            throw tooLarge(json.length() > maxEventBytes ? "more than " + maxEventBytes + " bytes" : bytes + " bytes",
                    EventIdPeek.of(json));
        }
        ObjectNode root = input.readObject(json);
        if (InboundLimits.maySurrogate(json)) {
            InboundLimits.checkSurrogates(root);
        }
        return InboundLimits.checkLengths(inbound.decode(root));
    }

    /**
     * Decodes one inbound event that is the whole content of {@code in}. At most
     * {@link #maxEventBytes()} + 1 bytes are read: a larger input is rejected without reading the rest.
     * The stream is not closed.
     *
     * @throws EventDecodeException when the input is not a valid event
     * @throws IOException when reading fails
     */
    public InboundEvent decode(InputStream in) throws IOException {
        byte[] bytes = in.readNBytes(maxEventBytes + 1);
        if (bytes.length > maxEventBytes) {
            throw tooLarge("more than " + maxEventBytes + " bytes", EventIdPeek.of(bytes));
        }
        return decode(bytes);
    }

    /**
     * Decodes one inbound event from a parsed JSON object (for adapters that parse themselves; the
     * size, UTF-8 and syntax checks are then theirs).
     *
     * @throws EventDecodeException when the object is not a valid event
     */
    public InboundEvent decode(ObjectNode root) {
        InboundLimits.checkSurrogates(root);
        return InboundLimits.checkLengths(inbound.decode(root));
    }

    private EventDecodeException tooLarge(String size, EventIdPeek ids) {
        return new EventDecodeException("event of " + size + " is above the " + maxEventBytes
                + "-byte limit: send smaller arguments, or raise the limit on both sides", ids.streamId(),
                ids.turnId());
    }

    /**
     * Encodes an outbound event as one line of JSON (no line breaks; snake_case). The {@code data}
     * and {@code metadata} of a tool result may hold any value Jackson serialises with its default
     * modules: maps, lists, strings, numbers, booleans, {@code JsonNode}s, records and beans (their
     * property names are written in snake_case too).
     *
     * @throws EventEncodeException when a value cannot be serialised
     */
    public String encode(OutboundEvent event) {
        return outbound.encode(Objects.requireNonNull(event, "event"));
    }

    /**
     * {@link #encode(OutboundEvent)} as UTF-8 bytes, byte for byte the same, written by the JSON
     * generator straight into a per-thread buffer (no {@code String} on the way; the buffer is kept
     * between calls up to 64 KiB) and copied once into the array returned.
     *
     * @throws EventEncodeException when a value cannot be serialised
     */
    public byte[] encodeToBytes(OutboundEvent event) {
        return outbound.encodeToBytes(Objects.requireNonNull(event, "event"));
    }

    /**
     * Writes {@link #encodeToBytes(OutboundEvent)} to {@code out} in one {@code write} call, without
     * allocating the array (for a network buffer: a Netty {@code ByteBufOutputStream}, say). The stream
     * is neither flushed nor closed.
     *
     * @throws EventEncodeException when a value cannot be serialised (nothing is written then)
     * @throws IOException when {@code out} fails
     */
    public void encodeTo(OutboundEvent event, OutputStream out) throws IOException {
        outbound.encodeTo(Objects.requireNonNull(event, "event"), Objects.requireNonNull(out, "out"));
    }

    /**
     * Encodes an inbound event as one line of JSON (for clients and tests). Empty context fields are
     * left out; a call's raw argument string is written as a string, JSON arguments as JSON.
     */
    public String encode(InboundEvent event) {
        ObjectNode n = mapper.createObjectNode();
        if (event instanceof ToolCallsEvent t) {
            n.put("type", "tool_calls");
            n.put("stream_id", t.streamId());
            n.put("turn_id", t.turnId());
            var calls = n.putArray("calls");
            for (ToolCall c : t.calls()) {
                ObjectNode cn = calls.addObject();
                cn.put("tool_call_id", c.toolCallId());
                cn.put("name", c.name());
                if (c.arguments() != null) {
                    cn.set("arguments", c.arguments());
                } else if (c.argumentsJson() != null) {
                    cn.put("arguments", c.argumentsJson());
                }
                if (c.caller().isProgrammatic()) {
                    ObjectNode who = cn.putObject("caller");
                    who.put("type", "programmatic");
                    if (!c.caller().id().isEmpty()) {
                        who.put("id", c.caller().id());
                    }
                }
            }
            putContext(n, t.context());
            if (t.message() != null) {
                n.set("message", t.message());
            }
            putTrace(n, t.trace());
        } else if (event instanceof ListToolsEvent l) {
            n.put("type", "list_tools");
            n.put("stream_id", l.streamId());
            if (!l.requestId().isEmpty()) {
                n.put("request_id", l.requestId());
            }
            putContext(n, l.context());
            n.put("format", l.format().wireName());
            if (l.text() != null) {
                n.put("text", l.text());
            }
            putTrace(n, l.trace());
        } else if (event instanceof ListSkillsEvent l) {
            n.put("type", "list_skills");
            n.put("stream_id", l.streamId());
            if (!l.requestId().isEmpty()) {
                n.put("request_id", l.requestId());
            }
            putContext(n, l.context());
            if (l.text() != null) {
                n.put("text", l.text());
            }
            if (!l.selected().isEmpty()) {
                var sel = n.putArray("selected");
                l.selected().forEach(sel::add);
            }
        } else if (event instanceof CancelEvent c) {
            n.put("type", "cancel");
            n.put("stream_id", c.streamId());
            putIfNotNull(n, "turn_id", c.turnId());
            putIfNotNull(n, "tool_call_id", c.toolCallId());
            putIfPresent(n, "reason", c.reason());
            putTrace(n, c.trace());
        } else if (event instanceof ApprovalResponseEvent a) {
            n.put("type", "approval_response");
            n.put("stream_id", a.streamId());
            n.put("approval_id", a.approvalId());
            n.put("decision", a.decision().wireName());
            putIfNotNull(n, "tool_call_id", a.toolCallId());
            if (a.arguments() != null) {
                n.set("arguments", a.arguments());
            }
            putIfNotNull(n, "message", a.message());
            putTrace(n, a.trace());
        } else if (event instanceof InputResponseEvent i) {
            n.put("type", "input_response");
            n.put("stream_id", i.streamId());
            n.put("input_id", i.inputId());
            n.put("action", i.action().wireName());
            if (i.content() != null) {
                n.set("content", i.content());
            }
            putTrace(n, i.trace());
        }
        return n.toString();
    }

    private void putContext(ObjectNode n, CallContext c) {
        ObjectNode cn = n.putObject("context");
        putIfPresent(cn, "user_id", c.userId());
        putIfPresent(cn, "group_id", c.groupId());
        putIfPresent(cn, "platform", c.platform());
        putIfPresent(cn, "permission", c.permission());
        putIfPresent(cn, "channel", c.channel());
        putIfPresent(cn, "provider", c.provider());
        putIfPresent(cn, "model", c.model());
        putIfPresent(cn, "agent_id", c.agentId());
        for (Map.Entry<String, Object> e : c.extra().entrySet()) {
            cn.set(e.getKey(), mapper.valueToTree(e.getValue()));
        }
    }

    private static void putTrace(ObjectNode n, TraceContext trace) {
        if (trace != null) {
            n.put("traceparent", trace.traceparent());
            putIfNotNull(n, "tracestate", trace.tracestate());
        }
    }

    private static void putIfNotNull(ObjectNode n, String key, String value) {
        if (value != null) {
            n.put(key, value);
        }
    }

    private static void putIfPresent(ObjectNode n, String key, String value) {
        if (!value.isEmpty()) {
            n.put(key, value);
        }
    }

    /**
     * Decodes an outbound event (for clients of toolbus and tests). No size bound applies: media
     * follow-ups can be larger than inbound events.
     *
     * @throws EventDecodeException when the input is not a known, valid outbound event
     */
    public OutboundEvent decodeOutbound(String json) {
        return outbound.decode(input.readObject(json));
    }

    /** {@link #decodeOutbound(String)} from UTF-8 bytes. */
    public OutboundEvent decodeOutbound(byte[] utf8) {
        return outbound.decode(input.readObject(utf8, 0, utf8.length));
    }
}
