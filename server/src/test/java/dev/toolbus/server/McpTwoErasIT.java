package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code toolbus mcp --http … --sample-tools} process serving both MCP eras at once: the official
 * TypeScript client 2.x pinned to 2026-07-28 (with ext-tasks) and the 1.x client on 2025-11-25 run
 * concurrently against it and each lists and calls tools, sees progress, answers a question
 * ({@code input_required} for the 2.x client, {@code elicitation/create} for the 1.x one), runs
 * {@code sleep} as a task to completion, and cancels a {@code sleep} task, which really stops (the
 * server logs the tool's cancel, once per client). Then each client does the same over stdio against
 * {@code toolbus mcp --sample-tools} from the same jar. The Node scripts are tool-sources/mcp's
 * src/test/node ones, with {@code TOOLS=sample}.
 */
class McpTwoErasIT {

    private static final Pattern CANCELLED = Pattern.compile("sample tool sleep \\(60000 ms\\) cancelled");
    private static final String JAR = Path.of(System.getProperty("toolbus.jar", "target/toolbus-server.jar"))
            .toAbsolutePath().toString();
    private static Path node;

    @BeforeAll
    static void installNodePeers() throws Exception {
        assumeTrue(onPath("npm") && onPath("node"), "npm/node not found on PATH: the MCP tests with Node peers are skipped");
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isRegularFile(root.resolve("docs/examples/mcp-client/package.json"))) {
            root = root.getParent();
        }
        assertThat(root).as("the repository root").isNotNull();
        Process p = new ProcessBuilder("bash", root.resolve("scripts/lib/mcp-node.sh").toString(), "install")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String dir = new String(p.getInputStream().readAllBytes()).strip();
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).isZero();
        node = Path.of(dir);
        for (String script : List.of("modern-client.mjs", "legacy-tasks.mjs")) {
            Files.copy(root.resolve("tool-sources/mcp/src/test/node/" + script), node.resolve(script),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static boolean onPath(String program) {
        try {
            Process p = new ProcessBuilder(program, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A script's JSON output and its stderr (where a stdio server's log goes). */
    private record Run(JsonNode out, String stderr) {
    }

    private static Run run(String script, List<String> args) {
        try {
            List<String> cmd = new ArrayList<>(List.of("node", script));
            cmd.addAll(args);
            File err = File.createTempFile("mcp-two-eras", ".err");
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(node.toFile()).redirectError(err);
            pb.environment().put("TOOLS", "sample");
            Process p = null;
            byte[] out;
            String stderr;
            try {
                p = pb.start();
                out = p.getInputStream().readAllBytes();
                assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("%s ended", script).isTrue();
                stderr = Files.readString(err.toPath());
            } finally { // the capture file goes on every path, once node has ended
                if (p != null && p.isAlive()) {
                    p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
                Files.deleteIfExists(err.toPath());
            }
            assertThat(p.exitValue()).as("%s failed:\n%s", script, stderr).isZero();
            JsonNode json = new ObjectMapper().readTree(out);
            assertThat(json.has("error")).as("%s: %s\n%s", script, json, stderr).isFalse();
            return new Run(json, stderr);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void assertModern(JsonNode out) {
        assertThat(out.path("era").asText()).as("%s", out).isEqualTo("modern");
        assertThat(out.path("tools").toString()).contains("\"echo\"").contains("\"sleep\"").contains("\"ask_city\"");
        assertThat(out.path("echo").asText()).isEqualTo("hi");
        assertThat(out.path("progress").size()).as("progress notifications").isPositive();
        assertThat(out.path("progressText").asText()).isEqualTo("done 3");
        assertThat(out.path("elicited").asText()).as("an input_required answered").isEqualTo("city Paris");
        assertThat(out.path("taskKind").asText()).isEqualTo("task");
        assertThat(out.path("taskText").asText()).isEqualTo("slept 1500");
        assertThat(out.path("cancelKind").asText()).isEqualTo("task");
        assertThat(out.path("cancelOutcome").asText()).isEqualTo("cancelled");
    }

    private static void assertLegacy(JsonNode out) {
        assertThat(out.path("taskSupport").path("sleep").asText()).as("%s", out).isEqualTo("optional");
        assertThat(out.path("echo").asText()).isEqualTo("hi");
        assertThat(out.path("progress").size()).as("progress notifications").isPositive();
        assertThat(out.path("elicited").asText()).isEqualTo("city Paris");
        JsonNode task = out.path("task");
        assertThat(task.path("text").asText()).isEqualTo("slept 1500");
        assertThat(task.path("statuses").get(task.path("statuses").size() - 1).asText()).isEqualTo("completed");
        JsonNode cancelled = out.path("cancelled");
        assertThat(out.path("cancelAnswer").asText()).isEqualTo("cancelled");
        assertThat(cancelled.path("statuses").get(cancelled.path("statuses").size() - 1).asText()).isEqualTo("cancelled");
    }

    private static int cancels(String log) {
        Matcher m = CANCELLED.matcher(log);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void bothErasAtOnce_overHttp_againstOneProcess(@TempDir Path dir) throws Exception {
        Path portFile = dir.resolve("port");
        try (ToolbusProcess p = ToolbusProcess.start("mcp-two-eras", "mcp", "--http", "127.0.0.1:0", "--port-file",
                portFile.toString(), "--sample-tools")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(portFile) || !p.alive());
            assertThat(p.alive()).as(p.stderr()).isTrue();
            String url = "http://127.0.0.1:" + Files.readString(portFile).strip() + "/mcp";
            CompletableFuture<Run> modern = CompletableFuture.supplyAsync(() -> run("modern-client.mjs", List.of("http", url)));
            CompletableFuture<Run> legacy = CompletableFuture.supplyAsync(() -> run("legacy-tasks.mjs", List.of("http", url)));
            assertModern(modern.get(3, TimeUnit.MINUTES).out());
            JsonNode l = legacy.get(3, TimeUnit.MINUTES).out();
            assertThat(l.path("protocolVersion").asText()).isEqualTo("2025-11-25");
            assertLegacy(l);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(cancels(p.stderr()))
                    .as("each client's cancelled sleep saw its cancel:\n%s", p.stderr()).isEqualTo(2));
        }
    }

    @Test
    void eachEra_overStdio() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> server = List.of("stdio", java, "-jar", JAR, "mcp", "--sample-tools");
        CompletableFuture<Run> modern = CompletableFuture.supplyAsync(() -> run("modern-client.mjs", server));
        CompletableFuture<Run> legacy = CompletableFuture.supplyAsync(() -> run("legacy-tasks.mjs", server));
        Run m = modern.get(3, TimeUnit.MINUTES);
        assertModern(m.out());
        assertThat(cancels(m.stderr())).as("the cancelled sleep saw its cancel:\n%s", m.stderr()).isEqualTo(1);
        Run l = legacy.get(3, TimeUnit.MINUTES);
        assertLegacy(l.out());
        assertThat(cancels(l.stderr())).as("the cancelled sleep saw its cancel:\n%s", l.stderr()).isEqualTo(1);
    }
}
