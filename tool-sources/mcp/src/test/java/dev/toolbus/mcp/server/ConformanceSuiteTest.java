package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.mcp.fixtures.ConformanceTools;
import dev.toolbus.mcp.fixtures.NodeTools;
import dev.toolbus.tool.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Runs the official MCP conformance suite ({@code @modelcontextprotocol/conformance}, installed with
 * the Node it needs by scripts/lib/mcp-conformance.sh) against toolbus's MCP server over streamable
 * HTTP, serving the sample tools plus {@link ConformanceTools}. Every scenario toolbus implements
 * must pass all its checks; the others (resources, prompts, completion) must still run.
 */
class ConformanceSuiteTest {

    /** The scenarios toolbus's MCP server implements; each must pass every check. */
    static final List<String> REQUIRED = List.of("server-initialize", "logging-set-level", "ping", "tools-list",
            "tools-call-simple-text", "tools-call-image", "tools-call-audio", "tools-call-embedded-resource",
            "tools-call-mixed-content", "tools-call-error", "server-sse-multiple-streams", "tools-call-with-progress",
            "tools-call-with-logging", "tools-call-sampling", "tools-call-elicitation", "elicitation-sep1034-defaults", "elicitation-sep1330-enums",
            "dns-rebinding-protection");

    private static final Pattern SUMMARY = Pattern.compile("^[✓✗] (\\S+): (\\d+) passed, (\\d+) failed$");

    @Test
    void toolScenariosPass() throws Exception {
        assumeTrue(NodeTools.onPath("npm"), "npm not found on PATH: the conformance suite is skipped");
        List<ToolSpec> tools = new ArrayList<>(McpDemoTools.all());
        McpSampling sampling = McpSampling.create();
        tools.addAll(ConformanceTools.all(sampling));
        ToolExecutor executor = ToolExecutor.builder().tools(tools).build();
        McpHttpServer http = McpToolServer.builder(executor).sampling(sampling).build().startHttp("127.0.0.1", 0)
                .block();
        Path out = Files.createTempDirectory("mcp-conformance");
        try {
            Path script = NodeTools.repoRoot().resolve("scripts/lib/mcp-conformance.sh");
            Process p = new ProcessBuilder("bash", script.toString(), "run", http.url(), out.toString())
                    .redirectErrorStream(true).start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(10, TimeUnit.MINUTES)).isTrue();
            Map<String, int[]> results = summary(log);
            int at = log.lastIndexOf("=== SUMMARY ===");
            System.out.println(at >= 0 ? log.substring(at) : log); // the suite's own summary, for docs/mcp.md
            assertThat(results).as("the suite ran and printed its summary:\n%s", log).containsKeys(
                    REQUIRED.toArray(String[]::new));
            for (String scenario : REQUIRED) {
                int[] r = results.get(scenario);
                assertThat(r[1]).as("failed checks of %s:\n%s", scenario, log).isZero();
                assertThat(r[0]).as("passed checks of %s", scenario).isPositive();
            }
        } finally {
            http.close();
            executor.close();
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
