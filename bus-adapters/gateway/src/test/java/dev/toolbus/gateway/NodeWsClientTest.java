package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Node.js example client (docs/examples/node-ws, the {@code ws} package from npm) against the gateway. */
class NodeWsClientTest {

    static TestGateway gw;
    static Path clientDir;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(Processes.onPath("node") && Processes.onPath("npm"), "node or npm is not installed: skipping");
        clientDir = Processes.repoRoot().resolve("docs/examples/node-ws");
        if (!Files.isDirectory(clientDir.resolve("node_modules/ws"))) {
            Processes.Result install = Processes.run(clientDir, 300,
                    List.of("npm", "install", "--no-audit", "--no-fund"));
            assertThat(install.exit()).as("npm install: %s", install.err()).isZero();
        }
        gw = TestGateway.start();
    }

    @AfterAll
    static void stop() {
        if (gw != null) {
            gw.close();
        }
    }

    static Processes.Result client(String token) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("node", "client.mjs", "--url", "ws://127.0.0.1:" + gw.port() + "/v1/ws",
                "--tool", "echo", "--args", "{\"text\":\"hello from node\"}", "--stream", "node-test"));
        if (token != null) {
            cmd.addAll(List.of("--token", token));
        }
        return Processes.run(clientDir, 60, cmd);
    }

    @Test
    void nodeClientRunsATurnAndListsTools() throws Exception {
        Processes.Result r = client(TOKEN);
        assertThat(r.exit()).as("stderr: %s", r.err()).isZero();
        List<JsonNode> events = new ArrayList<>();
        for (String line : r.out().split("\n")) {
            if (!line.isBlank()) {
                events.add(Json.mapper().readTree(line));
            }
        }
        List<String> types = events.stream().map(e -> e.get("type").asText()).toList();
        assertThat(types).containsExactly("tools", "tool_result", "tool_result", "turn_completed");
        assertThat(events.get(0).get("request_id").asText()).isEqualTo("tools-1");
        assertThat(events.get(0).get("tools").findValuesAsText("name")).contains("echo");
        assertThat(events.get(1).get("tool_call_id").asText()).isEqualTo("n1");
        assertThat(events.get(1).get("content").asText()).isEqualTo("hello from node");
        assertThat(events.get(2).get("tool_call_id").asText()).isEqualTo("n2");
        assertThat(events.get(2).get("content").asText()).isEqualTo("hello from node");
        assertThat(events.get(3).get("stream_id").asText()).isEqualTo("node-test");
        assertThat(events.get(3).get("error_count").asInt()).isZero();
        // the call log saw the Node client's user
        assertThat(gw.executor.callLog().recent(c -> c.userId().equals("node-user"), 10)).hasSize(2);
    }

    @Test
    void nodeClientWithoutTokenIsRefused() throws Exception {
        Processes.Result r = client(null);
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("HTTP 401");
    }
}
