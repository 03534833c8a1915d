package dev.toolbus.server;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code toolbus serve} with a gateway as a real process: started with {@code --port-file} so an
 * ephemeral port can be learnt, plus small HTTP and curl helpers against it.
 */
final class RunningServer implements AutoCloseable {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    final ToolbusProcess process;
    final int port;
    final String token;

    private RunningServer(ToolbusProcess process, int port, String token) {
        this.process = process;
        this.port = port;
        this.token = token;
    }

    /**
     * Starts {@code serve} with these arguments plus {@code --port-file}, and waits for the port.
     *
     * @param token the bearer token the test should send (null: none), given through TOOLBUS_TOKEN
     */
    static RunningServer start(String name, String token, String... args) throws IOException {
        return start(name, token, Map.of(), args);
    }

    /** {@link #start(String, String, String...)} with more environment variables (e.g. JAVA_TOOL_OPTIONS). */
    static RunningServer start(String name, String token, Map<String, String> env, String... args) throws IOException {
        Path portFile = Files.createDirectories(Path.of("target", "it-logs")).resolve(name + ".port").toAbsolutePath();
        Files.deleteIfExists(portFile);
        List<String> all = new ArrayList<>(List.of("serve"));
        all.addAll(List.of(args));
        all.add("--port-file");
        all.add(portFile.toString());
        Map<String, String> all2 = new java.util.HashMap<>(env);
        if (token != null) {
            all2.put("TOOLBUS_TOKEN", token);
        }
        ToolbusProcess p = ToolbusProcess.start(name, all2, all.toArray(String[]::new));
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(portFile) || !p.alive());
            if (!Files.exists(portFile)) {
                throw new AssertionError("serve exited before listening; stderr:\n" + p.stderr());
            }
        } catch (RuntimeException | AssertionError e) {
            p.close();
            throw e;
        }
        int port = Integer.parseInt(Files.readString(portFile).strip());
        return new RunningServer(p, port, token);
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    /** GET with the token; the body parsed as JSON. */
    JsonNode get(String path) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url() + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> res = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(res.body());
    }

    /** Tool names of {@code GET /v1/tools} with this query. */
    List<String> toolNames(String query) throws IOException, InterruptedException {
        List<String> names = new ArrayList<>();
        get("/v1/tools?" + query).path("tools").forEach(t -> names.add(t.path("function").path("name").asText()));
        return names;
    }

    /** Runs {@code curl args…} and returns its stdout; fails when curl exits non-zero. */
    static String curl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("curl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        byte[] out = p.getInputStream().readAllBytes();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError("curl " + cmd + " failed: " + err);
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        process.close();
    }
}
