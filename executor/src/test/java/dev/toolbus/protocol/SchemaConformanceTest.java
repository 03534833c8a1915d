package dev.toolbus.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keeps docs/schemas, docs/examples/events and {@link EventCodec} in step: every example matches its
 * schema and decodes, and what the codec writes matches the schemas.
 */
class SchemaConformanceTest {

    static final List<String> EVENTS = List.of("tool_calls", "tool_call", "list_tools", "tool_result",
            "user_message", "turn_completed", "tools", "error", "cancel", "approval_response", "input_response",
            "approval_request", "tool_progress", "send_message", "input_request", "list_skills", "skills");
    static final Set<String> INBOUND = Set.of("tool_calls", "tool_call", "list_tools", "cancel", "approval_response",
            "input_response", "list_skills");

    private static final Path DOCS = findDocs();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);
    private static final Map<String, Schema> SCHEMAS = new HashMap<>();

    private final EventCodec codec = EventCodec.defaults();

    private static Path findDocs() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("docs/schemas"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("docs/schemas not found above " + Path.of("").toAbsolutePath());
        }
        return p.resolve("docs");
    }

    static JsonNode read(Path file) {
        try {
            return Json.mapper().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalStateException(file.toString(), e);
        }
    }

    static synchronized Schema schema(String event) {
        return SCHEMAS.computeIfAbsent(event,
                e -> REGISTRY.getSchema(read(DOCS.resolve("schemas/" + e + ".schema.json"))));
    }

    static List<String> errors(String event, JsonNode instance) {
        List<String> out = new ArrayList<>();
        for (Error e : schema(event).validate(instance)) {
            out.add(e.getInstanceLocation() + " " + e.getMessage());
        }
        return out;
    }

    static Stream<Path> examples() throws IOException {
        try (Stream<Path> s = Files.list(DOCS.resolve("examples/events"))) {
            return s.filter(f -> f.toString().endsWith(".json")).sorted().toList().stream();
        }
    }

    static String eventOf(Path example) {
        String file = example.getFileName().toString();
        return file.substring(0, file.indexOf('.'));
    }

    @Test
    void everyEvent_hasASchemaAndAnExample() throws IOException {
        Set<String> schemaFiles = new TreeSet<>();
        try (Stream<Path> s = Files.list(DOCS.resolve("schemas"))) {
            s.forEach(f -> schemaFiles.add(f.getFileName().toString()));
        }
        assertThat(schemaFiles).containsExactlyInAnyOrderElementsOf(
                EVENTS.stream().map(e -> e + ".schema.json").toList());
        assertThat(examples().map(SchemaConformanceTest::eventOf).distinct()).containsExactlyInAnyOrderElementsOf(EVENTS);
        assertThat(examples().map(p -> p.getFileName().toString())).contains("tool_calls.openai.json",
                "tool_call.openai.json");
    }

    @Test
    void everySchema_isValidDraft202012() {
        Schema meta = REGISTRY.getSchema(SchemaLocation.of(SpecificationVersion.DRAFT_2020_12.getDialectId()));
        for (String event : EVENTS) {
            JsonNode schema = read(DOCS.resolve("schemas/" + event + ".schema.json"));
            assertThat(meta.validate(schema)).as(event).isEmpty();
            assertThat(schema.get("$schema").textValue()).isEqualTo("https://json-schema.org/draft/2020-12/schema");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("examples")
    void example_matchesItsSchema_andDecodes(Path example) {
        String event = eventOf(example);
        JsonNode tree = read(example);
        assertThat(errors(event, tree)).as(example.toString()).isEmpty();
        assertThat(tree.get("type").textValue()).isEqualTo(event);
        if (INBOUND.contains(event)) {
            InboundEvent decoded = codec.decode(tree.toString());
            assertThat(decoded.streamId()).isEqualTo(tree.get("stream_id").textValue());
            JsonNode reencoded = Samples.json(codec.encode(decoded));
            String reType = event.equals("tool_call") ? "tool_calls" : event;
            assertThat(errors(reType, reencoded)).isEmpty();
        } else {
            OutboundEvent decoded = codec.decodeOutbound(tree.toString());
            JsonNode reencoded = Samples.json(codec.encode(decoded));
            assertThat(errors(event, reencoded)).isEmpty();
            assertThat(reencoded).isEqualTo(tree);
        }
    }

    /**
     * Every event docs/protocol.md shows inline (a line of a code block that is one JSON event, or a
     * {@code > }/{@code < } session line) matches its schema, and an inbound one decodes.
     */
    @Test
    void protocolMd_everyInlineEvent_matchesItsSchema() throws IOException {
        List<String> lines = Files.readAllLines(DOCS.resolve("protocol.md"));
        boolean inBlock = false;
        int checked = 0;
        Set<String> seen = new TreeSet<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith("```")) {
                inBlock = !inBlock;
                continue;
            }
            String json = line.startsWith("> ") || line.startsWith("< ") ? line.substring(2) : line;
            if (!inBlock || !json.startsWith("{\"type\":")) {
                continue;
            }
            JsonNode tree = Json.mapper().readTree(json);
            String event = tree.path("type").asText();
            assertThat(EVENTS).as("protocol.md:" + (i + 1)).contains(event);
            assertThat(errors(event, tree)).as("protocol.md:" + (i + 1) + " " + json).isEmpty();
            if (INBOUND.contains(event)) {
                assertThat(codec.decode(json).streamId()).isEqualTo(tree.path("stream_id").asText());
            } else {
                codec.decodeOutbound(json);
            }
            seen.add(event);
            checked++;
        }
        assertThat(checked).isGreaterThan(30);
        // the issue 11 events and codes are among them
        assertThat(seen).contains("list_skills", "skills", "tool_result");
        String doc = Files.readString(DOCS.resolve("protocol.md"));
        assertThat(doc).contains("\"code\":\"RATE_LIMITED\"", "\"retry_after_ms\":1500", "\"code\":\"LIMIT_EXCEEDED\"");
    }

    static List<OutboundEvent> outbound() {
        return Samples.outbound();
    }

    @ParameterizedTest
    @MethodSource("outbound")
    void encodedOutbound_matchesSchema_andDeclaresEveryField(OutboundEvent event) {
        JsonNode tree = Samples.json(codec.encode(event));
        assertThat(errors(event.type(), tree)).as(tree.toString()).isEmpty();
        JsonNode declared = schema(event.type()).getSchemaNode().get("properties");
        tree.fieldNames().forEachRemaining(f -> assertThat(declared.has(f))
                .as("field %s of %s is in the schema", f, event.type()).isTrue());
    }

    @Test
    void encodedInbound_matchesSchema() {
        assertThat(errors("tool_calls", Samples.json(codec.encode(Samples.toolCalls())))).isEmpty();
        assertThat(errors("list_tools", Samples.json(codec.encode(Samples.listTools())))).isEmpty();
        JsonNode skills = Samples.json(codec.encode(Samples.listSkills()));
        assertThat(errors("list_skills", skills)).isEmpty();
        assertThat(codec.decode(skills.toString())).isEqualTo(Samples.listSkills());
        for (InboundEvent e : Samples.control()) {
            JsonNode tree = Samples.json(codec.encode(e));
            assertThat(errors(tree.get("type").textValue(), tree)).as(tree.toString()).isEmpty();
            assertThat(codec.decode(tree.toString())).isEqualTo(e);
        }
    }

    @Test
    void errorCodeEnums_matchErrorCode() {
        List<String> codes = Arrays.stream(ErrorCode.values()).map(Enum::name).toList();
        for (String event : List.of("tool_result", "error")) {
            JsonNode e = schema(event).getSchemaNode().at("/$defs/code/enum");
            List<String> inSchema = new ArrayList<>();
            e.forEach(n -> inSchema.add(n.textValue()));
            assertThat(inSchema).as(event).containsExactlyElementsOf(codes);
        }
    }

    @Test
    void formatEnums_matchListToolsFormat() {
        List<String> formats = Arrays.stream(ListToolsEvent.Format.values()).map(ListToolsEvent.Format::wireName)
                .toList();
        for (String[] at : new String[][] {{"list_tools", "/properties/format/enum"}, {"tools", "/properties/format/enum"}}) {
            List<String> inSchema = new ArrayList<>();
            schema(at[0]).getSchemaNode().at(at[1]).forEach(n -> inSchema.add(n.textValue()));
            assertThat(inSchema).containsExactlyElementsOf(formats);
        }
    }

    static Stream<String[]> invalid() {
        return Stream.of(
                new String[] {"tool_calls", "{\"type\":\"tool_calls\",\"calls\":[]}"},
                new String[] {"tool_calls", "{\"type\":\"tool_calls\",\"stream_id\":\" \",\"calls\":[]}"},
                new String[] {"tool_calls", "{\"type\":\"tool_calls\",\"stream_id\":7,\"calls\":[]}"},
                new String[] {"tool_calls", "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":{}}"},
                new String[] {"tool_calls", "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":[3]}"},
                new String[] {"tool_calls", "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":[],\"context\":[]}"},
                new String[] {"tool_calls", "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"calls\":[{\"function\":\"f\"}]}"},
                new String[] {"tool_calls", "{\"type\":\"tool_calls\",\"stream_id\":\"s\",\"turn_id\":{},\"calls\":[]}"},
                new String[] {"list_tools", "{\"type\":\"list_tools\",\"stream_id\":\"s\",\"format\":\"gemini\"}"},
                new String[] {"tool_call", "{\"type\":\"tool_call\",\"stream_id\":\"s\",\"name\":\"x\",\"context\":1}"},
                new String[] {"list_skills", "{\"type\":\"list_skills\",\"stream_id\":\"s\",\"selected\":\"pdf\"}"},
                new String[] {"list_skills", "{\"type\":\"list_skills\",\"stream_id\":\"s\",\"selected\":[1]}"},
                new String[] {"list_skills", "{\"type\":\"list_skills\",\"stream_id\":\"s\",\"text\":[]}"},
                new String[] {"cancel", "{\"type\":\"cancel\",\"stream_id\":\"s\",\"tool_call_id\":\"c\"}"},
                new String[] {"cancel", "{\"type\":\"cancel\",\"stream_id\":\"s\",\"turn_id\":[]}"},
                new String[] {"approval_response", "{\"type\":\"approval_response\",\"stream_id\":\"s\",\"approval_id\":\"a\",\"decision\":\"ok\"}"},
                new String[] {"approval_response", "{\"type\":\"approval_response\",\"stream_id\":\"s\",\"decision\":\"deny\"}"},
                new String[] {"input_response", "{\"type\":\"input_response\",\"stream_id\":\"s\",\"input_id\":\"i\",\"action\":\"yes\"}"},
                new String[] {"input_response", "{\"type\":\"input_response\",\"stream_id\":\"s\",\"input_id\":\"i\",\"action\":\"accept\",\"content\":[]}"});
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("invalid")
    void structurallyInvalidInbound_isRejectedBySchemaAndCodec(String event, String json) {
        assertThat(errors(event, Samples.json(json))).isNotEmpty();
        assertThatThrownBy(() -> codec.decode(json)).isInstanceOf(EventDecodeException.class);
    }

    @Test
    void schemas_catchBrokenOutboundEvents() {
        JsonNode ok = Samples.json(codec.encode(Samples.toolResultMedia()));
        assertThat(errors("tool_result", ok)).isEmpty();
        assertThat(errors("tool_result", Samples.json(ok.toString().replace("\"is_error\":false", "\"is_error\":true"))))
                .isNotEmpty();
        assertThat(errors("tool_result", Samples.json(ok.toString().replace("tool_result:call_1:2\"", "tool_result:call_1:0\""))))
                .isNotEmpty();
        JsonNode msg = Samples.json(codec.encode(Samples.userMessageImage()));
        String swapped = msg.toString().replaceFirst("\"content\":\\[(\\{[^}]*\\}),(\\{[^}]*\\})\\]", "\"content\":[$2,$1]");
        assertThat(swapped).isNotEqualTo(msg.toString());
        assertThat(errors("user_message", Samples.json(swapped))).isNotEmpty();
        assertThat(errors("user_message", Samples.json(msg.toString().replace("\"image/png\"", "\"audio/wav\""))))
                .isNotEmpty();
        assertThat(errors("turn_completed", Samples.json(
                "{\"type\":\"turn_completed\",\"stream_id\":\"s\",\"turn_id\":\"t\",\"tool_call_ids\":[],\"error_count\":-1,"
                        + "\"elapsed_ms\":0}"))).isNotEmpty();
        assertThat(errors("error", Samples.json("{\"type\":\"error\",\"code\":\"OOPS\",\"message\":\"m\"}"))).isNotEmpty();
    }
}
