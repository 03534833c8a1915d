package dev.toolbus.executor.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.internal.JsonSchemas;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolHandler;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The whole input schema is checked (networknt), with messages that name the path and the rule. */
class FullSchemaValidationTest {

    private static ObjectNode json(String s) {
        try {
            return (ObjectNode) Json.mapper().readTree(s);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    private final AtomicInteger handlerRuns = new AtomicInteger();

    private ToolResultEvent call(String schema, String arguments) {
        ToolRegistry registry = ToolRegistry.create();
        boolean registered = registry.register(new ToolSpec(ToolDefinition.builder("t").description("d")
                .inputSchema(json(schema)).build(), ToolHandler.sync((a, c) -> {
                    handlerRuns.incrementAndGet();
                    return ToolResult.text("ran");
                })), ToolSource.PLUGIN);
        assertThat(registered).as("schema accepted").isTrue();
        try (ToolExecutor ex = ToolExecutor.builder().registry(registry).build()) {
            List<OutboundEvent> events = ex.execute(ToolCallsEvent.of("s", "turn",
                    List.of(ToolCall.ofJson("c", "t", arguments)))).collectList().block();
            return (ToolResultEvent) events.get(0);
        }
    }

    private static final String SEARCH = """
            {"type":"object","properties":{
              "query":{"type":"string","minLength":2,"pattern":"^[^<>]*$"},
              "limit":{"type":"integer","minimum":1,"maximum":50},
              "filters":{"type":"object","properties":{"site":{"type":"string","format":"hostname"}},
                         "required":["site"],"additionalProperties":false},
              "tags":{"type":"array","items":{"type":"string","enum":["news","blog"]},"maxItems":3},
              "when":{"$ref":"#/$defs/date"},
              "mode":{"oneOf":[{"const":"fast"},{"const":"deep"}]}},
             "required":["query"],"additionalProperties":false,
             "$defs":{"date":{"type":"string","format":"date"}}}""";

    @Test
    void nested_rules_reach_the_model_as_path_and_rule() {
        assertThat(call(SEARCH, "{\"query\":\"reactor\",\"limit\":0}").content())
                .isEqualTo("Invalid arguments for t: limit: must be >= 1.");
        assertThat(call(SEARCH, "{\"query\":\"reactor\",\"limit\":51}").content())
                .isEqualTo("Invalid arguments for t: limit: must be <= 50.");
        assertThat(call(SEARCH, "{\"query\":\"r\"}").content()).contains("query: must be at least 2 characters long");
        assertThat(call(SEARCH, "{\"query\":\"<b>\"}").content()).contains("query: does not match the regex pattern");
        assertThat(call(SEARCH, "{\"query\":\"ok\",\"filters\":{}}").content())
                .contains("filters: required property 'site' not found");
        assertThat(call(SEARCH, "{\"query\":\"ok\",\"filters\":{\"site\":\"a.com\",\"x\":1}}").content())
                .contains("filters: property 'x' is not defined in the schema");
        assertThat(call(SEARCH, "{\"query\":\"ok\",\"tags\":[\"news\",\"video\"]}").content()).contains("tags[1]");
        assertThat(call(SEARCH, "{\"query\":\"ok\",\"when\":\"yesterday\"}").content())
                .contains("when: does not match the date pattern");
        assertThat(call(SEARCH, "{\"query\":\"ok\",\"mode\":\"slow\"}").content()).contains("mode:");
        assertThat(call(SEARCH, "{\"query\":\"ok\",\"extra\":true}").content())
                .contains("property 'extra' is not defined in the schema");
        ToolResultEvent r = call(SEARCH, "{\"query\":\"ok\",\"limit\":0}");
        assertThat(r.error().code().name()).isEqualTo("INVALID_ARGUMENTS");
        assertThat(handlerRuns).hasValue(0);
    }

    @Test
    void anyOf_and_nested_array_objects_are_checked() {
        String schema = """
                {"type":"object","properties":{
                  "id":{"anyOf":[{"type":"integer","minimum":1},{"type":"string","pattern":"^u-[0-9]+$"}]},
                  "rows":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}}}""";
        assertThat(call(schema, "{\"id\":7}").content()).isEqualTo("ran");
        assertThat(call(schema, "{\"id\":\"u-12\"}").content()).isEqualTo("ran");
        assertThat(call(schema, "{\"id\":\"user\"}").content()).startsWith("Invalid arguments for t: id: ");
        assertThat(call(schema, "{\"id\":0}").content()).contains("id: must be >= 1");
        assertThat(call(schema, "{\"rows\":[{\"n\":1},{\"m\":2}]}").content())
                .isEqualTo("Invalid arguments for t: rows[1]: required property 'n' not found.");
        assertThat(call(schema, "{\"rows\":[{\"n\":\"one\"}]}").content()).contains("rows[0].n: string found, integer expected");
    }

    @Test
    void valid_arguments_and_null_optionals_run() {
        assertThat(call(SEARCH, "{\"query\":\"ok\",\"limit\":5,\"filters\":{\"site\":\"example.com\"},"
                + "\"tags\":[\"news\"],\"when\":\"2026-12-01\",\"mode\":\"deep\"}").content()).isEqualTo("ran");
        assertThat(call(SEARCH, "{\"query\":\"ok\",\"limit\":null}").content()).isEqualTo("ran");
        assertThat(handlerRuns).hasValue(2);
    }

    @Test
    void the_top_level_messages_stay_for_simple_rules() {
        assertThat(call(SEARCH, "{\"limit\":3}").content())
                .isEqualTo("Invalid arguments for t: missing required argument 'query'.");
        assertThat(call(SEARCH, "{\"query\":5}").content())
                .isEqualTo("Invalid arguments for t: argument 'query' must be string, got integer.");
    }

    @Test
    void exclusive_bounds_read_as_comparisons_in_every_draft() {
        String s2020 = """
                {"type":"object","properties":{"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}}}""";
        assertThat(call(s2020, "{\"ratio\":0}").content()).isEqualTo("Invalid arguments for t: ratio: must be > 0.");
        assertThat(call(s2020, "{\"ratio\":1}").content()).isEqualTo("Invalid arguments for t: ratio: must be < 1.");
        assertThat(call(s2020, "{\"ratio\":0.5}").content()).isEqualTo("ran");
        // draft-04 spells an exclusive bound as a boolean beside minimum
        String d4 = """
                {"$schema":"http://json-schema.org/draft-04/schema#","type":"object",
                 "properties":{"n":{"type":"integer","minimum":1,"exclusiveMinimum":true}}}""";
        assertThat(call(d4, "{\"n\":1}").content()).isEqualTo("Invalid arguments for t: n: must be > 1.");
        assertThat(call(d4, "{\"n\":2}").content()).isEqualTo("ran");
    }

    @Test
    void without_schema_keyword_2020_12_applies() {
        // prefixItems and dependentRequired exist from 2019-09/2020-12 on; draft-07 would ignore them
        String s = """
                {"type":"object","properties":{"point":{"type":"array","prefixItems":[{"type":"number"},{"type":"number"}]},
                 "a":{"type":"string"},"b":{"type":"string"}},"dependentRequired":{"a":["b"]}}""";
        assertThat(call(s, "{\"point\":[1,\"x\"]}").content()).contains("point[1]").contains("number");
        assertThat(call(s, "{\"a\":\"x\"}").content()).contains("b");
        assertThat(call(s, "{\"point\":[1,2],\"a\":\"x\",\"b\":\"y\"}").content()).isEqualTo("ran");
        String asDraft7 = s.replaceFirst("\\{", "{\"\\$schema\":\"http://json-schema.org/draft-07/schema#\",");
        assertThat(call(asDraft7, "{\"point\":[1,\"x\"],\"a\":\"x\"}").content()).isEqualTo("ran");
    }

    @Test
    void draft_07_schemas_are_read_as_draft_07() {
        // in draft-07 "$ref" beside other keywords overrides them; "dependencies" exists there only
        String d7 = """
                {"$schema":"http://json-schema.org/draft-07/schema#","type":"object",
                 "properties":{"a":{"type":"string"},"b":{"type":"string"}},"dependencies":{"a":["b"]}}""";
        assertThat(call(d7, "{\"a\":\"x\"}").content()).contains("b");
        assertThat(call(d7, "{\"a\":\"x\",\"b\":\"y\"}").content()).isEqualTo("ran");
    }

    @Test
    void an_invalid_schema_is_refused_at_registration_with_a_diagnostic() {
        ToolRegistry registry = ToolRegistry.create();
        boolean ok = registry.register(new ToolSpec(ToolDefinition.builder("bad").description("d")
                .inputSchema(json("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integr\",\"minimum\":\"one\"}}}"))
                .build(), ToolHandler.sync((a, c) -> ToolResult.text("x"))), ToolSource.PLUGIN);
        assertThat(ok).isFalse();
        assertThat(registry.find("bad")).isNull();
        assertThat(registry.diagnostics()).anySatisfy(d -> assertThat(d.message())
                .contains("tool 'bad'").contains("not a valid JSON Schema"));
    }

    /** docs/tools.md's "Argument validation" answers, line for line. */
    @Test
    void docs_tools_md_shows_these_answers() throws Exception {
        String schema = SEARCH.replace("\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50},",
                "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50},"
                        + "\"ratio\":{\"type\":\"number\",\"exclusiveMinimum\":0},");
        List<String> arguments = List.of("{\"query\":\"reactor\",\"limit\":0}", "{\"query\":\"ok\",\"ratio\":0}",
                "{\"query\":\"r\"}", "{\"query\":\"<b>\"}", "{\"query\":\"ok\",\"filters\":{}}",
                "{\"query\":\"ok\",\"filters\":{\"site\":\"a.com\",\"x\":1}}",
                "{\"query\":\"ok\",\"tags\":[\"news\",\"video\"]}", "{\"query\":\"ok\",\"when\":\"yesterday\"}",
                "{\"query\":\"ok\",\"mode\":\"slow\"}", "{\"query\":\"x\",\"limit\":99,\"ratio\":-1,\"tags\":[1],\"extra\":1}",
                "{\"limit\":3}", "{\"query\":5}");
        java.nio.file.Path p = java.nio.file.Path.of("").toAbsolutePath();
        while (!java.nio.file.Files.isRegularFile(p.resolve("docs/tools.md"))) {
            p = p.getParent();
        }
        String doc = java.nio.file.Files.readString(p.resolve("docs/tools.md"));
        String section = doc.substring(doc.indexOf("### Argument validation"));
        String block = section.substring(section.indexOf("```text\n") + 8, section.indexOf("\n```", section.indexOf("```text")));
        List<String> shown = List.of(block.split("\n"));
        assertThat(shown).hasSize(arguments.size());
        for (int i = 0; i < arguments.size(); i++) {
            assertThat(call(schema, arguments.get(i)).content().replace("for t:", "for web_search:"))
                    .as(arguments.get(i)).isEqualTo(shown.get(i));
        }
        assertThat(handlerRuns).hasValue(0);
    }

    /**
     * The fast path for simple schemas decides exactly what the library decides (a seeded corpus over
     * two schemas). A {@code null} optional is absent on both paths (toolbus drops it before the library
     * runs too), so the library is asked about the arguments without their nulls.
     */
    @Test
    void the_fast_path_agrees_with_the_library_on_simple_schemas() {
        List<String> schemas = List.of("""
                {"type":"object","properties":{"s":{"type":"string"},"i":{"type":"integer"},"n":{"type":"number"},
                 "b":{"type":"boolean"},"e":{"type":"string","enum":["x","y"]},"u":{"type":["string","integer"]}},
                 "required":["s"]}""", """
                {"type":"object","title":"t","properties":{"s":{"type":"string","description":"d"},
                 "k":{"enum":[1,2.5,"x",true]},"z":{"type":"null"},"m":{"type":["number","boolean"],"default":1},
                 "i":{"type":"integer","enum":[1,2,3]}},"required":["i","k"]}""");
        JsonNode[] values = {Json.mapper().valueToTree("x"), Json.mapper().valueToTree("z"), Json.mapper().valueToTree(""),
                Json.mapper().valueToTree(3), Json.mapper().valueToTree(1), Json.mapper().valueToTree(-7),
                Json.mapper().valueToTree(2.5), Json.mapper().valueToTree(2.0), Json.mapper().valueToTree(1e20),
                Json.mapper().valueToTree(true), Json.mapper().valueToTree(false), Json.mapper().nullNode(),
                Json.mapper().createArrayNode(), Json.mapper().createObjectNode()};
        String[] keys = {"s", "i", "n", "b", "e", "u", "k", "z", "m", "other"};
        for (String schema : schemas) {
            ObjectNode s = json(schema);
            assertThat(JsonSchemas.simple(s)).as(schema).isTrue();
            ArgumentRules rules = ArgumentRules.of(ToolDefinition.builder("t").description("d").inputSchema(s).build());
            var library = JsonSchemas.compile(s);
            Random random = new Random(42);
            int disagreements = 0;
            int valid = 0;
            for (int round = 0; round < 5000; round++) {
                ObjectNode args = Json.mapper().createObjectNode();
                for (String k : keys) {
                    if (random.nextInt(3) > 0) {
                        args.set(k, values[random.nextInt(values.length)]);
                    }
                }
                boolean fast = rules.check(args) == null;
                ObjectNode withoutNulls = args.deepCopy();
                args.fields().forEachRemaining(f -> {
                    if (f.getValue().isNull()) {
                        withoutNulls.remove(f.getKey());
                    }
                });
                boolean lib = library.validate(withoutNulls).isEmpty();
                if (fast != lib) {
                    disagreements++;
                }
                valid += lib ? 1 : 0;
            }
            assertThat(disagreements).as(schema).isZero();
            // the corpus holds both verdicts in numbers
            assertThat(valid).as(schema).isBetween(20, 4980);
        }
    }

    @Test
    void schemas_with_more_than_top_level_rules_are_not_simple() {
        assertThat(JsonSchemas.simple(json(SEARCH))).isFalse();
        assertThat(JsonSchemas.simple(json("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"minLength\":1}}}")))
                .isFalse();
        assertThat(JsonSchemas.simple(json("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"array\"}}}"))).isFalse();
    }
}
