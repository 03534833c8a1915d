package dev.toolbus.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The toolbus runnable jar as a real child process: lines to its stdin, its stdout collected as
 * lines, its stderr kept in a file under target/it-logs for diagnosis.
 */
final class ToolbusProcess implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final OutputStream stdin;
    private final List<String> stdout = new CopyOnWriteArrayList<>();
    private final Thread pump;
    private final Path stderr;

    private ToolbusProcess(Process process, Path stderr) {
        this.process = process;
        this.stdin = process.getOutputStream();
        this.stderr = stderr;
        this.pump = new Thread(this::pumpStdout, "toolbus-it-stdout");
        this.pump.setDaemon(true);
        this.pump.start();
    }

    /** Starts {@code java -jar toolbus-server.jar args…}. */
    /** {@code serve --bus=stdio --sample-tools} and the extra arguments: the sidecar the ITs drive. */
    static ToolbusProcess sidecar(String name, String... extra) throws IOException {
        String[] args = new String[3 + extra.length];
        args[0] = "serve";
        args[1] = "--bus=stdio";
        args[2] = "--sample-tools";
        System.arraycopy(extra, 0, args, 3, extra.length);
        return start(name, args);
    }

    static ToolbusProcess start(String name, String... args) throws IOException {
        return start(name, java.util.Map.of(), args);
    }

    /** Starts {@code java -jar toolbus-server.jar args…} with extra environment variables. */
    static ToolbusProcess start(String name, java.util.Map<String, String> env, String... args) throws IOException {
        return start(name, List.of(), env, args);
    }

    /** Starts {@code java jvmArgs… -jar toolbus-server.jar args…} (e.g. {@code -Xmx256m}). */
    static ToolbusProcess start(String name, List<String> jvmArgs, java.util.Map<String, String> env, String... args)
            throws IOException {
        String jar = System.getProperty("toolbus.jar", "target/toolbus-server.jar");
        if (!Files.isRegularFile(Path.of(jar))) {
            throw new IllegalStateException("runnable jar " + jar + " is missing: run mvn verify (package builds it)");
        }
        Path logs = Files.createDirectories(Path.of("target", "it-logs"));
        Path stderr = logs.resolve(name + ".stderr.log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(jar);
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderr.toFile());
        pb.environment().remove("TOOLBUS_TOKEN");
        pb.environment().remove("TOOLBUS_URL");
        pb.environment().putAll(env);
        Process p = pb.start();
        return new ToolbusProcess(p, stderr);
    }

    /** Writes one line (a newline is added) and flushes. */
    ToolbusProcess send(String line) {
        return sendRaw((line + "\n").getBytes(StandardCharsets.UTF_8));
    }

    ToolbusProcess sendRaw(byte[] bytes) {
        try {
            stdin.write(bytes);
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Closes stdin: the sidecar's end of input. */
    ToolbusProcess closeInput() {
        try {
            stdin.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** Closes our end of its stdout: its next write meets a broken pipe. */
    ToolbusProcess closeOutput() {
        try {
            process.getInputStream().close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /**
     * Sends SIGTERM (a graceful stop). Through the {@link ProcessHandle}: {@code Process.destroy()} also
     * closes our end of the process's stdout, so the events a draining toolbus writes after the signal
     * met a broken pipe (SidecarIT's drain test failed so under load).
     */
    ToolbusProcess terminate() {
        process.toHandle().destroy();
        return this;
    }

    /** Every process started by this one, and theirs, now (plugin processes, their children). */
    List<ProcessHandle> descendants() {
        return process.toHandle().descendants().toList();
    }

    /** Sends SIGKILL: no shutdown hook runs. */
    ToolbusProcess kill() {
        process.destroyForcibly();
        return this;
    }

    /** Waits for the exit and the last stdout line; returns the exit code. */
    int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("toolbus did not exit within " + timeout + "; stderr:\n" + stderr());
        }
        pump.join(timeout.toMillis());
        return process.exitValue();
    }

    /** Runs a command that ends by itself (stdin closed at once); returns it after its exit. */
    static ToolbusProcess run(String name, String... args) throws IOException, InterruptedException {
        ToolbusProcess p = start(name, args);
        p.closeInput();
        p.exitCode = p.awaitExit(Duration.ofSeconds(60));
        return p;
    }

    private int exitCode = -1;

    /** The exit code of a {@link #run} command. */
    int exitCode() {
        return exitCode;
    }

    /** Whether the process is still running. */
    boolean alive() {
        return process.isAlive();
    }

    /** Stdout lines so far. */
    List<String> lines() {
        return List.copyOf(stdout);
    }

    /** Stdout lines so far, parsed as JSON. */
    List<JsonNode> events() {
        List<JsonNode> events = new ArrayList<>();
        for (String line : stdout) {
            try {
                events.add(JSON.readTree(line));
            } catch (IOException e) {
                throw new AssertionError("stdout line is not JSON: " + line, e);
            }
        }
        return events;
    }

    String stderr() {
        try {
            return Files.readString(stderr, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no stderr: " + e + ")";
        }
    }

    private void pumpStdout() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                stdout.add(line);
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
