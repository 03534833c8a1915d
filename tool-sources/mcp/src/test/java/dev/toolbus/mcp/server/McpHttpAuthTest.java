package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.policy.PermissionLevel;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The streamable HTTP endpoint with tokens: 401 without one, 403 outside the scope, clamping, and the bind rule. */
class McpHttpAuthTest {

    static final HttpClient client = HttpClient.newHttpClient();
    static final CallContext OWNER = CallContext.builder().userId("u1").platform("mcp").permission("owner").build();
    static ToolExecutor executor;

    static ToolSpec whoami() {
        return new ToolSpec(ToolDefinition.builder("whoami").description("The caller's permission").build(),
                (a, c) -> Mono.just(ToolResult.text("permission=" + c.who().permission())));
    }

    @BeforeAll
    static void start() {
        executor = ToolExecutor.builder().tools(List.of(whoami()))
                .settings(ExecutionSettings.builder().cacheResults(false).build()).build();
    }

    @AfterAll
    static void stop() {
        executor.close();
    }

    static McpHttpServer serve(AccessTokens tokens) {
        return McpToolServer.builder(executor).context(OWNER).streamId("mcp-auth").tokens(tokens).build()
                .startHttp("127.0.0.1", 0).block(Duration.ofSeconds(10));
    }

    static HttpResponse<String> post(McpHttpServer http, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(http.url()))
                .header("Content-Type", "application/json").header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"whoami\",\"arguments\":{}}}";

    @Test
    void withATokenEveryRequestNeedsIt() throws Exception {
        try (McpHttpServer http = serve(AccessTokens.single("mcp-secret"))) {
            HttpResponse<String> none = post(http, null, CALL);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).isPresent();
            assertThat(none.headers().firstValue("Connection")).hasValue("close");
            assertThat(post(http, "wrong", CALL).statusCode()).isEqualTo(401);
            HttpResponse<String> ok = post(http, "mcp-secret", CALL);
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.body()).contains("permission=owner");
        }
    }

    @Test
    void aTokenWhoseScopeDoesNotAdmitTheServersStreamOrContextIs403_orClamped() throws Exception {
        AccessTokens refuse = AccessTokens.builder()
                .token("other-streams", TokenScope.builder("other").streams(List.of("team-b:*")).build())
                .token("low", TokenScope.builder("low").maxPermission(PermissionLevel.MEMBER).build())
                .build();
        try (McpHttpServer http = serve(refuse)) {
            HttpResponse<String> r = post(http, "other-streams", CALL);
            assertThat(r.statusCode()).isEqualTo(403);
            assertThat(r.body()).contains("may not use stream 'mcp-auth'");
            assertThat(post(http, "low", CALL).statusCode()).isEqualTo(403);
        }
        AccessTokens clamp = AccessTokens.builder()
                .token("low", TokenScope.builder("low").maxPermission(PermissionLevel.ADMIN).build())
                .onExcess(AccessTokens.OnExcess.CLAMP).build();
        try (McpHttpServer http = serve(clamp)) {
            HttpResponse<String> r = post(http, "low", CALL);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("permission=admin");
        }
    }

    @Test
    void aNonLoopbackBindWithoutATokenIsRefused() {
        McpToolServer server = McpToolServer.builder(executor).build();
        assertThatThrownBy(() -> server.startHttp("0.0.0.0", 0).block(Duration.ofSeconds(10)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("token is required");
        assertThatThrownBy(() -> server.startHttp("::", 0).block(Duration.ofSeconds(10)))
                .isInstanceOf(IllegalStateException.class);
    }
}
