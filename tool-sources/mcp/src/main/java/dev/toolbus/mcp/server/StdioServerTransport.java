package dev.toolbus.mcp.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.mcp.internal.Wire;
import dev.toolbus.protocol.CallContext;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.Disposable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * MCP's stdio transport on the server side, over the SDK's stateless server: one JSON-RPC message per
 * line on the input, one per line on the output, requests handled concurrently, responses (and the
 * notifications and requests a call sends the client while it runs) written in order by one writer
 * thread; the client's responses to those requests are matched by id. Lines longer than the bound are answered with a parse
 * error and skipped.
 *
 * <p>Both eras share the pipe, message by message: a request whose {@code params._meta} names a
 * protocol version (and {@code server/discover} and {@code subscriptions/listen}, which only
 * 2026-07-28 has) goes to the {@link ModernDispatcher}, anything else to the SDK's handler as before.
 * {@code notifications/cancelled} cancels a request of either era; {@code tools/list_changed} goes
 * to a client that sent {@code initialize}, a 2026-07-28 client hears of changes on its listen streams.
 */
final class StdioServerTransport implements McpStatelessServerTransport, SessionBroadcast {

    private static final Logger log = LoggerFactory.getLogger(StdioServerTransport.class);
    private static final String SCOPE = "stdio";

    private final InputStream in;
    private final OutputStream out;
    private final McpJsonMapper json;
    private final int maxLineBytes;
    private final Scheduler writer = Schedulers.newSingle("mcp-stdio-server-out", true);
    private final Sinks.Empty<Void> done = Sinks.empty();
    private volatile RpcDispatcher dispatcher;
    private volatile boolean closing;
    private volatile boolean initialized;
    private final ObjectMapper mapper = new ObjectMapper();
    private volatile ModernDispatcher modern;
    private volatile CallContext context = CallContext.EMPTY;
    /** 2026-07-28 requests in flight, by id, for {@code notifications/cancelled}. */
    private final Map<String, Disposable> modernInflight = new ConcurrentHashMap<>();
    /** The principal of every request on the pipe. */
    static final String PRINCIPAL = "stdio";

    StdioServerTransport(InputStream in, OutputStream out, McpJsonMapper json, int maxLineBytes) {
        this.in = in;
        this.out = out;
        this.json = json;
        this.maxLineBytes = maxLineBytes;
    }

    @Override
    public void setMcpHandler(McpStatelessServerHandler handler) {
        this.dispatcher = new RpcDispatcher(handler);
    }

    /** Serves 2026-07-28 requests with {@code modern}, running their calls with {@code context}. */
    void modern(ModernDispatcher modern, CallContext context, LegacyTasks legacyTasks) {
        this.modern = modern;
        this.context = context;
        dispatcher.legacyTasks(legacyTasks);
    }

    /** Starts reading; the Mono completes when the input ends or the transport is closed. */
    Mono<Void> run() {
        Thread reader = new Thread(this::readLoop, "mcp-stdio-server-in");
        reader.setDaemon(true);
        reader.start();
        return done.asMono();
    }

    private void readLoop() {
        try {
            ByteArrayOutputStream line = new ByteArrayOutputStream(256);
            byte[] buf = new byte[8192];
            boolean skipping = false;
            int n;
            while (!closing && (n = in.read(buf)) >= 0) {
                for (int i = 0; i < n; i++) {
                    byte b = buf[i];
                    if (b == '\n') {
                        if (!skipping) {
                            handleLine(line.toString(StandardCharsets.UTF_8));
                        }
                        skipping = false;
                        line.reset();
                    } else if (!skipping) {
                        if (line.size() >= maxLineBytes) {
                            skipping = true;
                            line.reset();
                            write(error(null, McpSchema.ErrorCodes.PARSE_ERROR,
                                    "message exceeds " + maxLineBytes + " bytes"));
                        } else {
                            line.write(b);
                        }
                    }
                }
            }
        } catch (IOException e) {
            if (!closing) {
                log.warn("MCP stdio server: reading input failed: {}", e.getMessage());
            }
        } finally {
            dispatcher.cancelAll(null);
            modernInflight.values().forEach(Disposable::dispose);
            // complete after the responses already queued for the writer
            if (!writer.isDisposed()) {
                writer.schedule(done::tryEmitEmpty);
            } else {
                done.tryEmitEmpty();
            }
        }
    }

    private void handleLine(String raw) {
        String text = raw.strip();
        if (text.isEmpty()) {
            return;
        }
        if (modern != null && modernMessage(text)) {
            return;
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, text);
        } catch (Exception e) {
            write(error(null, McpSchema.ErrorCodes.PARSE_ERROR, "parse error: " + e.getMessage()));
            return;
        }
        McpTransportContext ctx = McpTransportContext.EMPTY;
        if (message instanceof McpSchema.JSONRPCRequest request) {
            if (McpSchema.METHOD_INITIALIZE.equals(request.method())) {
                initialized = true;
            }
            dispatcher.request(SCOPE, PRINCIPAL, request, this::write).subscribe(this::write,
                    e -> write(error(request.id(), McpSchema.ErrorCodes.INTERNAL_ERROR, String.valueOf(e.getMessage()))));
        } else if (message instanceof McpSchema.JSONRPCNotification notification) {
            dispatcher.notification(SCOPE, ctx, notification).subscribe(null,
                    e -> log.warn("MCP notification {} failed: {}", notification.method(), e.toString()));
        } else if (message instanceof McpSchema.JSONRPCResponse response) {
            // the answer to a request of ours (elicitation/create)
            dispatcher.response(SCOPE, response);
        }
    }

    /**
     * Serves the line when it is a 2026-07-28 request or the cancellation of one; {@code false} leaves
     * it to the legacy side.
     */
    private boolean modernMessage(String text) {
        JsonNode m;
        try {
            m = mapper.readTree(text);
        } catch (java.io.IOException e) {
            return false;
        }
        if (m == null || !m.isObject() || !m.path("method").isTextual()) {
            return false;
        }
        String method = m.get("method").textValue();
        JsonNode id = m.get("id");
        if (id == null || id.isNull()) {
            if (RpcDispatcher.CANCELLED.equals(method)) {
                Disposable d = modernInflight.remove(key(m.path("params").get("requestId")));
                if (d != null) {
                    d.dispose();
                    return true;
                }
            }
            return false;
        }
        boolean modernOnly = method.equals("server/discover") || method.equals("subscriptions/listen");
        if (!modernOnly && !m.path("params").path(Wire.META).has(Wire.META_VERSION)
                || McpSchema.METHOD_INITIALIZE.equals(method)) {
            return false;
        }
        if (!Wire.validId(id)) {
            write(Wire.error(null, Wire.INVALID_REQUEST, "the request id must be a string or an integer", null));
            return true;
        }
        String k = key(id);
        if (modernInflight.size() >= RpcDispatcher.MAX_INFLIGHT) {
            write(Wire.error(id, Wire.INTERNAL_ERROR, "too many requests in flight", null));
            return true;
        }
        Disposable.Swap slot = reactor.core.Disposables.swap();
        modernInflight.put(k, slot);
        slot.update(modern.request(id, method, m.get("params"), PRINCIPAL, context)
                .doFinally(sig -> modernInflight.remove(k, slot))
                .subscribe(this::write, e -> write(Wire.error(id, Wire.INTERNAL_ERROR, String.valueOf(e.getMessage()),
                        null))));
        return true;
    }

    private static String key(JsonNode id) {
        return id == null ? "" : id.isNumber() ? "n" + id.asLong() : "s" + id.asText();
    }

    private static Object error(Object id, int code, String message) {
        return RpcDispatcher.errorResponse(id, code, message);
    }

    private void write(Object message) {
        writer.schedule(() -> {
            try {
                String s = json.writeValueAsString(message).replace("\n", "");
                synchronized (out) {
                    out.write(s.getBytes(StandardCharsets.UTF_8));
                    out.write('\n');
                    out.flush();
                }
            } catch (IOException e) {
                if (!closing) {
                    log.warn("MCP stdio server: writing output failed: {}", e.getMessage());
                }
            }
        });
    }

    /** Writes the notification, once the client has sent {@code initialize}. */
    @Override
    public void notifySessions(String method) {
        if (initialized && !closing) {
            write(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, method, null));
        }
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> {
            closing = true;
            if (dispatcher != null) {
                dispatcher.cancelAll(null);
            }
            modernInflight.values().forEach(Disposable::dispose);
            done.tryEmitEmpty();
            writer.dispose();
        });
    }

    @Override
    public List<String> protocolVersions() {
        return List.of(ProtocolVersions.MCP_2024_11_05, ProtocolVersions.MCP_2025_03_26,
                ProtocolVersions.MCP_2025_06_18, ProtocolVersions.MCP_2025_11_25);
    }
}
