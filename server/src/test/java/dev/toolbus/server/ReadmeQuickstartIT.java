package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's quick start, run as written: the fenced block after {@code <!-- quickstart:serve -->}
 * starts the service from the repository root (through the {@code ./toolbus} launcher), the block
 * after {@code <!-- quickstart:call -->} is run with bash, and its output must match the block after
 * {@code <!-- quickstart:output -->} apart from {@code elapsed_ms}. When the README's port is taken
 * on this machine, only the port is changed (a {@code --gateway} flag and the URL).
 */
class ReadmeQuickstartIT {

    private static final Path ROOT = Path.of(System.getProperty("toolbus.root", "..")).toAbsolutePath().normalize();

    static String block(String readme, String marker) {
        Matcher m = Pattern.compile(Pattern.quote("<!-- quickstart:" + marker + " -->") + "\\s*```\\w*\\n(.*?)```",
                Pattern.DOTALL).matcher(readme);
        assertThat(m.find()).as("README has a fenced block after <!-- quickstart:%s -->", marker).isTrue();
        return m.group(1).strip();
    }

    @Test
    void quickStart_worksAsWritten() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        String serve = block(readme, "serve");
        String call = block(readme, "call");
        JsonNode expected = RunningServer.JSON.readTree(block(readme, "output"));
        Matcher portInUrl = Pattern.compile("http://127\\.0\\.0\\.1:(\\d+)/").matcher(call);
        assertThat(portInUrl.find()).as(call).isTrue();
        int port = Integer.parseInt(portInUrl.group(1));
        if (!free(port)) {
            int other = freePort();
            serve = serve + " --gateway 127.0.0.1:" + other;
            call = call.replace("127.0.0.1:" + port + "/", "127.0.0.1:" + other + "/");
            port = other;
        }

        Path logs = Files.createDirectories(Path.of("target", "it-logs"));
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", serve).directory(ROOT.toFile())
                .redirectOutput(logs.resolve("readme-serve.stdout.log").toFile())
                .redirectError(logs.resolve("readme-serve.stderr.log").toFile());
        pb.environment().remove("TOOLBUS_TOKEN");
        Process server = pb.start();
        try {
            int p = port;
            await().atMost(Duration.ofMinutes(5)).until(() -> healthy(p) || !server.isAlive());
            assertThat(server.isAlive()).as(Files.readString(logs.resolve("readme-serve.stderr.log"))).isTrue();

            Process curl = new ProcessBuilder("bash", "-c", call).directory(ROOT.toFile()).start();
            String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(curl.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(curl.exitValue()).isZero();

            assertThat(withoutTimings(RunningServer.JSON.readTree(out))).isEqualTo(withoutTimings(expected));
        } finally {
            server.descendants().forEach(ProcessHandle::destroy);
            server.destroy();
            server.waitFor(60, TimeUnit.SECONDS);
        }
        assertThat(Files.readString(logs.resolve("readme-serve.stderr.log")))
                .contains("gateway listening on http://127.0.0.1:" + port + " (port " + port + ", bearer token required)");
    }

    private static JsonNode withoutTimings(JsonNode events) {
        JsonNode copy = events.deepCopy();
        copy.forEach(e -> ((ObjectNode) e).remove("elapsed_ms"));
        return copy;
    }

    private static boolean healthy(int port) {
        try {
            return RunningServer.curl("-s", "http://127.0.0.1:" + port + "/healthz").contains("UP");
        } catch (AssertionError | IOException | InterruptedException e) {
            return false;
        }
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, java.net.InetAddress.getLoopbackAddress())) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
