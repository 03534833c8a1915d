package dev.toolbus.plugins.stdio;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.core.scheduler.Scheduler;

/**
 * The request/response side of one plugin process, apart from the OS process (the way the MCP Java SDK
 * keeps a session apart from its transport): request ids, the requests waiting for their answer, the
 * plugin's lines matched to them by id, {@code cancel} and its grace, and the plugin → host messages of
 * running calls ({@link CallMessages}). It writes through {@link Lines} and reads the lines it is handed
 * ({@link #onLine}); {@link PluginProcess} owns the process, its threads and its end.
 */
final class PluginRpc {

    /** The plugin's stdin as the RPC sees it. */
    interface Lines {
        /**
         * Queues one encoded line (with its newline) for the plugin's stdin.
         *
         * @param failed told the reason when the queued write fails (on the writer's thread)
         * @return {@code false} when the line was not queued: the writer is stopped or full
         */
        boolean write(byte[] line, Consumer<String> failed);
    }

    private static final Logger log = LoggerFactory.getLogger(PluginRpc.class);

    private final PluginManifest manifest;
    private final Lines lines;
    private final Consumer<String> unresponsive;
    private final Scheduler timer;
    private final CallMessages messages;
    /** Warnings about what the plugin writes to stdout (noise, stray answers): 8 KiB/s at most. */
    private final LogLimiter stdoutWarnings = new LogLimiter(8192, System::nanoTime);
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private volatile boolean closed;
    private volatile String closeReason = "";

    /** A request waiting for its answer; after a cancel it waits (at most the grace) for any answer. */
    private static final class Pending {
        final long id;
        final MonoSink<JsonNode> sink;
        final ToolContext ctx;
        final Permits.Lease lease;
        final AtomicBoolean settled = new AtomicBoolean();
        volatile boolean cancelled;
        volatile Disposable graceTimer;
        final Disposable.Composite tasks = CallMessages.tasks();

        Pending(long id, MonoSink<JsonNode> sink, ToolContext ctx, Permits.Lease lease) {
            this.id = id;
            this.sink = sink;
            this.ctx = ctx;
            this.lease = lease;
        }
    }

    /**
     * @param manifest the plugin's id, activation timeout and cancel grace
     * @param lines where requests, cancels and replies are written
     * @param unresponsive told when a cancelled call is not answered within the grace (or the grace is
     *     0): the process must be killed
     * @param timer runs the grace timers
     */
    PluginRpc(PluginManifest manifest, Lines lines, Consumer<String> unresponsive, Scheduler timer) {
        this.manifest = manifest;
        this.lines = lines;
        this.unresponsive = unresponsive;
        this.timer = timer;
        this.messages = new CallMessages(manifest.id(), this::notify);
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
                    return Wire.tools(manifest, answer);
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
     * plugin answers it, any answer, or the RPC is closed; an answer later than {@code cancelGraceMs}
     * makes the RPC report the process {@code unresponsive}.
     */
    Mono<JsonNode> execute(ObjectNode params, ToolContext ctx, Permits.Lease lease) {
        return Mono.create(sink -> {
            long id = ids.incrementAndGet();
            Pending p = new Pending(id, sink, ctx, lease);
            pending.put(id, p);
            sink.onCancel(() -> cancelled(p));
            send(p, "execute_tool", params);
        });
    }

    private void send(Pending p, String method, ObjectNode params) {
        if (closed) {
            fail(p, closeReason);
            return;
        }
        byte[] line;
        try {
            line = encode(Wire.request(p.id, method, params));
        } catch (JsonProcessingException e) {
            fail(p, "cannot encode the request to plugin '" + manifest.id() + "': " + e.getOriginalMessage());
            return;
        }
        if (!lines.write(line, reason -> fail(p, reason))) {
            fail(p, closed ? closeReason : "plugin '" + manifest.id() + "' has too many writes queued");
        }
    }

    private void cancelled(Pending p) {
        if (pending.get(p.id) != p || p.settled.get()) {
            return;
        }
        if (closed) {
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
            unresponsive.accept("plugin '" + manifest.id() + "' was stopped: a call"
                    + (callId == null ? "" : " (" + callId + ")") + " was cancelled or timed out and cancelGraceMs is 0");
            return;
        }
        log.debug("plugin {}: cancelling request {} (call {}); it has {} ms to answer", manifest.id(), p.id, callId, grace);
        String why = p.ctx == null || p.ctx.cancelReason() == null ? ToolContext.CANCELLED : p.ctx.cancelReason();
        notify(Wire.cancel(p.id, callId, why));
        p.graceTimer = timer.schedule(() -> {
            if (pending.get(p.id) == p && !closed) {
                unresponsive.accept("plugin '" + manifest.id() + "' did not answer a cancelled call"
                        + (callId == null ? "" : " (" + callId + ")") + " within " + grace + " ms");
            }
        }, grace, TimeUnit.MILLISECONDS);
        if (p.settled.get()) {
            p.graceTimer.dispose();
        }
    }

    /** Writes a message that expects no answer (cancel, reply, configure); dropped when the writer is gone or full. */
    void notify(ObjectNode message) {
        byte[] line;
        try {
            line = encode(message);
        } catch (JsonProcessingException e) {
            log.warn("plugin {}: cannot encode a message: {}", manifest.id(), e.getOriginalMessage());
            return;
        }
        if (!lines.write(line, reason -> { })) {
            log.debug("plugin {}: message dropped, the writer is stopped or full", manifest.id());
        }
    }

    /** The {@code deactivate} request, encoded with a fresh id; {@code null} when it cannot be encoded. */
    byte[] deactivation() {
        try {
            return encode(Wire.request(ids.incrementAndGet(), "deactivate", null));
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** Requests waiting for an answer, cancelled ones included (for tests). */
    int pendingCount() {
        return pending.size();
    }

    /** Whether {@link #close} was called: requests fail at once with its reason. */
    boolean isClosed() {
        return closed;
    }

    /**
     * Fails every waiting request with {@code reason} (a cancelled one only gives back its lease) and
     * every later one; answers that still arrive are dropped. Idempotent: the first reason stays.
     */
    void close(String reason) {
        if (closed) {
            return;
        }
        closeReason = reason;
        closed = true;
        for (Pending p : List.copyOf(pending.values())) {
            fail(p, reason);
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

    private void fail(Pending p, String reason) {
        if (pending.remove(p.id, p)) {
            if (!p.cancelled) {
                p.sink.error(new StdioPluginException(reason));
            }
            settle(p);
        }
    }

    private static byte[] encode(ObjectNode message) throws JsonProcessingException {
        byte[] json = Json.mapper().writeValueAsBytes(message);
        byte[] line = Arrays.copyOf(json, json.length + 1);
        line[json.length] = '\n';
        return line;
    }

    // ---- reading ----

    /**
     * Handles one line of the plugin's stdout: a plugin → host message of a running call, or the answer
     * to the request whose id it echoes (without an id, to the only request waiting, if there is one).
     * Noise, answers to requests that no longer wait and answers matching no request are logged and
     * dropped.
     */
    void onLine(String text) {
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
}
