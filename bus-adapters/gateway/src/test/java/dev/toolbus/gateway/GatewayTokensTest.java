package dev.toolbus.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.auth.AccessTokens;
import dev.toolbus.auth.TokenScope;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.policy.PermissionLevel;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** Several tokens, each with its scope: claims beyond it are refused (403 / error event) or clamped. */
class GatewayTokensTest {

    static final String OPS = "ops-token";
    static final String BOT = "bot-token";
    static final String TEAM_A = "team-a-token";
    static final String UNICODE = "tökén-秘密-🔑";

    static ToolExecutor executor;
    static GatewayServer refuse;
    static GatewayServer clamp;

    /** whoami: the permission, agent and channel the tool saw. */
    static ToolSpec whoami() {
        return new ToolSpec(ToolDefinition.builder("whoami").description("Who the tool runs for").build(),
                (a, c) -> Mono.just(ToolResult.text(c.who().permission() + "|" + c.who().agentId() + "|" + c.who().channel())));
    }

    static AccessTokens tokens(AccessTokens.OnExcess rule) {
        return AccessTokens.builder()
                .token(OPS, TokenScope.FULL)
                .token(BOT, TokenScope.builder("bot").maxPermission(PermissionLevel.ADMIN).build())
                .token(TEAM_A, TokenScope.builder("team-a").maxPermission(PermissionLevel.MEMBER)
                        .streams(List.of("team-a:*")).agents(List.of("helper-*")).channels(List.of("qq", "discord")).build())
                .token(UNICODE, TokenScope.FULL)
                .onExcess(rule)
                .build();
    }

    @BeforeAll
    static void start() {
        List<ToolSpec> tools = new ArrayList<>(TestGateway.tools());
        tools.add(whoami());
        executor = ToolExecutor.builder().tools(tools)
                .settings(dev.toolbus.executor.settings.ExecutionSettings.builder().cacheResults(false).build()).build();
        refuse = Gateway.builder().executor(executor).tokens(tokens(AccessTokens.OnExcess.REFUSE)).build().start();
        clamp = Gateway.builder().executor(executor).tokens(tokens(AccessTokens.OnExcess.CLAMP)).build().start();
    }

    @AfterAll
    static void stop() {
        refuse.close();
        clamp.close();
        executor.close();
    }

    static String whoamiTurn(String stream, String context) {
        return "{\"type\":\"tool_call\",\"stream_id\":\"" + stream + "\",\"name\":\"whoami\",\"context\":{" + context + "}}";
    }

    @Test
    void aPermissionAboveTheTokensIsRefusedWith403() {
        Http.Response r = new Http(refuse.baseUrl()).post("/v1/turns", BOT, whoamiTurn("s1", "\"permission\":\"master\""));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.json().path("type").asText()).isEqualTo("error");
        assertThat(r.json().path("code").asText()).isEqualTo("PERMISSION_DENIED");
        assertThat(r.json().path("stream_id").asText()).isEqualTo("s1");
        assertThat(r.json().path("message").asText()).contains("token 'bot'").contains("admin at most");
    }

    @Test
    void aPermissionWithinTheTokensRuns_andTheFullTokenMayClaimAnything() {
        Http http = new Http(refuse.baseUrl());
        Http.Response admin = http.post("/v1/turns", BOT, whoamiTurn("s1", "\"permission\":\"admin\""));
        assertThat(admin.status()).isEqualTo(200);
        assertThat(admin.json().get(0).path("content").asText()).startsWith("admin|");
        Http.Response master = http.post("/v1/turns", OPS, whoamiTurn("s1", "\"permission\":\"master\""));
        assertThat(master.json().get(0).path("content").asText()).startsWith("master|");
    }

    @Test
    void clampLowersThePermissionAndRuns() {
        Http.Response r = new Http(clamp.baseUrl()).post("/v1/turns", BOT, whoamiTurn("s1", "\"permission\":\"master\""));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get(0).path("content").asText()).startsWith("admin|");
    }

    @Test
    void streamsAgentsAndChannelsOutsideTheScopeAreRefused_evenWhenClamping() {
        Http http = new Http(clamp.baseUrl());
        String ok = "\"agent_id\":\"HELPER-1\",\"channel\":\"qq\"";
        Http.Response in = http.post("/v1/turns", TEAM_A, whoamiTurn("team-a:room1", ok + ",\"permission\":\"owner\""));
        assertThat(in.status()).isEqualTo(200);
        assertThat(in.json().get(0).path("content").asText()).isEqualTo("member|HELPER-1|qq");

        Http.Response otherStream = http.post("/v1/turns", TEAM_A, whoamiTurn("team-b:room1", ok));
        assertThat(otherStream.status()).isEqualTo(403);
        assertThat(otherStream.json().path("message").asText()).contains("may not use stream 'team-b:room1'");
        Http.Response otherAgent = http.post("/v1/turns", TEAM_A, whoamiTurn("team-a:room1",
                "\"agent_id\":\"admin-bot\",\"channel\":\"qq\""));
        assertThat(otherAgent.status()).isEqualTo(403);
        Http.Response noAgent = http.post("/v1/turns", TEAM_A, whoamiTurn("team-a:room1", "\"channel\":\"qq\""));
        assertThat(noAgent.status()).isEqualTo(403);
        assertThat(noAgent.json().path("message").asText()).contains("context.agent_id");
        Http.Response otherChannel = http.post("/v1/turns", TEAM_A, whoamiTurn("team-a:room1",
                "\"agent_id\":\"helper-1\",\"channel\":\"web\""));
        assertThat(otherChannel.status()).isEqualTo(403);
    }

    @Test
    void listingAndTheCallLogFollowTheScope() {
        Http http = new Http(refuse.baseUrl());
        assertThat(http.get("/v1/tools?stream_id=team-b:x&agent_id=helper-1&channel=qq", TEAM_A).status()).isEqualTo(403);
        assertThat(http.get("/v1/tools?stream_id=team-a:x&agent_id=helper-1&channel=qq", TEAM_A).status()).isEqualTo(200);
        assertThat(http.get("/v1/tools?stream_id=team-a:x&agent_id=helper-1&channel=qq&permission=master", TEAM_A)
                .status()).isEqualTo(403);
        http.post("/v1/turns", OPS, whoamiTurn("secret-stream", ""));
        http.post("/v1/turns", TEAM_A, whoamiTurn("team-a:log", "\"agent_id\":\"helper-1\",\"channel\":\"qq\""));
        JsonNode all = http.get("/v1/calls", OPS).json();
        JsonNode mine = http.get("/v1/calls", TEAM_A).json();
        List<String> allStreams = new ArrayList<>();
        all.path("calls").forEach(c -> allStreams.add(c.path("stream_id").asText()));
        List<String> myStreams = new ArrayList<>();
        mine.path("calls").forEach(c -> myStreams.add(c.path("stream_id").asText()));
        assertThat(allStreams).contains("secret-stream", "team-a:log");
        assertThat(myStreams).contains("team-a:log").allMatch(s -> s.startsWith("team-a:"));
    }

    @Test
    void aScopedTokenDoesNotSeeAnotherPrincipalsCallsOnAStreamOfTheSameName() {
        Http http = new Http(refuse.baseUrl());
        // the full token's turn on a stream the team token may also use: another principal's conversation
        http.post("/v1/turns", OPS, whoamiTurn("team-a:shared-name", ""));
        http.post("/v1/turns", TEAM_A, whoamiTurn("team-a:shared-name", "\"agent_id\":\"helper-1\",\"channel\":\"qq\""));
        List<String> ofTeam = new ArrayList<>();
        http.get("/v1/calls?stream=team-a:shared-name", TEAM_A).json().path("calls")
                .forEach(c -> ofTeam.add(c.path("principal").asText()));
        List<String> ofAll = new ArrayList<>();
        http.get("/v1/calls?stream=team-a:shared-name", OPS).json().path("calls")
                .forEach(c -> ofAll.add(c.path("principal").asText()));
        assertThat(ofTeam).containsExactly("token:team-a");
        assertThat(ofAll).containsExactlyInAnyOrder("token:team-a", "token:default");
    }

    @Test
    void overWebSocketARefusalIsAnErrorEventAndTheConnectionStays() throws Exception {
        try (RawWebSocket ws = new RawWebSocket(refuse.port(), BOT, 0)) {
            assertThat(ws.upgraded()).isTrue();
            ws.sendText(whoamiTurn("w1", "\"permission\":\"owner\""));
            JsonNode err = dev.toolbus.protocol.Json.mapper().readTree(ws.readFrame().text());
            assertThat(err.path("type").asText()).isEqualTo("error");
            assertThat(err.path("code").asText()).isEqualTo("PERMISSION_DENIED");
            ws.sendText(whoamiTurn("w1", "\"permission\":\"admin\""));
            assertThat(ws.readFrame().text()).contains("admin|");
        }
    }

    @Test
    void aNonAsciiTokenMatches() throws Exception {
        // the header carries the token's UTF-8 bytes, as curl and browsers send them
        byte[] head = ("GET /v1/calls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ").getBytes(StandardCharsets.US_ASCII);
        byte[] token = UNICODE.getBytes(StandardCharsets.UTF_8);
        byte[] tail = "\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + token.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(token, 0, all, head.length, token.length);
        System.arraycopy(tail, 0, all, head.length + token.length, tail.length);
        try (RawHttp c = new RawHttp(refuse.port())) {
            assertThat(c.send(all).read().status()).isEqualTo(200);
        }
        try (RawHttp c = new RawHttp(refuse.port())) {
            byte[] wrong = all.clone();
            wrong[head.length + 2] ^= 1;
            assertThat(c.send(wrong).read().status()).isEqualTo(401);
        }
    }

    @Test
    void noTokenAtAllIs401() {
        Http.Response r = new Http(refuse.baseUrl()).post("/v1/turns", null, whoamiTurn("s1", ""));
        assertThat(r.status()).isEqualTo(401);
    }
}
