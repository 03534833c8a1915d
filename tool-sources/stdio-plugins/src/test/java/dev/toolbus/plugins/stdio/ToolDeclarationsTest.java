package dev.toolbus.plugins.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.Json;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.Visibility;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ToolDeclarationsTest {

    private static final PluginManifest MANIFEST =
            PluginManifest.parse(json("{\"id\":\"p\",\"command\":\"x\"}"), Path.of("/tmp/p"));

    private static JsonNode json(String s) {
        try {
            return Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Test
    void camelCaseAttributes_reachTheDefinition() {
        ToolDefinition def = Wire.tool(MANIFEST, json("{\"name\":\"t\",\"optional\":true,\"groups\":[\"ops\",\"\"],"
                + "\"requiredPermission\":\"admin\",\"visibility\":\"deferred\",\"cacheable\":true,"
                + "\"dangerous\":true,\"sideEffecting\":true,\"channels\":[\"web\"],\"timeoutMs\":1500}"));
        assertThat(def.optional()).isTrue();
        assertThat(def.groups()).containsExactly("ops");
        assertThat(def.requiredPermission()).isEqualTo("admin");
        assertThat(def.visibility()).isEqualTo(Visibility.DEFERRED);
        assertThat(def.cacheable()).isTrue();
        assertThat(def.dangerous()).isTrue();
        assertThat(def.sideEffecting()).isTrue();
        assertThat(def.channels()).containsExactly("web");
        assertThat(def.timeout()).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void idempotent_makesASideEffectingToolRetrySafe() {
        ToolDefinition plain = Wire.tool(MANIFEST, json("{\"name\":\"t\",\"sideEffecting\":true}"));
        ToolDefinition idem = Wire.tool(MANIFEST, json("{\"name\":\"t\",\"sideEffecting\":true,\"idempotent\":true}"));
        assertThat(plain.idempotent()).isFalse();
        assertThat(plain.retrySafe()).as("goes through the call journal").isFalse();
        assertThat(idem.idempotent()).isTrue();
        assertThat(idem.retrySafe()).isTrue();
    }

    @Test
    void snakeCaseAttributes_andReadOnly_areAccepted() {
        ToolDefinition def = Wire.tool(MANIFEST, json("{\"name\":\"t\",\"required_permission\":\"master\","
                + "\"read_only\":true,\"visibility\":\"HIDDEN\"}"));
        assertThat(def.requiredPermission()).isEqualTo("master");
        assertThat(def.cacheable()).isTrue();
        assertThat(def.visibility()).isEqualTo(Visibility.HIDDEN);
    }

    @Test
    void pluginTools_areNotCacheableUnlessDeclared() {
        ToolDefinition def = Wire.tool(MANIFEST, json("{\"name\":\"t\"}"));
        assertThat(def.cacheable()).isFalse();
        assertThat(def.optional()).isFalse();
        assertThat(def.visibility()).isEqualTo(Visibility.VISIBLE);
        assertThat(ToolDefinition.builder("java").build().cacheable()).isTrue();
    }

    @Test
    void badVisibility_skipsThatToolOnly() {
        List<ToolDefinition> tools = Wire.tools(MANIFEST, json("{\"tools\":[{\"name\":\"a\",\"visibility\":\"sometimes\"},"
                + "{\"name\":\"b\"}]}"));
        assertThat(tools).extracting(ToolDefinition::name).containsExactly("b");
    }

    @Test
    void maxResultChars_isDeclaredPerTool_andABadValueSkipsThatTool() {
        assertThat(Wire.tool(MANIFEST, json("{\"name\":\"t\",\"maxResultChars\":5000}")).maxResultChars())
                .isEqualTo(5000);
        assertThat(Wire.tool(MANIFEST, json("{\"name\":\"t\",\"max_result_chars\":0}")).maxResultChars()).isZero();
        assertThat(Wire.tool(MANIFEST, json("{\"name\":\"t\"}")).maxResultChars()).isNull();
        List<ToolDefinition> tools = Wire.tools(MANIFEST, json("{\"tools\":[{\"name\":\"a\",\"maxResultChars\":-1},"
                + "{\"name\":\"b\",\"maxResultChars\":\"many\"},{\"name\":\"c\",\"maxResultChars\":2.5},{\"name\":\"d\"}]}"));
        assertThat(tools).extracting(ToolDefinition::name).containsExactly("d");
    }

    @Test
    void allowedCallers_andOutputSchema_areDeclared() {
        ToolDefinition def = Wire.tool(MANIFEST, json("{\"name\":\"t\",\"allowed_callers\":[\"direct\","
                + "\"code_execution_20250825\"],\"output_schema\":{\"type\":\"object\",\"required\":[\"n\"]}}"));
        assertThat(def.allowedCallers()).containsExactly(dev.toolbus.protocol.CallerType.DIRECT,
                dev.toolbus.protocol.CallerType.PROGRAMMATIC);
        assertThat(def.outputSchema().toString()).isEqualTo("{\"type\":\"object\",\"required\":[\"n\"]}");
        ToolDefinition camel = Wire.tool(MANIFEST, json("{\"name\":\"t\",\"allowedCallers\":[\"programmatic\"]}"));
        assertThat(camel.allowedCallers()).containsExactly(dev.toolbus.protocol.CallerType.PROGRAMMATIC);
        ToolDefinition plain = Wire.tool(MANIFEST, json("{\"name\":\"t\"}"));
        assertThat(plain.allowedCallers()).containsExactly(dev.toolbus.protocol.CallerType.DIRECT);
        assertThat(plain.hasOutputSchema()).isFalse();
    }

    @Test
    void unreadableCallersOrOutputSchema_skipTheTool() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Wire.tool(MANIFEST,
                json("{\"name\":\"t\",\"allowed_callers\":[\"robots\"]}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("robots");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Wire.tool(MANIFEST,
                json("{\"name\":\"t\",\"allowed_callers\":[]}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("non-empty");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Wire.tool(MANIFEST,
                json("{\"name\":\"t\",\"output_schema\":\"object\"}")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("output_schema");
    }
}
