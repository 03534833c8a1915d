package dev.toolbus.mcp.server;

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
            dispatcher.request(SCOPE, request, this::write).subscribe(this::write,
                    e -> write(error(request.id(), McpSchema.ErrorCodes.INTERNAL_ERROR, String.valueOf(e.getMessage()))));
        } else if (message instanceof McpSchema.JSONRPCNotification notification) {
            dispatcher.notification(SCOPE, ctx, notification).subscribe(null,
                    e -> log.warn("MCP notification {} failed: {}", notification.method(), e.toString()));
        } else if (message instanceof McpSchema.JSONRPCResponse response) {
            // the answer to a request of ours (elicitation/create)
            dispatcher.response(SCOPE, response);
        }
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
