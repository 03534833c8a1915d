package dev.toolbus.tool.method;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.result.ForeignValues;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** The function adapters, like the Go seed's ToolFromFunc / ToolFromJSONFunc. */
class ToolsTest {

    private static final ToolContext CTX = ToolContext.builder().streamId("s").build();

    @Test
    void function_textInTextOut() {
        ToolSpec spec = Tools.function("double", "Doubles a number", input -> input + input);
        assertThat(spec.name()).isEqualTo("double");
        assertThat(spec.definition().description(DescriptionLocale.EN)).isEqualTo("Doubles a number");
        assertThat(spec.definition().inputSchema().toString())
                .isEqualTo("{\"type\":\"object\",\"properties\":{},\"required\":[]}");
        assertThat(spec.handler().isBlocking()).isFalse();
        StepVerifier.create(spec.handler().call(ToolArguments.parse("{\"a\":1}"), CTX))
                .assertNext(r -> assertThat(r.content()).isEqualTo("{\"a\":1}{\"a\":1}"))
                .verifyComplete();
    }

    @Test
    void function_exceptionBecomesAnError() {
        ToolSpec spec = Tools.function("boom", "", input -> {
            throw new IllegalStateException("bad input");
        });
        assertThat(spec.definition().description(DescriptionLocale.EN)).isEqualTo("Tool boom");
        StepVerifier.create(spec.handler().call(ToolArguments.parse("{}"), CTX))
                .expectErrorMessage("bad input")
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void jsonFunction_jsonInValueOut() {
        ToolSpec spec = Tools.jsonFunction("weather", "Get weather",
                List.of(ToolParameter.of("city", ToolParamType.STRING, "")),
                node -> Map.of("temp", 21, "city", node.get("city").textValue()));
        assertThat(spec.definition().inputSchema().toString()).isEqualTo("{\"type\":\"object\",\"properties\":"
                + "{\"city\":{\"type\":\"string\",\"description\":\"\"}},\"required\":[\"city\"]}");
        StepVerifier.create(spec.handler().call(ToolArguments.parse("{\"city\":\"Paris\"}"), CTX))
                .assertNext(r -> assertThat(r.content())
                        .isEqualTo(ForeignValues.toResult(Map.of("temp", 21, "city", "Paris")).content()))
                .verifyComplete();
    }
}
