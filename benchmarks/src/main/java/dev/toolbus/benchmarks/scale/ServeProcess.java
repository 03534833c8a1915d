package dev.toolbus.benchmarks.scale;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A real {@code toolbus serve} child JVM (the server jar), stopped by {@link #close()}. */
final class ServeProcess implements AutoCloseable {

    final Process process;
    final int port;

    private ServeProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** {@code serve --bus stdio --sample-tools}: standard input and output are the bus. */
    static ServeProcess sidecar(Path jar, String heap, Path logs) throws IOException {
        List<String> cmd = command(jar, heap);
        cmd.addAll(List.of("serve", "--bus", "stdio", "--sample-tools", "--no-gateway"));
        Process p = new ProcessBuilder(cmd).redirectError(logs.resolve("sidecar.err").toFile()).start();
        return new ServeProcess(p, -1);
    }

    /** {@code serve} with the gateway on a free loopback port, the given config file and token. */
    static ServeProcess gateway(Path jar, String heap, Path config, String token, Path logs)
            throws IOException, InterruptedException {
        Path portFile = Files.createTempFile(logs, "port", ".txt");
        Files.delete(portFile);
        List<String> cmd = command(jar, heap);
        cmd.addAll(List.of("serve", "--config", config.toString(), "--bus", "in-memory", "--sample-tools",
                "--gateway", "127.0.0.1:0", "--token", token, "--port-file", portFile.toString()));
        Process p = new ProcessBuilder(cmd).redirectOutput(logs.resolve("gateway.out").toFile())
                .redirectError(logs.resolve("gateway.err").toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!Files.exists(portFile)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IllegalStateException("serve did not write its port file; see " + logs.resolve("gateway.err"));
            }
            // polling a file another process writes: nothing to wait on
            TimeUnit.MILLISECONDS.sleep(50);
        }
        return new ServeProcess(p, Integer.parseInt(Files.readString(portFile).strip()));
    }

    private static List<String> command(Path jar, String heap) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx" + heap);
        cmd.add("-Xms" + heap);
        cmd.add("-jar");
        cmd.add(jar.toString());
        return cmd;
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws IOException, InterruptedException {
        process.getOutputStream().close();
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
