package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireTest {

    private static JsonNode json(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static PluginManifest manifest(String extra) {
        return PluginManifest.parse(json("{\"id\":\"p\",\"command\":\"x\"" + extra + "}"), Path.of("/tmp/p"));
    }

    @Test
    void request_carriesIdMethodAndParamsOnlyWhenPresent() {
        assertThat(Wire.request(7, "deactivate", null).toString()).isEqualTo("{\"id\":7,\"method\":\"deactivate\"}");
        assertThat(Wire.request(1, "activate", Wire.activateParams("p")).toString())
                .isEqualTo("{\"id\":1,\"method\":\"activate\",\"params\":{\"pluginId\":\"p\"}}");
    }

    @Test
    void executeParams_inputIsTheRawJsonStringAndContextSkipsEmptyFields() {
        ToolContext ctx = ToolContext.builder().streamId("s1").toolCallId("c1")
                .who(dev.toolbus.protocol.CallContext.builder().userId("u").build()).build();
        JsonNode p = Wire.executeParams("greet", "{\"name\":\"Al\"}", ctx);
        assertThat(p.path("toolName").asText()).isEqualTo("greet");
        assertThat(p.path("input").isTextual()).isTrue();
        assertThat(p.path("input").asText()).isEqualTo("{\"name\":\"Al\"}");
        assertThat(p.path("context").toString())
                .isEqualTo("{\"streamId\":\"s1\",\"toolCallId\":\"c1\",\"idempotencyKey\":\"" + ctx.idempotencyKey()
                        + "\",\"userId\":\"u\",\"attempt\":1}");
        assertThat(ctx.idempotencyKey()).isNotBlank();
    }

    @Test
    void executeParams_contextCarriesTheCallsTraceContext() {
        String tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        ToolContext ctx = ToolContext.builder().streamId("s1").toolCallId("c1")
                .trace(new dev.toolbus.protocol.TraceContext(tp, "a=1")).build();
        JsonNode c = Wire.executeParams("greet", "{}", ctx).path("context");
        assertThat(c.path("traceparent").asText()).isEqualTo(tp);
        assertThat(c.path("tracestate").asText()).isEqualTo("a=1");
        ToolContext plain = ToolContext.builder().streamId("s1").toolCallId("c1")
                .trace(new dev.toolbus.protocol.TraceContext(tp, null)).build();
        assertThat(Wire.executeParams("greet", "{}", plain).path("context").has("tracestate")).isFalse();
    }

    @Test
    void schema_inputSchemaUnderEitherSpellingIsUsedVerbatim() {
        String schema = "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}},\"required\":[\"q\"]}";
        assertThat(Wire.schema(json("{\"input_schema\":" + schema + "}"))).isEqualTo(json(schema));
        assertThat(Wire.schema(json("{\"inputSchema\":" + schema + "}"))).isEqualTo(json(schema));
        // a schema wins over a parameters list, as the model must see real parameters either way
        assertThat(Wire.schema(json("{\"inputSchema\":" + schema + ",\"parameters\":[{\"name\":\"z\"}]}")))
                .isEqualTo(json(schema));
    }

    @Test
    void schema_parametersListBecomesAnObjectSchema() {
        JsonNode s = Wire.schema(json("{\"parameters\":[{\"name\":\"name\",\"type\":\"string\",\"description\":\"who\","
                + "\"required\":true},{\"name\":\"tags\",\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                + "{\"name\":\"n\"}]}"));
        assertThat(s).isEqualTo(json("{\"type\":\"object\",\"properties\":{"
                + "\"name\":{\"type\":\"string\",\"description\":\"who\"},"
                + "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                + "\"n\":{\"type\":\"string\"}},\"required\":[\"name\"]}"));
    }

    @Test
    void schema_noParametersIsAnEmptyObjectSchema() {
        assertThat(Wire.schema(json("{\"name\":\"x\"}")))
                .isEqualTo(json("{\"type\":\"object\",\"properties\":{},\"required\":[]}"));
    }

    @Test
    void tools_skipBadNamesAndDuplicatesAndCarryPluginIdChannelsAndTimeout() {
        PluginManifest m = manifest(",\"channels\":[\"web\"],\"timeoutMs\":1500");
        List<ToolDefinition> defs = Wire.tools(m, json("{\"tools\":[{\"name\":\"a\",\"description\":\"A\"},"
                + "{\"name\":\"bad name!\"},{\"description\":\"nameless\"},{\"name\":\"a\"},"
                + "{\"name\":\"b\",\"timeoutMs\":200,\"sideEffecting\":true,\"channels\":[\"cli\"]}]}"));
        assertThat(defs).extracting(ToolDefinition::name).containsExactly("a", "b");
        assertThat(defs.get(0).pluginId()).isEqualTo("p");
        assertThat(defs.get(0).channels()).containsExactly("web");
        assertThat(defs.get(0).timeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(defs.get(0).description(dev.toolbus.text.DescriptionLocale.EN)).isEqualTo("A");
        assertThat(defs.get(1).timeout()).isEqualTo(Duration.ofMillis(200));
        assertThat(defs.get(1).sideEffecting()).isTrue();
        assertThat(defs.get(1).channels()).containsExactly("web", "cli");
    }

    @Test
    void tools_notAListIsAProtocolError() {
        assertThatThrownBy(() -> Wire.tools(manifest(""), json("{\"tools\":\"nope\"}")))
                .isInstanceOf(StdioPluginException.class).hasMessageContaining("'p'").hasMessageContaining("not a list");
    }

    @Test
    void hookResult_isReadUnderBothSpellings() {
        assertThat(Wire.hookResult(json("{\"hook_result\":{\"decision\":\"deny\"}}")).path("decision").asText())
                .isEqualTo("deny");
        assertThat(Wire.hookResult(json("{\"hookResult\":{\"decision\":\"deny\"}}")).path("decision").asText())
                .isEqualTo("deny");
        assertThat(Wire.hookResult(json("{\"result\":\"x\"}"))).isNull();
    }

    @Test
    void toResult_mapsErrorsStringsValuesAndItems() {
        ToolResult err = Wire.toResult(json("{\"error\":\"Unknown tool: x\"}"));
        assertThat(err.isError()).isTrue();
        assertThat(err.errorMessage()).isEqualTo("Unknown tool: x");
        assertThat(Wire.toResult(json("{\"error\":{\"message\":\"deep\"}}")).errorMessage()).isEqualTo("deep");
        // an empty error next to a result is no error (Go writes both fields)
        assertThat(Wire.toResult(json("{\"result\":\"fine\",\"error\":\"\"}")).content()).isEqualTo("fine");
        ToolResult text = Wire.toResult(json("{\"result\":\"{\\\"english\\\": \\\"Hello\\\"}\"}"));
        assertThat(text.isError()).isFalse();
        assertThat(text.content()).isEqualTo("{\"english\": \"Hello\"}");
        assertThat(Wire.toResult(json("{}")).content()).isEmpty();
        ToolResult value = Wire.toResult(json("{\"result\":{\"success\":false,\"error\":\"nope\"}}"));
        assertThat(value.isError()).isTrue();
        assertThat(value.errorMessage()).isEqualTo("nope");
        ToolResult media = Wire.toResult(json("{\"result\":\"see\",\"content_items\":[{\"type\":\"image\","
                + "\"data\":\"AAAA\",\"mime_type\":\"image/png\"}]}"));
        assertThat(media.content()).isEqualTo("see");
        assertThat(media.data()).isNull();
        assertThat(media.contentItems()).singleElement().satisfies(i -> {
            assertThat(i.type()).isEqualTo("image");
            assertThat(i.mimeType()).isEqualTo("image/png");
        });
    }

    @Test
    void isInbound_onlyForMessagesThatAnswerNothing() {
        assertThat(Wire.isInbound(json("{\"method\":\"channel_inbound\",\"params\":{}}"))).isTrue();
        assertThat(Wire.isInbound(json("{\"method\":\"x\",\"result\":\"r\"}"))).isFalse();
        assertThat(Wire.isInbound(json("{\"result\":\"r\"}"))).isFalse();
    }

    @Test
    void id_acceptsNumbersAndNumericStrings() {
        assertThat(Wire.id(json("{\"id\":4}"))).isEqualTo(4L);
        assertThat(Wire.id(json("{\"id\":\"4\"}"))).isEqualTo(4L);
        assertThat(Wire.id(json("{\"id\":\"srv-4\"}"))).isEqualTo(-1L);
        assertThat(Wire.id(json("{\"result\":1}"))).isNull();
    }

    @Test
    void cancel_namesTheRequestAndTheCallAndHasNoIdOfItsOwn() {
        assertThat(Wire.cancel(7, "call_1", "cancelled").toString())
                .isEqualTo("{\"method\":\"cancel\",\"params\":{\"id\":7,\"toolCallId\":\"call_1\",\"reason\":\"cancelled\"}}");
        assertThat(Wire.cancel(8, null, "cancelled").path("params").has("toolCallId")).isFalse();
    }

    @Test
    void sendContent_isAStringOrTextAndImageParts_anythingElseIsRefused() {
        assertThat(CallMessages.content(json("\"hi\""))).extracting(dev.toolbus.protocol.ContentPart::text)
                .containsExactly("hi");
        var parts = CallMessages.content(json("[{\"type\":\"text\",\"text\":\"你好！\"},"
                + "{\"type\":\"image\",\"mimeType\":\"image/png\",\"data\":\"iVBO\"}]"));
        assertThat(parts).extracting(dev.toolbus.protocol.ContentPart::type).containsExactly("text", "image");
        assertThat(parts.get(1).mimeType()).isEqualTo("image/png");
        assertThatThrownBy(() -> CallMessages.content(json("[]"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CallMessages.content(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CallMessages.content(json("[{\"type\":\"audio\"}]")))
                .hasMessageContaining("content part");
        assertThatThrownBy(() -> CallMessages.content(json("[{\"type\":\"image\",\"data\":\"x\"}]")))
                .hasMessageContaining("mime_type");
    }
}
