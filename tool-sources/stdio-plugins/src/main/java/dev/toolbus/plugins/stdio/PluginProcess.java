package dev.toolbus.plugins.stdio;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Schedulers;

/**
 * One running plugin process, the OS side: spawn (environment, orphan guard), the stdin writer thread,
 * the stdout reader (each line handed to the process's {@link PluginRpc}), the stderr reader with its
 * rate limit, the exit, and the stop (deactivate, grace, kill of the process tree). It never restarts
 * itself; when it breaks (exit, overlong line, unwritable input) it tells its {@link Listener}, which
 * stops it and starts another one later.
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
    private final PluginRpc rpc;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicBoolean reported = new AtomicBoolean();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();

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
        this.rpc = new PluginRpc(manifest, this::write, reason -> {
            log.warn("{}; killing pid {}", reason, pid());
            listener.unresponsive(this, reason);
        }, Schedulers.parallel());
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

    /** The requests and answers of this process. */
    PluginRpc rpc() {
        return rpc;
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

    /** Completes when the process and every descendant seen at stop time are gone. */
    CompletableFuture<Void> terminated() {
        return terminated;
    }

    /** {@link PluginRpc.Lines}: queues a line for stdin; a failed write breaks the process. */
    private boolean write(byte[] line, Consumer<String> failed) {
        try {
            writer.execute(() -> {
                try {
                    stdin.write(line);
                    stdin.flush();
                } catch (IOException e) {
                    if (!stopping.get()) {
                        String reason = "cannot write to plugin '" + manifest.id() + "': " + e.getMessage();
                        failed.accept(reason);
                        reportBroken(reason);
                    }
                }
            });
            return true;
        } catch (RejectedExecutionException e) {
            return false;
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
                rpc.onLine(line.text());
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
        rpc.close(reason);
        List<ProcessHandle> tree = descendants();
        long graceMs = graceful && process.isAlive() ? manifest.stopGrace().toMillis() : 0;
        byte[] line = graceMs > 0 ? rpc.deactivation() : null;
        if (line != null) {
            try {
                writer.execute(() -> {
                    try {
                        stdin.write(line);
                        stdin.flush();
                        stdin.close();
                    } catch (IOException ignored) {
                        // it is going away anyway
                    }
                });
            } catch (RejectedExecutionException ignored) {
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
            rpc.close(reason);
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
