package dev.toolbus.gateway;

import static dev.toolbus.gateway.TestGateway.TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.ToolExecutor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The HTTP endpoints against a running gateway, with a reactor-netty client. */
class GatewayHttpTest {

    static TestGateway gw;
    static Http http;

    @BeforeAll
    static void start() {
        gw = TestGateway.start();
        http = new Http(gw.baseUrl());
    }

    @AfterAll
    static void stop() {
        gw.close();
    }

    static List<String> types(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(e -> out.add(e.get("type").asText()));
        return out;
    }

    @Test
    void healthz_needsNoToken() {
        Http.Response r = http.get("/healthz", null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get("status").asText()).isEqualTo("UP");
        assertThat(r.contentType()).isEqualTo("application/json");
    }

    @Test
    void turns_answersJsonArrayInCallOrder() {
        String turn = """
                {"type":"tool_calls","stream_id":"s1","turn_id":"t1","calls":[
                 {"tool_call_id":"a","name":"sleep","arguments":{"ms":120}},
                 {"tool_call_id":"b","name":"echo","arguments":{"text":"hi"}},
                 {"id":"c","type":"function","function":{"name":"echo","arguments":"{\\"text\\":\\"openai\\"}"}}]}""";
        Http.Response r = http.post("/v1/turns", TOKEN, turn);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.contentType()).isEqualTo("application/json");
        JsonNode events = r.json();
        assertThat(types(events)).containsExactly("tool_result", "tool_result", "tool_result", "turn_completed");
        assertThat(events.get(0).get("tool_call_id").asText()).isEqualTo("a");
        assertThat(events.get(0).get("content").asText()).isEqualTo("slept 120");
        assertThat(events.get(1).get("content").asText()).isEqualTo("hi");
        assertThat(events.get(2).get("content").asText()).isEqualTo("openai");
        assertThat(events.get(3).get("turn_id").asText()).isEqualTo("t1");
        assertThat(events.get(3).get("error_count").asInt()).isZero();
    }

    @Test
    void turns_singleToolCallAndListTools() {
        Http.Response one = http.post("/v1/turns", TOKEN,
                "{\"type\":\"tool_call\",\"stream_id\":\"s2\",\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}");
        assertThat(types(one.json())).containsExactly("tool_result", "turn_completed");
        Http.Response list = http.post("/v1/turns", TOKEN,
                "{\"type\":\"list_tools\",\"stream_id\":\"s2\",\"request_id\":\"r1\",\"format\":\"mcp\"}");
        assertThat(types(list.json())).containsExactly("tools");
        assertThat(list.json().get(0).get("request_id").asText()).isEqualTo("r1");
    }

    @Test
    void turns_unknownToolIsAResultNotAnHttpError() {
        Http.Response r = http.post("/v1/turns", TOKEN,
                "{\"type\":\"tool_call\",\"stream_id\":\"s3\",\"name\":\"nope\"}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json().get(0).get("error").get("code").asText()).isEqualTo("UNKNOWN_TOOL");
    }

    @Test
    void turns_badJsonIs400WithErrorEvent() {
        Http.Response r = http.post("/v1/turns", TOKEN, "{\"type\":\"tool_calls\",\"stream_id\":\"s4\",");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.contentType()).isEqualTo("application/json");
        JsonNode e = r.json();
        assertThat(e.get("type").asText()).isEqualTo("error");
        assertThat(e.get("code").asText()).isEqualTo("BAD_EVENT");
        assertThat(e.get("stream_id").asText()).isEqualTo("s4");
        assertThat(e.get("message").asText()).isNotBlank();
    }

    @Test
    void turns_unknownTypeIs400() {
        Http.Response r = http.post("/v1/turns", TOKEN, "{\"type\":\"dance\",\"stream_id\":\"s5\"}");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("code").asText()).isEqualTo("BAD_EVENT");
        assertThat(r.json().get("message").asText()).contains("dance");
    }

    @Test
    void turns_emptyBodyIs400() {
        Http.Response r = http.post("/v1/turns", TOKEN, "");
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("code").asText()).isEqualTo("BAD_EVENT");
    }

    @Test
    void auth_missingOrWrongTokenIs401() {
        String turn = "{\"type\":\"tool_call\",\"stream_id\":\"s6\",\"name\":\"echo\",\"arguments\":{\"text\":\"x\"}}";
        for (String token : new String[] {null, "wrong", TOKEN + "x"}) {
            Http.Response r = http.post("/v1/turns", token, turn);
            assertThat(r.status()).as("token %s", token).isEqualTo(401);
            assertThat(r.headers().get("WWW-Authenticate")).startsWith("Bearer");
            assertThat(r.json().get("type").asText()).isEqualTo("error");
            assertThat(r.json().get("code").asText()).isEqualTo("PERMISSION_DENIED");
        }
        assertThat(http.get("/v1/tools", null).status()).isEqualTo(401);
        assertThat(http.get("/v1/calls", "nope").status()).isEqualTo(401);
        assertThat(http.get("/metrics", null).status()).isEqualTo(401);
    }

    @Test
    void tools_contextFromQuery() {
        Http.Response r = http.get("/v1/tools?format=anthropic&user_id=u1&permission=admin&request_id=q1", TOKEN);
        assertThat(r.status()).isEqualTo(200);
        JsonNode t = r.json();
        assertThat(t.get("type").asText()).isEqualTo("tools");
        assertThat(t.get("format").asText()).isEqualTo("anthropic");
        assertThat(t.get("request_id").asText()).isEqualTo("q1");
        List<String> names = new ArrayList<>();
        t.get("tools").forEach(d -> names.add(d.get("name").asText()));
        assertThat(names).containsExactlyInAnyOrder("echo", "sleep", "blob");
        assertThat(t.get("tools").get(0).has("input_schema")).isTrue();
    }

    @Test
    void tools_unknownFormatIs400() {
        Http.Response r = http.get("/v1/tools?format=xml", TOKEN);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("message").asText()).contains("xml");
    }

    @Test
    void calls_filtersTheRecentLog() {
        http.post("/v1/turns", TOKEN, "{\"type\":\"tool_calls\",\"stream_id\":\"s7\",\"calls\":["
                + "{\"tool_call_id\":\"k1\",\"name\":\"echo\",\"arguments\":{\"text\":\"1\"}},"
                + "{\"tool_call_id\":\"k2\",\"name\":\"missing_tool\"}],"
                + "\"context\":{\"user_id\":\"alice\"}}");
        JsonNode all = http.get("/v1/calls?user=alice", TOKEN).json();
        assertThat(all.get("count").asInt()).isEqualTo(2);
        JsonNode echo = http.get("/v1/calls?user=alice&tool=echo", TOKEN).json();
        assertThat(echo.get("calls")).hasSize(1);
        JsonNode first = echo.get("calls").get(0);
        assertThat(first.get("tool_call_id").asText()).isEqualTo("k1");
        assertThat(first.get("outcome").asText()).isEqualTo("ok");
        assertThat(first.get("stream_id").asText()).isEqualTo("s7");
        JsonNode failed = http.get("/v1/calls?user=alice&outcome=UNKNOWN_TOOL", TOKEN).json();
        assertThat(failed.get("calls")).hasSize(1);
        assertThat(failed.get("calls").get(0).get("tool").asText()).isEqualTo("missing_tool");
        assertThat(http.get("/v1/calls?user=alice&limit=1", TOKEN).json().get("calls")).hasSize(1);
        assertThat(http.get("/v1/calls?limit=zero", TOKEN).status()).isEqualTo(400);
    }

    @Test
    void metrics_prometheusTextNamesToolbusMeters() {
        http.post("/v1/turns", TOKEN, "{\"type\":\"tool_call\",\"stream_id\":\"s8\",\"name\":\"echo\",\"arguments\":{\"text\":\"m\"}}");
        Http.Response r = http.get("/metrics", TOKEN);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.contentType()).startsWith("text/plain");
        assertThat(r.body())
                .contains("# TYPE toolbus_tool_calls_total counter")
                .containsPattern("toolbus_tool_calls_total\\{[^}]*outcome=\"ok\"[^}]*tool=\"echo\"[^}]*} [1-9]")
                .contains("toolbus_tool_duration_seconds")
                .contains("toolbus_turns_total")
                .contains("toolbus_gateway_requests_total")
                .contains("toolbus_gateway_ws_connections")
                .contains("toolbus_gateway_outbound_pending_bytes")
                .contains("toolbus_gateway_turns_active");
    }

    @Test
    void unknownPathIs404AndWrongMethodIs405() {
        Http.Response r = http.get("/v2/nothing", TOKEN);
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.json().get("type").asText()).isEqualTo("error");
        Http.Response m = http.get("/v1/turns", TOKEN);
        assertThat(m.status()).isEqualTo(405);
        assertThat(m.headers().get("Allow")).isEqualTo("POST");
        assertThat(http.post("/v1/ws", TOKEN, "{}").status()).isEqualTo(405);
    }

    @Test
    void ws_withoutUpgradeIs400() {
        Http.Response r = http.get("/v1/ws", TOKEN);
        assertThat(r.status()).isEqualTo(400);
        assertThat(r.json().get("message").asText()).contains("WebSocket");
    }

    @Test
    void build_tokenRequiredOffLoopback() {
        ToolExecutor executor = gw.executor;
        assertThatThrownBy(() -> Gateway.builder().executor(executor).host("0.0.0.0").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("token");
        assertThat(Gateway.builder().executor(executor).host("0.0.0.0").token("t").build().requiresToken()).isTrue();
        assertThat(Gateway.builder().executor(executor).host("localhost").build().requiresToken()).isFalse();
        assertThat(Gateway.builder().executor(executor).host("::1").build().host()).isEqualTo("::1");
        assertThatThrownBy(() -> Gateway.builder().build()).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Gateway.builder().token(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Gateway.builder().maxRequestBytes(10)).isInstanceOf(IllegalArgumentException.class);
    }
}
