package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How {@code serve} picks its bus and gateway, and how it stops. */
class ServeLifecycleIT {

    private static final Duration EXIT = Duration.ofSeconds(60);

    @Test
    void gatewayFlagAlone_servesWithoutAConfigOrToken() throws Exception {
        try (RunningServer s = RunningServer.start("serve-gateway-only", null, "--gateway", "127.0.0.1:0",
                "--sample-tools")) {
            ToolbusProcess p = ToolbusProcess.run("call-gateway-only", "call", "--url", s.url(), "add",
                    "{\"a\":20,\"b\":22}");

            assertThat(p.exitCode()).as(p.stderr()).isZero();
            assertThat(p.events().get(0).path("data").path("sum").asInt()).isEqualTo(42);
            assertThat(s.process.stderr()).contains("no token: loopback only", "serving on in-memory");
        }
    }

    @Test
    void sigterm_letsTheRunningTurnFinishThenReleasesThePort() throws Exception {
        RunningServer s = RunningServer.start("serve-sigterm", null, "--gateway", "127.0.0.1:0", "--sample-tools");
        try {
            Process curl = new ProcessBuilder("curl", "-s", s.url() + "/v1/turns", "-d",
                    "{\"type\":\"tool_call\",\"stream_id\":\"slow\",\"name\":\"sleep\",\"arguments\":{\"ms\":1500}}")
                    .start();
            // the sleep is running once the executor's in-flight gauge shows it
            await().atMost(Duration.ofSeconds(30)).until(() -> metric(s, "toolbus_tool_inflight") >= 1);

            s.process.terminate();

            String body = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(curl.waitFor(60, TimeUnit.SECONDS)).isTrue();
            JsonNode events = RunningServer.JSON.readTree(body);
            assertThat(events.get(0).path("content").asText()).isEqualTo("slept 1500");
            s.process.awaitExit(EXIT);
            assertThat(s.process.stderr()).contains("all turns drained; stopped");
            try (ServerSocket again = new ServerSocket(s.port)) {
                assertThat(again.getLocalPort()).isEqualTo(s.port);
            }
        } finally {
            s.close();
        }
    }

    private static double metric(RunningServer s, String name) throws IOException, InterruptedException {
        String text = RunningServer.curl("-s", s.url() + "/metrics");
        return text.lines().filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void nonLoopbackGatewayWithoutToken_isAUsageError() throws Exception {
        ToolbusProcess p = ToolbusProcess.run("serve-open-no-token", "serve", "--gateway", "0.0.0.0:0",
                "--sample-tools");

        assertThat(p.exitCode()).isEqualTo(2);
        assertThat(p.stderr()).contains("needs a token");
    }

    @Test
    void stdioBus_leavesTheConfigsGatewayOff_andFlagsOverrideTheFile(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        Files.writeString(config, "execution:\n  maxParallel: 3\n  timeout: 4000\ngateway:\n  port: 0\n");
        Path portFile = dir.resolve("port");
        ToolbusProcess p = ToolbusProcess.start("serve-stdio-config", "serve", "--config", config.toString(),
                "--bus", "stdio", "--sample-tools", "--timeout-ms", "2000", "--port-file", portFile.toString());
        try {
            p.send("{\"type\":\"tool_call\",\"stream_id\":\"s\",\"tool_call_id\":\"c1\",\"name\":\"sleep\","
                    + "\"arguments\":{\"ms\":3000}}");

            assertThat(p.closeInput().awaitExit(EXIT)).as(p.stderr()).isZero();

            List<JsonNode> events = p.events();
            assertThat(events.get(0).path("error").path("code").asText()).isEqualTo("TIMEOUT");
            assertThat(p.stderr()).contains("maxParallel=3", "timeout=2000 ms").doesNotContain("gateway listening");
            assertThat(portFile).doesNotExist();
        } finally {
            p.close();
        }
    }

    @Test
    void unreadableConfig_exits1(@TempDir Path dir) throws Exception {
        ToolbusProcess p = ToolbusProcess.run("serve-missing-config", "serve", "--config",
                dir.resolve("missing.yaml").toString());

        assertThat(p.exitCode()).isEqualTo(1);
        assertThat(p.stderr()).contains("cannot read config file");
    }
}
