package dev.toolbus.result;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.ContentItem;
import dev.toolbus.tool.ToolResult;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ForeignValuesTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static ToolResult json(String json) throws Exception {
        ToolResult tree = ForeignValues.toResult(MAPPER.readTree(json));
        ToolResult plain = ForeignValues.toResult(MAPPER.readValue(json, Object.class));
        assertThat(plain.content()).isEqualTo(tree.content());
        assertThat(plain.errorMessage()).isEqualTo(tree.errorMessage());
        assertThat(plain.isError()).isEqualTo(tree.isError());
        assertThat(plain.contentItems()).isEqualTo(tree.contentItems());
        return tree;
    }

    @Test
    void map_failureWithoutMessage_usesLocaleDefault() throws Exception {
        assertThat(json("{\"success\":false}").errorMessage()).isEqualTo("Plugin tool execution failed");
        assertThat(ForeignValues.toResult(Map.of("success", false), DescriptionLocale.ZH).errorMessage())
                .isEqualTo("插件工具执行失败");
        assertThat(json("{\"success\":false,\"message\":\" m \"}").errorMessage()).isEqualTo("m");
        assertThat(json("{\"success\":false,\"error\":null,\"message\":\"m\"}").errorMessage()).isEmpty();
    }

    @Test
    void map_successIsPythonTruthiness() throws Exception {
        assertThat(json("{\"success\":null}").isError()).isTrue();
        assertThat(json("{\"success\":0}").isError()).isTrue();
        assertThat(json("{\"success\":\"\"}").isError()).isTrue();
        assertThat(json("{\"success\":\"no\"}").isError()).isFalse();
        assertThat(json("{\"success\":[1]}").isError()).isFalse();
    }

    @Test
    void map_contentBeatsMessageEvenWhenEmpty() throws Exception {
        assertThat(json("{\"content\":\"\",\"message\":\"m\"}").content()).isEmpty();
        assertThat(json("{\"content\":null,\"message\":\"m\"}").content()).isEmpty();
        assertThat(json("{\"content\":5}").content()).isEqualTo("5");
        assertThat(json("{\"content\":true}").content()).isEqualTo("True");
        assertThat(json("{\"content\":{\"a\":1}}").content()).isEqualTo("{\"a\": 1}");
    }

    @Test
    void map_isStructuredData() throws Exception {
        Map<String, Object> m = Map.of("k", 1);
        assertThat(ForeignValues.toResult(m).data()).isSameAs(m);
    }

    @Test
    void boolFirstList_successAndFailure() throws Exception {
        ToolResult ok = json("[true, \" done \", 3]");
        assertThat(ok.isError()).isFalse();
        assertThat(ok.content()).isEqualTo("done");
        ToolResult single = json("[false]");
        assertThat(single.isError()).isTrue();
        assertThat(single.errorMessage()).isEmpty();
        assertThat(json("[true, null]").content()).isEqualTo("None");
        assertThat(json("[true, [1, \"a\"]]").content()).isEqualTo("[1, \"a\"]");
    }

    @Test
    void otherValues_asText() throws Exception {
        assertThat(json("\"  x  \"").content()).isEqualTo("x");
        assertThat(json("\"  x  \"").data()).isNotNull();
        assertThat(json("1.0").content()).isEqualTo("1.0");
        assertThat(json("true").content()).isEqualTo("True");
        assertThat(json("[\"a\", 1, null]").content()).isEqualTo("[\"a\", 1, null]");
        assertThat(json("[]").content()).isEqualTo("[]");
        assertThat(ForeignValues.toResult(null)).isSameAs(ToolResult.empty());
        assertThat(ForeignValues.toResult(MAPPER.nullNode())).isSameAs(ToolResult.empty());
    }

    @Test
    void contentItems_parsedLikeTheHost() throws Exception {
        ToolResult r = json("{\"content_items\":["
                + "\"not a dict\", 7, null,"
                + "{\"content_type\":\"image\",\"type\":\"audio\",\"base64\":\"QQ==\",\"mime_type\":\"image/png\"},"
                + "{\"type\":\"video\",\"data\":\"AAAA\"},"
                + "{\"type\":\"  \",\"text\":0,\"name\":5,\"uri\":false,\"description\":[1]},"
                + "{\"type\":\" text \",\"text\":\"t\",\"metadata\":[1]},"
                + "{\"type\":\"resource\",\"metadata\":{\"context_key\":\"k\",\"n\":{\"x\":1}}}"
                + "]}");
        List<ContentItem> items = r.contentItems();
        assertThat(items).extracting(ContentItem::type)
                .containsExactly("image", "unknown", "unknown", "text", "resource");
        assertThat(items.get(0).data()).isEqualTo("QQ==");
        assertThat(items.get(2).text()).isEmpty();
        assertThat(items.get(2).name()).isEqualTo("5");
        assertThat(items.get(2).uri()).isEmpty();
        assertThat(items.get(2).description()).isEqualTo("[1]");
        assertThat(items.get(3).metadata()).isEmpty();
        assertThat(items.get(4).metadata()).containsEntry("context_key", "k").containsKey("n");
    }

    @Test
    void contentItems_notAList_ignored() throws Exception {
        assertThat(json("{\"content_items\":{\"type\":\"image\"}}").contentItems()).isEmpty();
        Map<String, Object> m = new HashMap<>();
        m.put("content_items", Arrays.asList(Map.of("type", "text", "text", "a"), null));
        assertThat(ForeignValues.toResult(m).contentItems()).hasSize(1);
    }
}
