package dev.toolbus.plugins.stdio;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Schedulers;

/**
 * One running plugin process: its stdin writer thread, its stdout and stderr reader threads, and the
 * requests waiting for an answer. It never restarts itself; when it breaks (exit, overlong line,
 * unwritable input) it tells its {@link Listener}, which stops it and starts another one later.
 */
final class PluginProcess {

    /** Told when the process can no longer serve calls. */
    interface Listener {
        /** The process exited, closed its output or broke the protocol; stop it gracefully. */
        void broken(PluginProcess process, String reason);

        /** A cancelled call was not answered within {@code cancelGraceMs}; kill the process. */
        void unresponsive(PluginProcess process, String reason);
    }

    private static final Logger log = LoggerFactory.getLogger(PluginProcess.class);
    /** How long after an exit the stdout reader gets to deliver the last answers before calls fail. */
    private static final long EXIT_SETTLE_MS = 500;
    /** How long to wait for killed processes to be gone. */
    private static final long KILL_WAIT_MS = 5000;
    /** Writes (requests, cancels, replies) queued for stdin at most. */
    private static final int WRITE_QUEUE = 1024;

    private final PluginManifest manifest;
    private final Process process;
    private final Listener listener;
    private final OutputStream stdin;
    private final ExecutorService writer;
    private final Logger stderrLog;
    private final LogLimiter stderrLimit;
    /** Warnings about what the plugin writes to stdout (noise, stray answers): 8 KiB/s at most. */
    private final LogLimiter stdoutWarnings = new LogLimiter(8192, System::nanoTime);
    private final CallMessages messages;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicBoolean reported = new AtomicBoolean();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private volatile String stopReason = "";
    private volatile List<ToolDefinition> tools = List.of();

    /** A request waiting for its answer; after a cancel it waits (at most the grace) for any answer. */
    private static final class Pending {
        final long id;
        final MonoSink<JsonNode> sink;
        final ToolContext ctx;
        final CallGate.Lease lease;
        final AtomicBoolean settled = new AtomicBoolean();
        volatile boolean cancelled;
        volatile Disposable graceTimer;
        final Disposable.Composite tasks = CallMessages.tasks();

        Pending(long id, MonoSink<JsonNode> sink, ToolContext ctx, CallGate.Lease lease) {
            this.id = id;
            this.sink = sink;
            this.ctx = ctx;
            this.lease = lease;
        }
    }

    private PluginProcess(PluginManifest manifest, Process process, Listener listener) {
        this.manifest = manifest;
        this.process = process;
        this.listener = listener;
        this.stdin = new BufferedOutputStream(process.getOutputStream(), 8192);
        String prefix = "toolbus-plugin-" + manifest.id() + "-" + process.pid();
        // bounded: a plugin that stops reading stdin cannot make the host queue without limit
        this.writer = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(WRITE_QUEUE),
                r -> daemon(r, prefix + "-stdin"));
        this.stderrLog = LoggerFactory.getLogger("dev.toolbus.plugins.stdio.plugin." + manifest.id());
        this.stderrLimit = new LogLimiter(manifest.stderrBytesPerSecond(), System::nanoTime);
        this.messages = new CallMessages(manifest.id(), this::writeLine);
    }

    /**
     * Starts the process and its reader threads (blocking: fork and exec).
     *
     * @throws StdioPluginException when the command cannot be started
     */
    static PluginProcess spawn(PluginManifest m, Listener listener) {
        Map<String, String> env = PluginEnvironment.of(m, System.getenv());
        List<String> command = m.commandLine();
        if (OrphanGuard.available()) {
            // behind setsid a missing program would only show as exit code 127: say it here
            String missing = OrphanGuard.missingProgram(command.get(0), m.directory(), env.get("PATH"));
            if (missing != null) {
                throw new StdioPluginException("cannot start plugin '" + m.id() + "' (" + String.join(" ", command)
                        + "): " + missing);
            }
            command = OrphanGuard.wrap(command);
        }
        ProcessBuilder pb = new ProcessBuilder(command).directory(m.directory().toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Process proc;
        try {
            proc = pb.start();
        } catch (IOException e) {
            throw new StdioPluginException("cannot start plugin '" + m.id() + "' (" + String.join(" ", m.commandLine())
                    + "): " + e.getMessage(), e);
        }
        PluginProcess p = new PluginProcess(m, proc, listener);
        long pid = proc.pid();
        OrphanGuard.watch(pid);
        p.terminated.whenComplete((x, e) -> OrphanGuard.release(pid));
        String prefix = "toolbus-plugin-" + m.id() + "-" + proc.pid();
        daemon(p::readStdout, prefix + "-stdout").start();
        daemon(p::readStderr, prefix + "-stderr").start();
        proc.onExit().thenRunAsync(p::exited, CompletableFuture.delayedExecutor(EXIT_SETTLE_MS, TimeUnit.MILLISECONDS));
        log.debug("plugin {} started as pid {}", m.id(), proc.pid());
        return p;
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    long pid() {
        return process.pid();
    }

    /** Whether calls may be sent: not stopping and still alive. */
    boolean isUsable() {
        return !stopping.get() && process.isAlive();
    }

    boolean isStopping() {
        return stopping.get();
    }

    List<ToolDefinition> tools() {
        return tools;
    }

    /** Completes when the process and every descendant seen at stop time are gone. */
    CompletableFuture<Void> terminated() {
        return terminated;
    }

    /** Sends {@code activate} and reads the declared tools. */
    Mono<List<ToolDefinition>> activate() {
        return activate(null, "");
    }

    /** Sends {@code activate} with the plugin's configuration ({@code null}: none) and reads the declared tools. */
    Mono<List<ToolDefinition>> activate(ObjectNode config, String configVersion) {
        long ms = manifest.activationTimeout().toMillis();
        return request("activate", Wire.activateParams(manifest.id(), config, configVersion))
                .timeout(manifest.activationTimeout(), Mono.error(() -> new StdioPluginException(
                        "plugin '" + manifest.id() + "' did not answer activate within " + ms + " ms")))
                .map(answer -> {
                    String error = Wire.error(answer);
                    if (error != null) {
                        throw new StdioPluginException("plugin '" + manifest.id() + "' refused to activate: " + error);
                    }
                    List<ToolDefinition> defs = Wire.tools(manifest, answer);
                    this.tools = defs;
                    return defs;
                });
    }

    /**
     * Writes one request and waits for its answer. Cancelling the returned Mono forgets the request
     * (the caller decides whether the process must go).
     */
    Mono<JsonNode> request(String method, ObjectNode params) {
        return Mono.create(sink -> {
            long id = ids.incrementAndGet();
            Pending p = new Pending(id, sink, null, null);
            pending.put(id, p);
            sink.onCancel(() -> {
                if (pending.remove(id, p)) {
                    settle(p);
                }
            });
            send(p, method, params);
        });
    }

    /**
     * Sends one {@code execute_tool} and waits for its answer. Cancelling the returned Mono (a cancel or
     * a timeout) sends {@code cancel} for it; the call then holds {@code lease} (when given) until the
     * plugin answers it, any answer, or the process is gone; an answer later than {@code cancelGraceMs}
     * has the process killed.
     */
    Mono<JsonNode> execute(ObjectNode params, ToolContext ctx, CallGate.Lease lease) {
        return Mono.create(sink -> {
            long id = ids.incrementAndGet();
            Pending p = new Pending(id, sink, ctx, lease);
            pending.put(id, p);
            sink.onCancel(() -> cancelled(p));
            send(p, "execute_tool", params);
        });
    }

    private void send(Pending p, String method, ObjectNode params) {
        if (stopping.get()) {
            fail(p, stopReason);
            return;
        }
        byte[] line;
        try {
            line = encode(Wire.request(p.id, method, params));
        } catch (JsonProcessingException e) {
            fail(p, "cannot encode the request to plugin '" + manifest.id() + "': " + e.getOriginalMessage());
            return;
        }
        try {
            writer.execute(() -> write(line, p));
        } catch (RejectedExecutionException e) {
            fail(p, stopping.get() ? stopReason : "plugin '" + manifest.id() + "' has too many writes queued");
        }
    }

    private void cancelled(Pending p) {
        if (pending.get(p.id) != p || p.settled.get()) {
            return;
        }
        if (stopping.get()) {
            if (pending.remove(p.id, p)) {
                settle(p);
            }
            return;
        }
        p.cancelled = true;
        if (p.lease != null) {
            p.lease.retain();
        }
        String callId = p.ctx == null ? null : p.ctx.toolCallId();
        long grace = manifest.cancelGrace().toMillis();
        if (grace == 0) {
            listener.unresponsive(this, "plugin '" + manifest.id() + "' was stopped: a call"
                    + (callId == null ? "" : " (" + callId + ")") + " was cancelled or timed out and cancelGraceMs is 0");
            return;
        }
        log.debug("plugin {}: cancelling request {} (call {}); it has {} ms to answer", manifest.id(), p.id, callId, grace);
        String why = p.ctx == null || p.ctx.cancelReason() == null ? ToolContext.CANCELLED : p.ctx.cancelReason();
        writeLine(Wire.cancel(p.id, callId, why));
        p.graceTimer = Schedulers.parallel().schedule(() -> {
            if (pending.get(p.id) == p && !stopping.get()) {
                String reason = "plugin '" + manifest.id() + "' did not answer a cancelled call"
                        + (callId == null ? "" : " (" + callId + ")") + " within " + grace + " ms";
                log.warn("{}; killing pid {}", reason, pid());
                listener.unresponsive(this, reason);
            }
        }, grace, TimeUnit.MILLISECONDS);
        if (p.settled.get()) {
            p.graceTimer.dispose();
        }
    }

    /** Requests waiting for an answer, cancelled ones included (for tests). */
    int pendingCount() {
        return pending.size();
    }

    /** Writes a message that expects no answer (cancel, reply); dropped when the writer is gone or full. */
    void writeLine(ObjectNode message) {
        byte[] line;
        try {
            line = encode(message);
        } catch (JsonProcessingException e) {
            log.warn("plugin {}: cannot encode a message: {}", manifest.id(), e.getOriginalMessage());
            return;
        }
        try {
            writer.execute(() -> {
                try {
                    stdin.write(line);
                    stdin.flush();
                } catch (IOException e) {
                    if (!stopping.get()) {
                        reportBroken("cannot write to plugin '" + manifest.id() + "': " + e.getMessage());
                    }
                }
            });
        } catch (RejectedExecutionException e) {
            log.debug("plugin {}: message dropped, the writer is stopped or full", manifest.id());
        }
    }

    private void settle(Pending p) {
        if (p.settled.compareAndSet(false, true)) {
            Disposable t = p.graceTimer;
            if (t != null) {
                t.dispose();
            }
            p.tasks.dispose();
            if (p.lease != null) {
                p.lease.release();
            }
        }
    }

    private void write(byte[] line, Pending p) {
        try {
            stdin.write(line);
            stdin.flush();
        } catch (IOException e) {
            if (!stopping.get()) {
                String reason = "cannot write to plugin '" + manifest.id() + "': " + e.getMessage();
                fail(p, reason);
                reportBroken(reason);
            }
        }
    }

    private static byte[] encode(ObjectNode request) throws JsonProcessingException {
        byte[] json = Json.mapper().writeValueAsBytes(request);
        byte[] line = java.util.Arrays.copyOf(json, json.length + 1);
        line[json.length] = '\n';
        return line;
    }

    private void fail(Pending p, String reason) {
        if (pending.remove(p.id, p)) {
            if (!p.cancelled) {
                p.sink.error(new StdioPluginException(reason));
            }
            settle(p);
        }
    }

    private void failAll(String reason) {
        for (Pending p : List.copyOf(pending.values())) {
            fail(p, reason);
        }
    }

    // ---- reading ----

    private void readStdout() {
        LineReader reader = new LineReader(process.getInputStream(), manifest.maxLineBytes());
        try {
            LineReader.Line line;
            while ((line = reader.next(false)) != null) {
                if (line.overlong()) {
                    reportBroken("plugin '" + manifest.id() + "' wrote a line longer than "
                            + manifest.maxLineBytes() + " bytes");
                    return;
                }
                dispatch(line.text());
            }
        } catch (IOException e) {
            if (!stopping.get()) {
                log.debug("plugin {}: reading stdout failed: {}", manifest.id(), e.toString());
            }
        } catch (RuntimeException e) {
            log.error("plugin {}: stdout reader failed", manifest.id(), e);
        }
        if (!stopping.get()) {
            reportBroken(exitReason(true));
        }
    }

    private void readStderr() {
        LineReader reader = new LineReader(process.getErrorStream(), manifest.stderrLineBytes());
        try {
            LineReader.Line line;
            while ((line = reader.next(true, stderrLimit::admit)) != null) {
                if (line.text() == null) {
                    continue; // over the rate: dropped (and counted) without decoding it
                }
                long dropped = stderrLimit.takeDroppedSinceReport();
                if (dropped > 0) {
                    stderrLog.warn("[{}] {} stderr lines dropped (over {} bytes/s)", manifest.id(), dropped,
                            manifest.stderrBytesPerSecond());
                }
                stderrLog.info("[{}] {}{}", manifest.id(), line.text(), line.overlong() ? " …(line cut)" : "");
            }
        } catch (IOException e) {
            log.trace("plugin {}: stderr closed: {}", manifest.id(), e.toString());
        }
        long dropped = stderrLimit.takeDroppedSinceReport();
        if (dropped > 0) {
            stderrLog.warn("[{}] {} stderr lines dropped (over {} bytes/s)", manifest.id(), dropped,
                    manifest.stderrBytesPerSecond());
        }
    }

    /** The stderr lines dropped by the rate limit so far. */
    long stderrDroppedLines() {
        return stderrLimit.droppedLines();
    }

    /** The stderr bytes logged so far. */
    long stderrLoggedBytes() {
        return stderrLimit.loggedBytes();
    }

    private void exited() {
        if (!stopping.get()) {
            reportBroken(exitReason(false));
        }
    }

    private void reportBroken(String reason) {
        if (!stopping.get() && reported.compareAndSet(false, true)) {
            listener.broken(this, reason);
        }
    }

    private String exitReason(boolean outputClosed) {
        boolean exited;
        try {
            exited = process.waitFor(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exited = !process.isAlive();
        }
        if (exited) {
            return "plugin '" + manifest.id() + "' exited with code " + process.exitValue();
        }
        return outputClosed ? "plugin '" + manifest.id() + "' closed its output" : "plugin '" + manifest.id() + "' exited";
    }

    private void dispatch(String text) {
        if (text.isBlank()) {
            return;
        }
        JsonNode n;
        try {
            n = Json.mapper().readTree(text);
        } catch (JsonProcessingException e) {
            warn("plugin {} wrote a line that is not JSON (ignored; log to stderr instead): {}", Wire.abbreviate(text, 200));
            return;
        }
        if (n == null || n.isMissingNode()) {
            return;
        }
        if (n.isObject() && Wire.isInbound(n) && CallMessages.handles(n.path("method").textValue())) {
            message(n.path("method").textValue(), n.path("params"));
            return;
        }
        Long id = n.isObject() ? Wire.id(n) : null;
        Pending target = id != null ? pending.get(id) : null;
        if (target == null) {
            if (id != null && id != -1L && !n.has("method")) {
                log.debug("plugin {} answered request {}, which no longer waits", manifest.id(), id);
                return;
            }
            if (n.isObject() && Wire.isInbound(n)) {
                log.debug("plugin {} sent '{}', which this host does not handle", manifest.id(), n.path("method").asText());
                return;
            }
            target = onlyPending();
            if (target == null) {
                warn("plugin {} wrote an answer that matches no waiting call: {}", Wire.abbreviate(text, 200));
                return;
            }
        }
        if (!pending.remove(target.id, target)) {
            return;
        }
        if (target.cancelled) {
            log.debug("plugin {} answered cancelled request {} (discarded)", manifest.id(), target.id);
        } else if (!n.isObject()) {
            target.sink.error(new StdioPluginException("plugin '" + manifest.id()
                    + "' answered with JSON that is not an object: " + Wire.abbreviate(text, 200)));
        } else {
            target.sink.success(n);
        }
        settle(target);
    }

    /** A plugin → host message of a running call ({@code params.id} = the execute_tool request id). */
    private void message(String method, JsonNode params) {
        if (!params.isObject()) {
            log.debug("plugin {}: '{}' without params is ignored", manifest.id(), method);
            return;
        }
        Long callId = Wire.id(params);
        // without an id (an xbot-style plugin) it belongs to the one call in flight, if there is one
        Pending p = callId == null ? onlyPending() : pending.get(callId);
        boolean live = p != null && p.ctx != null && !p.cancelled && !p.settled.get();
        messages.handle(method, params, live ? p.ctx : null, live ? p.tasks : null);
    }

    /** A warning about the plugin's stdout, within {@link #stdoutWarnings}; a summary of what was dropped. */
    private void warn(String format, String text) {
        if (!stdoutWarnings.admit(text.length() + 80)) {
            return;
        }
        long dropped = stdoutWarnings.takeDroppedSinceReport();
        if (dropped > 0) {
            log.warn("plugin {}: {} more warnings about its stdout were not logged", manifest.id(), dropped);
        }
        log.warn(format, manifest.id(), text);
    }

    private Pending onlyPending() {
        Iterator<Pending> it = pending.values().iterator();
        if (!it.hasNext()) {
            return null;
        }
        Pending p = it.next();
        return it.hasNext() ? null : p;
    }

    // ---- stopping ----

    /**
     * Stops the process once: fails waiting requests with {@code reason}, sends {@code deactivate} and
     * closes stdin (when {@code graceful}), waits up to the grace period, then kills whatever is left of
     * the process tree. Repeated calls return the same future.
     */
    CompletableFuture<Void> stop(String reason, boolean graceful) {
        if (!stopping.compareAndSet(false, true)) {
            return terminated;
        }
        stopReason = reason;
        failAll(reason);
        List<ProcessHandle> tree = descendants();
        long graceMs = graceful && process.isAlive() ? manifest.stopGrace().toMillis() : 0;
        if (graceMs > 0) {
            try {
                byte[] line = encode(Wire.request(ids.incrementAndGet(), "deactivate", null));
                writer.execute(() -> {
                    try {
                        stdin.write(line);
                        stdin.flush();
                        stdin.close();
                    } catch (IOException ignored) {
                        // it is going away anyway
                    }
                });
            } catch (JsonProcessingException | RejectedExecutionException ignored) {
                // nothing to tell it
            }
        }
        process.onExit().thenApply(p -> Boolean.TRUE)
                .completeOnTimeout(Boolean.FALSE, graceMs, TimeUnit.MILLISECONDS)
                .whenComplete((exitedInTime, err) -> {
                    if (graceMs > 0 && !Boolean.TRUE.equals(exitedInTime)) {
                        log.info("plugin {} (pid {}) did not exit within {} ms; killing it", manifest.id(), pid(), graceMs);
                    }
                    finish(kill(tree));
                });
        return terminated;
    }

    /**
     * Kills the process tree at once (JVM shutdown): waiting requests fail with {@code reason}, and the
     * future of {@link #stop} and {@link #terminated()} completes once the processes are gone.
     */
    CompletableFuture<Void> killNow(String reason) {
        if (stopping.compareAndSet(false, true)) {
            stopReason = reason;
            failAll(reason);
            finish(kill(descendants()));
        }
        return terminated;
    }

    private void finish(List<CompletableFuture<?>> gone) {
        writer.shutdownNow();
        CompletableFuture.allOf(gone.toArray(CompletableFuture[]::new))
                .orTimeout(KILL_WAIT_MS, TimeUnit.MILLISECONDS)
                .whenComplete((x, e) -> {
                    if (e != null && e.getCause() instanceof TimeoutException || e instanceof TimeoutException) {
                        log.warn("plugin {} (pid {}): some processes did not exit after the kill", manifest.id(), pid());
                    }
                    terminated.complete(null);
                });
    }

    private List<ProcessHandle> descendants() {
        try {
            return process.descendants().toList();
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    private List<CompletableFuture<?>> kill(List<ProcessHandle> seenBefore) {
        List<ProcessHandle> all = new ArrayList<>(seenBefore);
        all.addAll(descendants());
        List<CompletableFuture<?>> gone = new ArrayList<>();
        for (ProcessHandle h : all) {
            if (h.isAlive()) {
                h.destroyForcibly();
                gone.add(h.onExit());
            }
        }
        if (process.isAlive()) {
            process.destroyForcibly();
        }
        gone.add(process.onExit());
        return gone;
    }

    @Override
    public String toString() {
        return "plugin " + manifest.id() + " (pid " + process.pid() + ")";
    }
}
