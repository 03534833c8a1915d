package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.ConformanceTools;
import dev.toolbus.mcp.fixtures.ModernConformanceTools;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.tool.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the official MCP conformance suite ({@code @modelcontextprotocol/conformance}, the version
 * scripts/lib/mcp-conformance.sh pins, installed with the Node it needs) against toolbus's MCP server
 * over streamable HTTP, serving the sample tools plus {@link ConformanceTools} and
 * {@link ModernConformanceTools}: once with the 2025-11-25 requirement set (the stateful
 * {@code initialize} wire) and once with the 2026-07-28 one (stateless requests with {@code _meta}),
 * each against a fresh server, the two at once. Every scenario toolbus implements must pass all its
 * checks; the others (resources, prompts, completion) must still run.
 */
class ConformanceSuiteTest {

    /** The 2025-11-25 scenarios toolbus's MCP server implements; each must pass every check. */
    static final List<String> REQUIRED_2025 = List.of("server-initialize", "logging-set-level", "ping", "tools-list",
            "tools-call-simple-text", "tools-call-image", "tools-call-audio", "tools-call-embedded-resource",
            "tools-call-mixed-content", "tools-call-error", "server-sse-multiple-streams", "tools-call-with-progress",
            "tools-call-with-logging", "tools-call-sampling", "tools-call-elicitation", "elicitation-sep1034-defaults",
            "elicitation-sep1330-enums", "dns-rebinding-protection", "server-session-lifecycle", "json-schema-2020-12");

    /** The 2026-07-28 scenarios toolbus's MCP server implements (the Tasks extension and the pending ones included). */
    static final List<String> REQUIRED_2026 = List.of("server-stateless", "tools-list", "tools-call-simple-text",
            "tools-call-image", "tools-call-audio", "tools-call-embedded-resource", "tools-call-mixed-content",
            "tools-call-error", "tools-call-with-progress", "server-sse-multiple-streams", "resources-list",
            "sep-2164-resource-not-found", "prompts-list", "dns-rebinding-protection", "caching",
            "input-required-result-basic-elicitation", "input-required-result-basic-sampling",
            "input-required-result-basic-list-roots", "input-required-result-request-state",
            "input-required-result-multiple-input-requests", "input-required-result-multi-round",
            "input-required-result-missing-input-response", "input-required-result-result-type",
            "input-required-result-unsupported-methods", "input-required-result-tampered-state",
            "input-required-result-capability-check", "input-required-result-ignore-extra-params",
            "input-required-result-validate-input", "tasks-lifecycle", "tasks-capability-negotiation",
            "tasks-wire-fields", "tasks-request-state-removal", "tasks-mrtr-input", "tasks-request-headers",
            "tasks-dispatch-and-envelope", "tasks-required-task-error", "tasks-mrtr-composition", "json-schema-2020-12",
            "http-header-validation", "http-custom-header-server-validation");

    /** Scenarios the suite runs without checks today (its harness skips them): they must only not fail. */
    static final List<String> NO_CHECKS = List.of("server-sse-polling", "tasks-status-notifications");

    private static final Pattern SUMMARY = Pattern.compile("^[✓✗] (\\S+): (\\d+) passed, (\\d+) failed$");

    @Test
    void bothRevisionsScenariosPass(@TempDir Path tmp) throws Exception {
        assumeTrue(NodeTools.onPath("npm"), "npm not found on PATH: the conformance suite is skipped");
        CompletableFuture<String> legacy = CompletableFuture.supplyAsync(() -> run("2025-11-25", tmp));
        CompletableFuture<String> modern = CompletableFuture.supplyAsync(() -> run("2026-07-28", tmp));
        check("2025-11-25", legacy.get(10, TimeUnit.MINUTES), REQUIRED_2025);
        check("2026-07-28", modern.get(10, TimeUnit.MINUTES), REQUIRED_2026);
    }

    private static void check(String revision, String log, List<String> required) {
        Map<String, int[]> results = summary(log);
        int at = log.lastIndexOf("=== SUMMARY ===");
        // the suite's own summary, for docs/mcp.md
        System.out.println("conformance --requirements " + revision + ":\n" + (at >= 0 ? log.substring(at) : log));
        assertThat(results).as("the %s suite ran and printed its summary:\n%s", revision, log)
                .containsKeys(required.toArray(String[]::new));
        for (String scenario : required) {
            int[] r = results.get(scenario);
            assertThat(r[1]).as("%s: failed checks of %s:\n%s", revision, scenario, log).isZero();
            assertThat(r[0]).as("%s: passed checks of %s", revision, scenario).isPositive();
        }
        for (String scenario : NO_CHECKS) {
            if (results.containsKey(scenario)) {
                assertThat(results.get(scenario)[1]).as("%s: failed checks of %s:\n%s", revision, scenario, log).isZero();
            }
        }
    }

    /** One suite run against a server of its own, its results in a folder under {@code tmp}; the suite's output. */
    private static String run(String revision, Path tmp) {
        List<ToolSpec> tools = new ArrayList<>(McpDemoTools.all());
        McpSampling sampling = McpSampling.create();
        tools.addAll(ConformanceTools.all(sampling));
        java.util.concurrent.atomic.AtomicReference<dev.toolbus.registry.ToolRegistry> registry =
                new java.util.concurrent.atomic.AtomicReference<>();
        tools.addAll(ModernConformanceTools.all(sampling, registry));
        // questions the suite abandons hold a slot until they expire (ModernConformanceTools.ASK)
        try (ToolExecutor executor = ToolExecutor.builder().tools(tools)
                .settings(ExecutionSettings.builder().maxParallel(20).build()).build()) {
            registry.set(executor.registry());
            try (McpHttpServer http = McpToolServer.builder(executor).sampling(sampling)
                    .taskAfter(Duration.ofMillis(100)).taskPollInterval(Duration.ofMillis(200)).build()
                    .startHttp("127.0.0.1", 0).block(Duration.ofSeconds(10))) {
                Path out = Files.createDirectory(tmp.resolve("mcp-conformance-" + revision));
                Path script = NodeTools.repoRoot().resolve("scripts/lib/mcp-conformance.sh");
                Process p = new ProcessBuilder("bash", script.toString(), "run", http.url(), out.toString(),
                        "--requirements", revision).redirectErrorStream(true).start();
                try {
                    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
                    return log;
                } finally { // the suite writes into tmp: it has ended before tmp is removed
                    if (p.isAlive()) {
                        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                    }
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("the " + revision + " conformance run failed: " + e, e);
        }
    }

    /** scenario → {passed, failed}, from the suite's summary lines. */
    static Map<String, int[]> summary(String log) {
        Map<String, int[]> m = new LinkedHashMap<>();
        for (String line : log.split("\n")) {
            Matcher x = SUMMARY.matcher(line.strip());
            if (x.matches()) {
                m.put(x.group(1), new int[] {Integer.parseInt(x.group(2)), Integer.parseInt(x.group(3))});
            }
        }
        return m;
    }
}
