package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.ToolResultEvent;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * xbot's hello-world plugin, ported to the Go module ({@code tool-sources/hosts/go/examples/hello-world}),
 * built with {@code go build} and run by toolbus as a stdio plugin through the executor: its three
 * tools (built with {@code BuildToolDef}, {@code ToolFromFunc}, {@code ToolFromJSONFunc}) are listed
 * and answer. Needs a Go toolchain ({@code scripts/test-hosts.sh} installs Debian's golang-go); skipped
 * with a message without one.
 */
class GoHelloWorldTest extends PluginFixture {

    private static final Path MODULE = Path.of("../hosts/go").toAbsolutePath().normalize();

    private static String go() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, "go"))) {
                return Path.of(dir, "go").toString();
            }
        }
        return Files.isExecutable(Path.of("/usr/lib/go/bin/go")) ? "/usr/lib/go/bin/go" : null;
    }

    @Test
    void theXbotHelloWorld_portedToTheGoModule_runsUnderToolbus(@TempDir Path gocache) throws Exception {
        String go = go();
        assumeTrue(go != null, "no Go toolchain on PATH or in /usr/lib/go/bin: run scripts/test-hosts.sh (installs golang-go)");
        Path folder = Files.createDirectories(root.resolve("go-hello"));
        Files.copy(MODULE.resolve("examples/hello-world/plugin.json"), folder.resolve("plugin.json"));
        ProcessBuilder pb = new ProcessBuilder(go, "build", "-o", folder.resolve("hello-world").toString(),
                "./examples/hello-world").directory(MODULE.toFile()).redirectErrorStream(true);
        pb.environment().put("GOFLAGS", "-mod=mod");
        pb.environment().put("GOPROXY", "off");
        if (System.getenv("HOME") == null) {
            pb.environment().putIfAbsent("GOCACHE", gocache.toString());
        }
        Process build = pb.start();
        String output = new String(build.getInputStream().readAllBytes());
        assertThat(build.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(build.exitValue()).as(output).isZero();

        StdioPluginHost host = load(root);
        assertThat(host.plugins()).extracting(StdioPluginStatus::id).containsExactly("go-hello");
        assertThat(host.tools()).extracting(s -> s.name()).containsExactly("hello", "double", "weather");
        ToolExecutor ex = executor(host);

        assertThat(call(ex, "hello", "{\"name\":\"Ann\"}").content()).isEqualTo("Hello, Ann! 👋");
        ToolResultEvent weather = call(ex, "weather", "{\"city\":\"Oslo\"}");
        assertThat(weather.error()).as(weather.content()).isNull();
        JsonNode w = Json.mapper().readTree(weather.content());
        assertThat(w.path("city").asText()).isEqualTo("Oslo");
        assertThat(w.path("temp").asInt()).isEqualTo(21);
        ToolResultEvent doubled = call(ex, "double", "{}");
        assertThat(doubled.error()).as(doubled.content()).isNull();
    }
}
