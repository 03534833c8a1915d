package dev.toolbus.mcp.client;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The client side of MCP's stdio transport, owning its child process: newline-delimited JSON-RPC on
 * the child's stdin and stdout, stderr lines handed to a listener, lines bounded in size, and the
 * whole process tree stopped on close. Unlike the SDK's stdio transport it reports the child's exit
 * at once (so in-flight calls fail instead of waiting for a request timeout) and kills the
 * grandchildren that launchers such as {@code npx} leave behind.
 */
final class ProcessClientTransport implements McpClientTransport {

    private static final Logger log = LoggerFactory.getLogger(ProcessClientTransport.class);

    private final McpServerConfig config;
    private final McpJsonMapper json;
    private final int maxLineBytes;
    private final Duration closeGrace;
    private final BiConsumer<String, String> stderr;
    private final Runnable onExit;
    private final Duration startTimeout;
    private final Scheduler outbound;
    private final CompletableFuture<Process> started = new CompletableFuture<>();
    private volatile Process process;
    private volatile boolean closing;
    /** What the process is for, in the log ({@code ""}: serving calls). */
    private final String role;

    ProcessClientTransport(McpServerConfig config, McpJsonMapper json, int maxLineBytes, Duration closeGrace,
                           Duration startTimeout, BiConsumer<String, String> stderr, Runnable onExit) {
        this(config, json, maxLineBytes, closeGrace, startTimeout, stderr, onExit, "");
    }

    /** @param role what the process is for, named in its log lines (the era probe's copy) */
    ProcessClientTransport(McpServerConfig config, McpJsonMapper json, int maxLineBytes, Duration closeGrace,
                           Duration startTimeout, BiConsumer<String, String> stderr, Runnable onExit, String role) {
        this.role = role;
        this.config = Objects.requireNonNull(config, "config");
        this.json = Objects.requireNonNull(json, "json");
        this.maxLineBytes = maxLineBytes;
        this.closeGrace = closeGrace;
        this.stderr = stderr;
        this.onExit = onExit;
        this.startTimeout = startTimeout;
        this.outbound = Schedulers.newSingle("mcp-stdio-out-" + config.name(), true);
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        return Mono.<Void>fromRunnable(() -> start(handler)).subscribeOn(Schedulers.boundedElastic());
    }

    private void start(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        List<String> command = new ArrayList<>();
        command.add(config.command());
        command.addAll(config.args());
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(config.env());
        if (!config.cwd().isEmpty()) {
            pb.directory(new File(config.cwd()));
        }
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            IllegalStateException failure = new IllegalStateException("cannot start MCP server '" + config.name()
                    + "' (" + String.join(" ", command) + "): " + e.getMessage(), e);
            started.completeExceptionally(failure);
            throw failure;
        }
        process = p;
        started.complete(p);
        if (role.isEmpty()) {
            log.info("MCP server '{}' started, pid {}", config.name(), p.pid());
        } else {
            log.debug("MCP server '{}' started for the {}, pid {}", config.name(), role, p.pid());
        }
        Thread reader = new Thread(() -> readLoop(p.getInputStream(), handler), "mcp-stdio-in-" + config.name());
        reader.setDaemon(true);
        reader.start();
        Thread err = new Thread(() -> errLoop(p.getErrorStream()), "mcp-stdio-err-" + config.name());
        err.setDaemon(true);
        err.start();
        p.onExit().thenAccept(done -> {
            if (!closing && role.isEmpty()) {
                log.warn("MCP server '{}' (pid {}) exited with code {}", config.name(), done.pid(), done.exitValue());
            }
            onExit.run();
        });
    }

    private void readLoop(InputStream in, Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        try (in) {
            ByteArrayOutputStream line = new ByteArrayOutputStream(256);
            byte[] buf = new byte[8192];
            boolean skipping = false;
            int n;
            while ((n = in.read(buf)) >= 0) {
                for (int i = 0; i < n; i++) {
                    byte b = buf[i];
                    if (b == '\n') {
                        if (!skipping) {
                            dispatch(line.toString(StandardCharsets.UTF_8), handler);
                        }
                        skipping = false;
                        line.reset();
                    } else if (!skipping) {
                        if (line.size() >= maxLineBytes) {
                            log.error("MCP server '{}' sent a line over {} bytes; line dropped", config.name(), maxLineBytes);
                            skipping = true;
                            line.reset();
                        } else {
                            line.write(b);
                        }
                    }
                }
            }
        } catch (IOException e) {
            if (!closing) {
                log.warn("MCP server '{}': reading stdout failed: {}", config.name(), e.getMessage());
            }
        }
    }

    private void dispatch(String line, Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        String text = line.strip();
        if (text.isEmpty()) {
            return;
        }
        McpSchema.JSONRPCMessage message;
        try {
            message = McpSchema.deserializeJsonRpcMessage(json, text);
        } catch (Exception e) {
            log.warn("MCP server '{}' wrote a line that is not JSON-RPC; ignored: {}", config.name(),
                    text.length() > 200 ? text.substring(0, 200) + "..." : text);
            return;
        }
        handler.apply(Mono.just(message)).subscribe(null,
                e -> log.warn("MCP server '{}': handling a message failed: {}", config.name(), e.toString()));
    }

    private void errLoop(InputStream err) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(err, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                stderr.accept(config.name(), line);
            }
        } catch (IOException e) {
            // the process is gone
        }
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return Mono.<Void>fromRunnable(() -> {
            // the session may send before connect() has started the process: wait for it here, on the
            // single writer thread, so messages keep their order
            Process p = awaitStart();
            if (!p.isAlive()) {
                throw new IllegalStateException("MCP server '" + config.name() + "' is not running");
            }
            byte[] bytes;
            try {
                // the mapper never writes raw newlines inside a value; strip any the pretty printer adds
                bytes = (json.writeValueAsString(message).replace("\n", "") + "\n").getBytes(StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot encode MCP message: " + e.getMessage(), e);
            }
            OutputStream out = p.getOutputStream();
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                throw new IllegalStateException("MCP server '" + config.name() + "': writing stdin failed: "
                        + e.getMessage(), e);
            }
        }).subscribeOn(outbound);
    }

    private Process awaitStart() {
        try {
            return started.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while MCP server '" + config.name() + "' was starting", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("MCP server '" + config.name() + "' was not started within "
                    + startTimeout.toMillis() + " ms", e);
        }
    }

    /** The child's process id, or -1 before it started. */
    long pid() {
        Process p = process;
        return p == null ? -1 : p.pid();
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.<Void>fromRunnable(this::stop).subscribeOn(Schedulers.boundedElastic());
    }

    @Override
    public void close() {
        closeGracefully().subscribe();
    }

    private void stop() {
        closing = true;
        started.completeExceptionally(new IllegalStateException("MCP server '" + config.name() + "' is closed"));
        Process p = process;
        try {
            if (p != null && p.isAlive()) {
                List<ProcessHandle> tree = new ArrayList<>();
                p.descendants().forEach(tree::add);
                try {
                    p.getOutputStream().close(); // a well-behaved server exits when its input ends
                } catch (IOException ignored) {
                    // already closed
                }
                if (!p.waitFor(closeGrace.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.descendants().forEach(tree::add);
                    tree.forEach(ProcessHandle::destroy);
                    p.destroy();
                    if (!p.waitFor(closeGrace.toMillis(), TimeUnit.MILLISECONDS)) {
                        tree.forEach(ProcessHandle::destroyForcibly);
                        p.destroyForcibly();
                        p.waitFor(closeGrace.toMillis(), TimeUnit.MILLISECONDS);
                    }
                }
                // a launcher may exit while its child lives on
                tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (p != null) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        } finally {
            outbound.dispose();
        }
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
        return json.convertValue(data, typeRef);
    }
}
