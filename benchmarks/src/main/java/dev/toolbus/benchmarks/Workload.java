package dev.toolbus.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.imageio.ImageIO;

/** The shared workload: one tool, one argument string, the batch shape. */
final class Workload {

    /** Calls per benchmark invocation in the batch benchmarks (the {@code @OperationsPerInvocation}). */
    static final int CALLS = 1000;

    /** Streams the batch's single-call turns are spread over. */
    static final int STREAMS = 64;

    /** The tool every path dispatches. */
    static final String TOOL = "echo";

    /** The model's argument string, identical for every path. */
    static final String ARGS_JSON = "{\"text\":\"hello\"}";

    /** What a correct dispatch returns. */
    static final String EXPECTED = "hello";

    /** The per-call timeout of the toolbus executor and of the hand-written pipeline. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** One Jackson 2 mapper for the hand-written paths (thread-safe once configured). */
    static final ObjectMapper MAPPER = new ObjectMapper();

    /** A small PNG (8x8, one colour), base64, made here rather than pasted in. */
    static final String PNG_BASE64 = smallPng();

    private Workload() {
    }

    /** The echo tool as plain Java: what every path ends up calling. */
    static String echo(String text) {
        return text;
    }

    /** The CALLS single-call turns of one batch, over STREAMS streams, round robin. */
    static List<ToolCallsEvent> turns() {
        List<ToolCallsEvent> turns = new ArrayList<>(CALLS);
        for (int i = 0; i < CALLS; i++) {
            String stream = "bench:stream:" + (i % STREAMS);
            ToolCall call = ToolCall.ofJson("call_" + i, TOOL, ARGS_JSON);
            turns.add(ToolCallsEvent.of(stream, "turn_" + i, List.of(call)));
        }
        return List.copyOf(turns);
    }

    /** The same CALLS calls for the hand-written pipelines: name and raw argument string. */
    static List<RawCall> rawCalls() {
        List<RawCall> calls = new ArrayList<>(CALLS);
        for (int i = 0; i < CALLS; i++) {
            calls.add(new RawCall("call_" + i, TOOL, ARGS_JSON));
        }
        return List.copyOf(calls);
    }

    /** A tool call as a hand-written dispatcher sees it. */
    record RawCall(String id, String name, String argumentsJson) {
    }

    /** A hand-written tool: parsed arguments in, text out. */
    @FunctionalInterface
    interface JsonTool {
        String call(JsonNode arguments);
    }

    private static String smallPng() {
        BufferedImage img = new BufferedImage(8, 8, BufferedImage.TYPE_INT_RGB);
        for (int y = 0; y < 8; y++) {
            for (int x = 0; x < 8; x++) {
                img.setRGB(x, y, 0x2a7fff);
            }
        }
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (!ImageIO.write(img, "png", out)) {
                throw new IllegalStateException("no PNG writer");
            }
            return Base64.getEncoder().encodeToString(out.toByteArray());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
