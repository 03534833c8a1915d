package dev.toolbus.crossface;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code toolbus serve --config toolbus.yaml} as a real process, its real gateway reached over HTTP and WebSocket. */
final class ServeFace extends GatewayFace {

    private final Process process;
    private final Path stderr;
    private final GatewayClient gateway;

    ServeFace(Fixture f) throws Exception {
        Path portFile = f.dir.resolve("serve.port");
        stderr = f.dir.resolve("serve.stderr.log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", f.jar.toString(), "serve", "--config", f.config.toString(), "--port-file", portFile.toString()));
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderr.toFile())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().remove("TOOLBUS_TOKEN");
        process = pb.start();
        await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(portFile) || !process.isAlive());
        if (!process.isAlive()) {
            throw new AssertionError("serve did not start its gateway; stderr:\n" + stderr());
        }
        int port = Integer.parseInt(Files.readString(portFile).strip());
        gateway = new GatewayClient("http://127.0.0.1:" + port);
    }

    @Override
    public String name() {
        return "toolbus serve";
    }

    @Override
    public GatewayClient gateway() {
        return gateway;
    }

    String stderr() {
        try {
            return Files.readString(stderr, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no stderr: " + e + ")";
        }
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
