package dev.toolbus.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Scoped tokens from toolbus.yaml against a real {@code serve} (256 MiB heap): a bot token may claim
 * member at most and only its streams; a master claim is refused (or clamped, so the master-only tool
 * is denied by the policy); the operator token may do anything; {@code TOOLBUS_TOKEN} is used when the
 * config names no token.
 */
class GatewayTokensIT {

    static final HttpClient JDK = HttpClient.newHttpClient();

    static String config(String onExcess) {
        return """
                groups:
                  - name: masters
                    tools: [add]
                    requiredPermission: master
                gateway:
                  port: 0
                  token: ${OPS_TOKEN}
                  onExcess: %s
                  tokens:
                    - name: bot
                      token: ${BOT_TOKEN}
                      maxPermission: member
                      streams: ["bot:*"]
                """.formatted(onExcess);
    }

    static HttpResponse<String> add(RunningServer s, String token, String stream, String permission) throws Exception {
        String body = "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"name\":\"add\",\"arguments\":{\"a\":1,\"b\":2},"
                + "\"context\":{\"user_id\":\"u\",\"permission\":\"" + permission + "\"}}";
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(s.url() + "/v1/turns"))
                .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(20));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return JDK.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static RunningServer serve(Path dir, String name, String onExcess) throws Exception {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, config(onExcess));
        return RunningServer.start(name, null, Map.of("JAVA_TOOL_OPTIONS", "-Xmx256m", "OPS_TOKEN", "ops-1",
                "BOT_TOKEN", "bot-1"), "--config", file.toString(), "--sample-tools");
    }

    @Test
    void refuse_aBotTokenClaimingMasterIs403_andOutsideItsStreamsToo(@TempDir Path dir) throws Exception {
        try (RunningServer s = serve(dir, "tokens-refuse", "refuse")) {
            HttpResponse<String> master = add(s, "bot-1", "bot:1", "master");
            assertThat(master.statusCode()).isEqualTo(403);
            JsonNode err = RunningServer.JSON.readTree(master.body());
            assertThat(err.path("code").asText()).isEqualTo("PERMISSION_DENIED");
            assertThat(err.path("message").asText()).contains("member at most");

            assertThat(add(s, "bot-1", "ops:1", "member").statusCode()).isEqualTo(403);
            HttpResponse<String> member = add(s, "bot-1", "bot:1", "member");
            assertThat(member.statusCode()).isEqualTo(200);
            assertThat(member.body()).contains("\"is_error\":true"); // add is master-only: the policy says no

            HttpResponse<String> ops = add(s, "ops-1", "ops:1", "master");
            assertThat(ops.statusCode()).isEqualTo(200);
            assertThat(RunningServer.JSON.readTree(ops.body()).get(0).path("data").path("sum").asInt()).isEqualTo(3);
            assertThat(add(s, null, "bot:1", "member").statusCode()).isEqualTo(401);
            assertThat(s.process.stderr()).contains("gateway accepts 2 tokens from the config");
        }
    }

    @Test
    void clamp_aBotTokenClaimingMasterRunsAsMember(@TempDir Path dir) throws Exception {
        try (RunningServer s = serve(dir, "tokens-clamp", "clamp")) {
            HttpResponse<String> r = add(s, "bot-1", "bot:2", "master");
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode result = RunningServer.JSON.readTree(r.body()).get(0);
            assertThat(result.path("is_error").asBoolean()).as(r.body()).isTrue();
            assertThat(result.path("error").path("code").asText()).isEqualTo("PERMISSION_DENIED");
            assertThat(add(s, "ops-1", "bot:2", "master").body()).contains("\"sum\":3");
        }
    }

    @Test
    void dashDashTokenReplacesGatewayToken_scopedTokensStay(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("flag.yaml");
        Files.writeString(file, config("refuse"));
        try (RunningServer s = RunningServer.start("tokens-flag", null, Map.of("OPS_TOKEN", "ops-1", "BOT_TOKEN", "bot-1"),
                "--config", file.toString(), "--sample-tools", "--token", "flag-1")) {
            assertThat(add(s, "ops-1", "ops:1", "master").statusCode()).isEqualTo(401);
            assertThat(add(s, "flag-1", "ops:1", "master").body()).contains("\"sum\":3");
            assertThat(add(s, "bot-1", "bot:1", "member").statusCode()).isEqualTo(200);
            assertThat(s.process.stderr()).contains("2 tokens from --token and gateway.tokens");
        }
    }

    @Test
    void serveGatewayUsesToolbusTokenWhenNothingElseNamesOne() throws Exception {
        try (RunningServer s = RunningServer.start("tokens-env", "env-token", "--gateway", "127.0.0.1:0", "--sample-tools")) {
            assertThat(add(s, null, "x", "member").statusCode()).isEqualTo(401);
            assertThat(add(s, "env-token", "x", "master").statusCode()).isEqualTo(200);
            assertThat(s.process.stderr()).contains("bearer token required", "1 token from TOOLBUS_TOKEN");
        }
    }
}
