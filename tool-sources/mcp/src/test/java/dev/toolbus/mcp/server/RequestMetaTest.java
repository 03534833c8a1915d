package dev.toolbus.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.mcp.internal.HeaderValues;
import dev.toolbus.mcp.internal.Wire;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code _meta} of a 2026-07-28 request and its HTTP headers: every error case, and what is read. */
class RequestMetaTest {

    static final ObjectMapper JSON = new ObjectMapper();

    static JsonNode params(String json) throws Exception {
        return JSON.readTree(json);
    }

    static int code(Runnable r) {
        try {
            r.run();
        } catch (ModernError e) {
            return e.code;
        }
        return 0;
    }

    static final String OK_META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
            + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},\"sampling\":{},"
            + "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}},\"progressToken\":7,\"traceparent\":"
            + "\"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\",\"baggage\":\"k=v\"}";

    @Test
    void aValidMeta_isRead() throws Exception {
        RequestMeta m = RequestMeta.parse(params("{" + OK_META + "}"), ModernDispatcher.SUPPORTED);
        assertThat(m.version()).isEqualTo("2026-07-28");
        assertThat(m.caps()).isEqualTo(new ClientCaps(true, false, true, false, true));
        assertThat(m.progressToken().asInt()).isEqualTo(7);
        assertThat(m.trace().traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(m.trace().baggage()).isEqualTo("k=v");
        assertThat(m.logs("info")).as("no logLevel: no log messages").isFalse();
    }

    @Test
    void eachMissingPart_isInvalidParams_andAnUnservedVersionListsTheServedOnes() {
        assertThat(code(() -> RequestMeta.parse(null, ModernDispatcher.SUPPORTED))).isEqualTo(Wire.INVALID_PARAMS);
        assertThat(code(() -> RequestMeta.parse(JSON.createObjectNode(), ModernDispatcher.SUPPORTED)))
                .isEqualTo(Wire.INVALID_PARAMS);
        assertThat(code(() -> parseQuietly("{\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{}}}")))
                .isEqualTo(Wire.INVALID_PARAMS);
        assertThat(code(() -> parseQuietly("{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}")))
                .isEqualTo(Wire.INVALID_PARAMS);
        assertThat(code(() -> parseQuietly("{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/logLevel\":\"loud\"}}")))
                .isEqualTo(Wire.INVALID_PARAMS);
        ModernError e = (ModernError) org.assertj.core.api.Assertions.catchThrowable(() -> parseQuietly(
                "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"1900-01-01\","
                        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}"));
        assertThat(e.code).isEqualTo(Wire.UNSUPPORTED_VERSION);
        assertThat(e.data.path("requested").asText()).isEqualTo("1900-01-01");
        assertThat(e.data.path("supported").toString()).contains("2026-07-28").contains("2025-11-25");
    }

    static RequestMeta parseQuietly(String json) {
        try {
            return RequestMeta.parse(JSON.readTree(json), ModernDispatcher.SUPPORTED);
        } catch (java.io.IOException x) {
            throw new IllegalStateException(x);
        }
    }

    @Test
    void theHeaders_mustMatchTheBody() throws Exception {
        JsonNode call = params("{\"name\":\"héllo tool\",\"arguments\":{\"region\":\"eu\",\"n\":10}," + OK_META + "}");
        Map<String, String> ok = Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call",
                "Mcp-Name", HeaderValues.encode("héllo tool"), "Mcp-Param-Region", "eu", "Mcp-Param-N", "10.0");
        HeaderRules.check(h -> find(ok, h), "tools/call", call, Map.of("Region", "region", "N", "n"));
        assertThat(HeaderValues.encode("héllo tool")).startsWith("=?base64?").endsWith("?=");

        for (var wrong : java.util.List.of(
                Map.of("Mcp-Method", "tools/call", "Mcp-Name", "x"),
                Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Name", HeaderValues.encode("héllo tool")),
                Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list",
                        "Mcp-Name", HeaderValues.encode("héllo tool")),
                Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "other"),
                Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "=?base64?aGk?="),
                Map.of("MCP-Protocol-Version", "2025-11-25", "Mcp-Method", "tools/call",
                        "Mcp-Name", HeaderValues.encode("héllo tool")))) {
            assertThat(code(() -> HeaderRules.check(h -> find(wrong, h), "tools/call", call, Map.of())))
                    .as("%s", wrong).isEqualTo(Wire.HEADER_MISMATCH);
        }
        Map<String, String> badParam = Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call",
                "Mcp-Name", HeaderValues.encode("héllo tool"), "Mcp-Param-Region", "us");
        assertThat(code(() -> HeaderRules.check(h -> find(badParam, h), "tools/call", call, Map.of("Region", "region"))))
                .isEqualTo(Wire.HEADER_MISMATCH);
        Map<String, String> missingParam = Map.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call",
                "Mcp-Name", HeaderValues.encode("héllo tool"));
        assertThat(code(() -> HeaderRules.check(h -> find(missingParam, h), "tools/call", call, Map.of("Region", "region"))))
                .isEqualTo(Wire.HEADER_MISMATCH);
    }

    private static String find(Map<String, String> headers, String name) {
        return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).map(Map.Entry::getValue)
                .findFirst().orElse(null);
    }

    @Test
    void headerValues_decodeTheSentinelStrictly() {
        assertThat(HeaderValues.decode("=?base64?SGVsbG8=?=")).isEqualTo("Hello");
        assertThat(HeaderValues.decode("=?base64?SGVsbG8?=")).as("padding is required").isNull();
        assertThat(HeaderValues.decode("=?base64?!!!!?=")).isNull();
        assertThat(HeaderValues.decode("plain")).isEqualTo("plain");
        assertThat(HeaderValues.encode(" lead")).startsWith("=?base64?");
        assertThat(HeaderValues.encode("=?base64?x?=")).startsWith("=?base64?").isNotEqualTo("=?base64?x?=");
    }

    @Test
    void errorsHaveTheirHttpStatus() {
        assertThat(ModernError.httpStatus(Wire.METHOD_NOT_FOUND)).isEqualTo(404);
        for (int c : new int[] {Wire.INVALID_PARAMS, Wire.HEADER_MISMATCH, Wire.MISSING_CAPABILITY, Wire.UNSUPPORTED_VERSION}) {
            assertThat(ModernError.httpStatus(c)).isEqualTo(400);
        }
        assertThatThrownBy(() -> { throw ModernError.missingCapability("sampling", ClientCaps.required("sampling")); })
                .satisfies(x -> assertThat(((ModernError) x).data.toString()).isEqualTo("{\"requiredCapabilities\":{\"sampling\":{}}}"));
    }
}
