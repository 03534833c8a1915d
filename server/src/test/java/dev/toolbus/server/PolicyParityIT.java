package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11 item 5 end to end: {@code toolbus serve} with docs/examples/policy-parity (its
 * {@code toolbus.yaml}, the sample tools as core tools and four real Python stdio plugins), asserting
 * the {@code list_tools} answers of docs/policy.md's parity examples, the registry's diagnostics on
 * stderr, and that what is not listed does not run.
 */
class PolicyParityIT {

    static final Path EXAMPLE = Path.of(System.getProperty("toolbus.root", "..")).toAbsolutePath().normalize()
            .resolve("docs/examples/policy-parity");
    private static final String TOKEN = "parity-secret";
    private static final List<String> SAMPLES = List.of("add", "ask_city", "count", "draw", "echo", "fail", "greet", "progress",
            "sleep", "wipe");

    @TempDir
    static Path dir;
    private static RunningServer server;

    @BeforeAll
    static void start() throws Exception {
        copy(EXAMPLE, dir.resolve("policy-parity"));
        Path root = dir.resolve("policy-parity");
        server = RunningServer.start("policy-parity", TOKEN, "--config", root.resolve("toolbus.yaml").toString(),
                "--sample-tools", "--plugins", root.resolve("plugins").toString(), "--gateway", "127.0.0.1:0");
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path t = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(f, t);
                }
            }
        }
    }

    private static List<String> tools(String query) throws Exception {
        return server.toolNames("user_id=u1&" + query);
    }

    private static List<String> plus(List<String> base, String... more) {
        return Stream.concat(base.stream(), Stream.of(more)).toList();
    }

    private static JsonNode call(String tool, String agent) throws Exception {
        return call(tool, "{}", agent);
    }

    private static JsonNode call(String tool, String args, String agent) throws Exception {
        String body = RunningServer.curl("-s", server.url() + "/v1/turns", "-H", "Authorization: Bearer " + TOKEN, "-d",
                "{\"type\":\"tool_call\",\"stream_id\":\"parity\",\"name\":\"" + tool + "\",\"arguments\":" + args + ","
                        + "\"context\":{\"user_id\":\"u1\",\"agent_id\":\"" + agent + "\"}}");
        return RunningServer.JSON.readTree(body).get(0);
    }

    @Test
    void rule1_aPluginToolDifferingOnlyInCaseFromACoreTool_isSkippedWithADiagnostic() throws Exception {
        assertThat(tools("")).contains("echo", "scrape").doesNotContain("Echo");
        assertThat(server.process.stderr()).contains("tool 'Echo' from stdio plugin 'scraper' is skipped: its name"
                + " equals 'echo' from plugin ignoring case (first registered wins)");
        assertThat(call("echo", "{\"text\":\"the core one\"}", "").path("content").asText()).isEqualTo("the core one");
        assertThat(call("Echo", "").path("error").path("code").asText()).isEqualTo("UNKNOWN_TOOL");
        assertThat(call("scrape", "").path("content").asText()).isEqualTo("scraper:scrape ran");
    }

    @Test
    void rule2_aPluginWhoseIdIsACoreToolName_isBlockedWhole() throws Exception {
        assertThat(tools("")).contains("add").doesNotContain("add_more");
        assertThat(server.process.stderr()).contains("tool 'add_more' from stdio plugin 'add' is skipped: the plugin"
                + " id 'add' clashes with the core tool 'add' (ids are compared ignoring case), so every tool of that"
                + " plugin is blocked");
        assertThat(call("add_more", "").path("error").path("code").asText()).isEqualTo("UNKNOWN_TOOL");
    }

    @Test
    void rule3_byProviderTakesProfileAlsoAllowAndDeny() throws Exception {
        assertThat(tools("provider=openai&model=gpt-5.2")).containsExactly("echo", "recall", "remember");
        assertThat(tools("provider=anthropic")).containsExactlyElementsOf(
                plus(SAMPLES, "flow_run", "recall", "remember", "scrape"));
    }

    /**
     * Issue 21 item 6: a provider profile takes the provider entry's {@code alsoAllow} only, as OpenClaw
     * merges it; {@code tools.alsoAllow: [recall]} does not reach it (before: add echo recall).
     */
    @Test
    void rule3_aProviderProfileTakesOnlyItsEntrysAlsoAllow() throws Exception {
        assertThat(tools("provider=google")).containsExactly("add", "echo");
        assertThat(call("recall", "{}", "").path("content").asText()).isEqualTo("memory-lancedb:recall ran");
    }

    @Test
    void rule4_denyGlobMatchesAPluginId() throws Exception {
        assertThat(tools("agent_id=nomemory")).containsExactlyElementsOf(plus(SAMPLES, "flow_run", "scrape"));
        assertThat(call("recall", "nomemory").path("error").path("code").asText()).isEqualTo("NOT_AVAILABLE");
        assertThat(call("recall", "").path("content").asText()).isEqualTo("memory-lancedb:recall ran");
    }

    @Test
    void rule5_anEmptyAlsoAllowReplacesTheInheritedOne() throws Exception {
        assertThat(tools("agent_id=inherits")).containsExactly("add", "echo", "recall");
        assertThat(tools("agent_id=empties")).containsExactly("add", "echo");
    }

    @Test
    void rule6_optionalToolsOnlyByAnExplicitName() throws Exception {
        List<String> all = plus(SAMPLES, "flow_run", "recall", "remember", "scrape");
        assertThat(tools("")).containsExactlyElementsOf(all);
        assertThat(tools("agent_id=star")).containsExactlyElementsOf(all);
        assertThat(tools("agent_id=named")).containsExactlyElementsOf(
                plus(SAMPLES, "flow_run", "workflow_tool", "recall", "remember", "scrape"));
        assertThat(call("workflow_tool", "star").path("error").path("code").asText()).isEqualTo("NOT_AVAILABLE");
        assertThat(call("workflow_tool", "named").path("content").asText()).isEqualTo("flow:workflow_tool ran");
    }

    @Test
    void rule7_anAllowListNamingOnlyPluginToolsKeepsTheCoreTools() throws Exception {
        assertThat(tools("agent_id=pluginsonly"))
                .containsExactlyElementsOf(plus(SAMPLES, "flow_run", "recall", "remember", "scrape"));
        assertThat(call("echo", "{\"text\":\"still here\"}", "pluginsonly").path("content").asText())
                .isEqualTo("still here");
    }

    @Test
    void docsPolicyMd_showsTheseAnswers() throws Exception {
        String doc = Files.readString(EXAMPLE.resolve("../../policy.md").normalize());
        for (String query : List.of("", "provider=openai&model=gpt-5.2", "provider=google", "agent_id=nomemory", "agent_id=inherits",
                "agent_id=empties", "agent_id=named", "agent_id=star", "agent_id=pluginsonly")) {
            assertThat(doc).as(query).contains("\n" + String.join(" ", tools(query)) + "\n");
        }
        List<String> warnings = Stream.of(server.process.stderr().split("\n"))
                .filter(l -> l.contains("WARN ToolRegistry - ")).map(l -> l.substring(l.indexOf("WARN ToolRegistry - ")))
                .toList();
        assertThat(warnings).hasSize(2);
        warnings.forEach(w -> assertThat(doc).contains(w));
    }
}
