package dev.toolbus.result;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.protocol.ContentPart;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ToolResult;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Replays every vector of {@code maibot-vectors/host_vectors.out} in the ZH locale, from the file
 * itself, with the input both as a Jackson tree and as plain Java maps and lists. Two vectors differ
 * on purpose: V17 (a list reads as JSON, not as a Python repr) and V19 (bytes that are not an image
 * give a header-only message).
 */
class HostVectorsTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Pattern RESULT_LINE = Pattern.compile(
            "^ToolExecutionResult: success=(True|False) content=(.*) error_message=(.*) items=(\\d+)$");
    private static final Pattern IMAGE_BYTES = Pattern.compile("^<(\\d+) bytes");

    record Vector(String id, String input, String resultLine, List<String> messages) {
        @Override
        public String toString() {
            return id;
        }
    }

    static Stream<Arguments> vectors() throws IOException {
        List<Vector> vectors = parse();
        assertThat(vectors).hasSize(19);
        return vectors.stream().flatMap(v -> Stream.of(Arguments.of(v, true), Arguments.of(v, false)));
    }

    @ParameterizedTest(name = "{0} jackson={1}")
    @MethodSource("vectors")
    void vector_reproduced(Vector v, boolean jackson) throws IOException {
        JsonNode input = MAPPER.readTree(v.input());
        Matcher expected = RESULT_LINE.matcher(v.resultLine());
        assertThat(expected.matches()).as(v.resultLine()).isTrue();
        boolean success = expected.group(1).equals("True");

        ToolResult result;
        if (v.id().equals("V14")) {
            // the handler raised: the host reports str(e) as error message and structured data
            String message = input.asText();
            result = ToolResult.builder().success(false).errorMessage(message).data(message).build();
        } else {
            result = ForeignValues.toResult(jackson ? input : MAPPER.convertValue(input, Object.class),
                    DescriptionLocale.ZH);
        }
        String expectedContent = v.id().equals("V17") ? "[\"a\", \"b\"]" : pyRepr(expected.group(2));
        assertThat(result.isError()).isEqualTo(!success);
        assertThat(result.content()).isEqualTo(expectedContent);
        assertThat(result.errorMessage()).isEqualTo(pyRepr(expected.group(3)));
        assertThat(result.contentItems()).hasSize(Integer.parseInt(expected.group(4)));

        JsonNode tool = MAPPER.readTree(v.messages().get(0));
        assertThat(tool.get("role").asText()).isEqualTo("tool");
        assertThat(tool.get("success").asBoolean()).isEqualTo(success);
        SplitResult split = MediaSplitter.create(DescriptionLocale.ZH, MediaSplitter.DEFAULT_MAX_MEDIA_BYTES)
                .split(tool.get("tool_call_id").asText(), tool.get("tool_name").asText(), result);
        String toolContent = v.id().equals("V17") ? expectedContent : tool.get("content").asText();
        assertThat(split.content()).isEqualTo(toolContent);
        assertThat(split.error()).isNull();

        List<String> users = v.messages().subList(1, v.messages().size());
        assertThat(split.messages()).hasSize(users.size());
        assertThat(split.media()).hasSize(users.size());
        for (int i = 0; i < users.size(); i++) {
            JsonNode user = MAPPER.readTree(users.get(i));
            SplitResult.MediaMessage message = split.messages().get(i);
            assertThat(user.get("source_kind").asText()).isEqualTo("tool_result_media");
            assertThat(message.messageId()).isEqualTo(user.get("message_id").asText());
            assertThat(split.media().get(i).index()).isEqualTo(message.messageId());
            JsonNode components = user.get("components");
            assertThat(message.content().get(0)).isEqualTo(ContentPart.text(components.get(0).get(1).asText()));
            String visible = user.get("visible_text").asText();
            boolean image = components.size() > 1;
            if (v.id().equals("V19")) {
                image = false;
                visible = visible.substring(0, visible.length() - "\n[图片]".length());
            }
            assertThat(message.visibleText()).isEqualTo(visible);
            assertThat(message.content()).hasSize(image ? 2 : 1);
            if (image) {
                Matcher bytes = IMAGE_BYTES.matcher(components.get(1).get(1).asText());
                assertThat(bytes.find()).isTrue();
                ContentPart part = message.content().get(1);
                assertThat(part.type()).isEqualTo("image");
                assertThat(part.mimeType()).isEqualTo("image/png");
                assertThat(Base64.getDecoder().decode(part.data())).hasSize(Integer.parseInt(bytes.group(1)));
            }
        }
    }

    /** Reads the blocks of the vector file: title, INPUT, ToolExecutionResult, MSG lines. */
    static List<Vector> parse() throws IOException {
        String text;
        try (InputStream in = HostVectorsTest.class.getResourceAsStream("/maibot-vectors/host_vectors.out")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<Vector> out = new ArrayList<>();
        for (String block : text.split("\n##### ")) {
            if (block.isBlank()) {
                continue;
            }
            String[] lines = block.strip().split("\n");
            String id = lines[0].split(" ")[0];
            String input = null;
            String resultLine = null;
            List<String> messages = new ArrayList<>();
            for (String line : lines) {
                if (line.startsWith("INPUT result = ")) {
                    input = line.substring("INPUT result = ".length());
                } else if (line.startsWith("ToolExecutionResult: ")) {
                    resultLine = line;
                } else if (line.startsWith("MSG ")) {
                    messages.add(line.substring(4));
                }
            }
            out.add(new Vector(id, input, resultLine, messages));
        }
        return out;
    }

    /** The value of a Python string repr ('…' or "…", backslash escapes for quotes and backslashes). */
    static String pyRepr(String repr) {
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i < repr.length() - 1; i++) {
            char c = repr.charAt(i);
            if (c == '\\') {
                c = repr.charAt(++i);
            }
            sb.append(c);
        }
        return sb.toString();
    }
}
