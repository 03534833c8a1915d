package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Editing the config file under a running {@code serve} changes the policy of the next call. */
class HotReloadIT {

    private static final String TOKEN = "reload-secret";

    @Test
    void denyingATool_hidesItFromListingAndRefusesTheNextCall(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("toolbus.yaml");
        String original = Files.readString(ServeWithConfigIT.SAMPLE, StandardCharsets.UTF_8);
        Files.writeString(config, original);
        try (RunningServer s = RunningServer.start("serve-reload", TOKEN, "--config", config.toString(),
                "--sample-tools", "--gateway", "127.0.0.1:0")) {
            assertThat(s.toolNames("user_id=u1")).contains("echo");
            assertThat(call(s, "before").path("is_error").asBoolean()).isFalse();

            String denied = original.replace("deny: [web_fetch]", "deny: [web_fetch, echo]")
                    .replace("maxParallel: 5", "maxParallel: 7");
            assertThat(denied).isNotEqualTo(original);
            Files.writeString(config, denied);

            await().atMost(Duration.ofSeconds(30)).until(() -> !s.toolNames("user_id=u1").contains("echo"));
            JsonNode refused = call(s, "after");
            assertThat(refused.path("is_error").asBoolean()).isTrue();
            assertThat(refused.path("error").path("code").asText()).isEqualTo("NOT_AVAILABLE");
            ToolbusProcess listing = ToolbusProcess.run("reload-tools", "tools", "--url", s.url(), "--token", TOKEN,
                    "--names");
            assertThat(listing.lines()).contains("add").doesNotContain("echo");
            assertThat(s.process.stderr()).contains("take effect after a restart: [execution]");

            // a broken edit keeps the last good config
            Files.writeString(config, "tools:\n  deny: [web_fetch\n");
            await().atMost(Duration.ofSeconds(30)).until(() -> s.process.stderr().contains("not reloaded"));
            assertThat(call(s, "broken").path("error").path("code").asText()).isEqualTo("NOT_AVAILABLE");
            assertThat(s.toolNames("user_id=u1")).contains("add").doesNotContain("echo");
        }
    }

    private static JsonNode call(RunningServer s, String turn) throws Exception {
        ToolbusProcess p = ToolbusProcess.run("reload-call-" + turn, "call", "--url", s.url(), "--token", TOKEN,
                "--turn", turn, "echo", "{\"text\":\"hi\"}");
        assertThat(p.exitCode()).as(p.stderr()).isZero();
        return p.events().get(0);
    }
}
