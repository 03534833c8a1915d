package dev.toolbus.mcp.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.mcp.internal.HeaderValues;
import dev.toolbus.mcp.internal.Wire;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.ByteBufFlux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * {@link ModernChannel} over 2026-07-28 streamable HTTP: each request its own POST (a connection of its
 * own, so that closing the stream really cancels the request) with the standard headers
 * ({@code MCP-Protocol-Version}, {@code Mcp-Method}, {@code Mcp-Name}, Base64-sentinel encoded where
 * needed) and the configured ones; the answer is JSON or an SSE stream, read with every line and
 * message bounded by {@code maxBytes}. An error status with a JSON-RPC body is that body (a modern
 * error); without one it fails the request.
 */
final class HttpChannel implements ModernChannel {

    private final McpServerConfig config;
    private final ObjectMapper mapper;
    private final int maxBytes;
    private final HttpClient client;

    HttpChannel(McpServerConfig config, ObjectMapper mapper, int maxBytes, Duration connectTimeout) {
        this.config = config;
        this.mapper = mapper;
        this.maxBytes = maxBytes;
        this.client = HttpClient.create(ConnectionProvider.newConnection())
                .option(io.netty.channel.ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        connectTimeout.toMillis()));
    }

    @Override
    public Flux<JsonNode> exchange(ObjectNode request) {
        byte[] body;
        try {
            body = mapper.writeValueAsBytes(request);
        } catch (IOException e) {
            return Flux.error(e);
        }
        String method = request.path("method").asText();
        String name = named(method, request.path("params"));
        return client.headers(h -> {
                    config.headers().forEach(h::set);
                    h.set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                    h.set(HttpHeaderNames.ACCEPT, "application/json, text/event-stream");
                    h.set(Wire.HEADER_VERSION, Wire.MODERN);
                    h.set(Wire.HEADER_METHOD, method);
                    if (name != null) {
                        h.set(Wire.HEADER_NAME, HeaderValues.encode(name));
                    }
                })
                .post().uri(config.url())
                .send(ByteBufFlux.fromString(Mono.just(new String(body, StandardCharsets.UTF_8))))
                .response((res, content) -> {
                    String type = res.responseHeaders().get(HttpHeaderNames.CONTENT_TYPE, "").toLowerCase(Locale.ROOT);
                    int status = res.status().code();
                    if (type.startsWith("text/event-stream")) {
                        return events(content);
                    }
                    return whole(content).flatMapMany(bytes -> {
                        JsonNode m = parse(bytes);
                        if (m != null && m.isObject() && (m.has("result") || m.has("error"))) {
                            return Flux.just(m);
                        }
                        if (status == 202) {
                            return Flux.empty();
                        }
                        return Flux.error(new IllegalStateException("MCP server '" + config.name() + "' answered HTTP "
                                + status + (bytes.length == 0 ? "" : ": " + cut(new String(bytes, StandardCharsets.UTF_8)))));
                    });
                });
    }

    /** The value a request names in {@code Mcp-Name}, as the server checks it. */
    private static String named(String method, JsonNode params) {
        JsonNode v = switch (method) {
            case "tools/call", "prompts/get" -> params.get("name");
            case "resources/read" -> params.get("uri");
            case "tasks/get", "tasks/update", "tasks/cancel" -> params.get("taskId");
            default -> null;
        };
        return v != null && v.isValueNode() && !v.isNull() ? v.asText() : null;
    }

    private Mono<byte[]> whole(reactor.netty.ByteBufFlux content) {
        return content.reduce(new ByteArrayOutputStream(), (acc, buf) -> {
            append(acc, buf);
            return acc;
        }).map(ByteArrayOutputStream::toByteArray).defaultIfEmpty(new byte[0]);
    }

    private void append(ByteArrayOutputStream acc, ByteBuf buf) {
        int n = buf.readableBytes();
        if (acc.size() + n > maxBytes) {
            throw new IllegalStateException("MCP server '" + config.name() + "' sent a message over " + maxBytes + " bytes");
        }
        byte[] b = new byte[n];
        buf.readBytes(b);
        acc.write(b, 0, n);
    }

    /** An SSE body as its {@code data} messages (one line each, as MCP servers send them; multi-line data joined). */
    private Flux<JsonNode> events(reactor.netty.ByteBufFlux content) {
        StringBuilder line = new StringBuilder();
        StringBuilder data = new StringBuilder();
        return content.asString(StandardCharsets.UTF_8).concatMapIterable(chunk -> {
            List<JsonNode> out = new ArrayList<>();
            for (int i = 0; i < chunk.length(); i++) {
                char c = chunk.charAt(i);
                if (c == '\n') {
                    String l = line.toString();
                    line.setLength(0);
                    if (l.endsWith("\r")) {
                        l = l.substring(0, l.length() - 1);
                    }
                    if (l.isEmpty()) {
                        if (data.length() > 0) {
                            JsonNode m = parse(data.toString().getBytes(StandardCharsets.UTF_8));
                            data.setLength(0);
                            if (m != null) {
                                out.add(m);
                            }
                        }
                    } else if (l.startsWith("data:")) {
                        if (data.length() > 0) {
                            data.append('\n');
                        }
                        data.append(l.startsWith("data: ") ? l.substring(6) : l.substring(5));
                        if (data.length() > maxBytes) {
                            throw new IllegalStateException("MCP server '" + config.name() + "' sent an event over "
                                    + maxBytes + " bytes");
                        }
                    }
                } else {
                    line.append(c);
                    if (line.length() > maxBytes) {
                        throw new IllegalStateException("MCP server '" + config.name() + "' sent a line over "
                                + maxBytes + " bytes");
                    }
                }
            }
            return out;
        });
    }

    private JsonNode parse(byte[] bytes) {
        if (bytes.length == 0) {
            return null;
        }
        try {
            return mapper.readTree(bytes);
        } catch (IOException e) {
            return null;
        }
    }

    private static String cut(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "…" : s;
    }

    @Override
    public Mono<Void> dead() {
        return Mono.never();
    }

    @Override
    public Mono<Void> close() {
        return Mono.empty();
    }

    @Override
    public long pid() {
        return -1;
    }
}
