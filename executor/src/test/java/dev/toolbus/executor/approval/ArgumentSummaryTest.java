package dev.toolbus.executor.approval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.protocol.Json;
import org.junit.jupiter.api.Test;

class ArgumentSummaryTest {

    private static JsonNode json(String s) throws Exception {
        return Json.mapper().readTree(s);
    }

    @Test
    void smallArgumentsAreTheirJson() throws Exception {
        assertThat(ArgumentSummary.of(json("{\"path\":\"a.txt\",\"n\":3,\"ok\":true,\"x\":null}")))
                .isEqualTo("{\"path\":\"a.txt\",\"n\":3,\"ok\":true,\"x\":null}");
        assertThat(ArgumentSummary.of(null)).isEqualTo("{}");
        assertThat(ArgumentSummary.of(json("{}"))).isEqualTo("{}");
    }

    @Test
    void secretLookingKeysAreRedactedAtAnyDepth() throws Exception {
        String s = ArgumentSummary.of(json("{\"api_key\":\"sk-1\",\"apiKey\":\"sk-2\",\"Token\":\"t\",\"password\":\"p\","
                + "\"auth\":{\"Authorization\":\"Bearer x\",\"cookie\":\"c\",\"client_secret\":{\"a\":1}},\"user\":\"bob\"}"));
        assertThat(s).isEqualTo("{\"api_key\":\"***\",\"apiKey\":\"***\",\"Token\":\"***\",\"password\":\"***\","
                + "\"auth\":{\"Authorization\":\"***\",\"cookie\":\"***\",\"client_secret\":\"***\"},\"user\":\"bob\"}");
        assertThat(s).doesNotContain("sk-1", "sk-2", "Bearer");
    }

    @Test
    void longStringsAreCutAt160Characters() throws Exception {
        String s = ArgumentSummary.of(json("{\"text\":\"" + "a".repeat(300) + "\"}"));
        String value = Json.mapper().readTree(s).get("text").asText();
        assertThat(value).hasSize(160).endsWith("…").startsWith("a".repeat(159));
    }

    @Test
    void deeperThanTwoLevelsIsObject() throws Exception {
        String s = ArgumentSummary.of(json("{\"a\":{\"b\":{\"c\":{\"d\":1},\"e\":[1],\"f\":2}}}"));
        assertThat(s).isEqualTo("{\"a\":{\"b\":{\"c\":\"[Object]\",\"e\":\"[Object]\",\"f\":2}}}");
    }

    @Test
    void atMostTenItemsAndTwentyKeys() throws Exception {
        ObjectNode o = Json.mapper().createObjectNode();
        ArrayNode a = o.putArray("items");
        for (int i = 0; i < 15; i++) {
            a.add(i);
        }
        JsonNode items = Json.mapper().readTree(ArgumentSummary.of(o)).get("items");
        assertThat(items).hasSize(11);
        assertThat(items.get(9).asInt()).isEqualTo(9);
        assertThat(items.get(10).asText()).isEqualTo("…+5 items");
        ObjectNode wide = Json.mapper().createObjectNode();
        for (int i = 0; i < 25; i++) {
            wide.put("k" + (char) ('a' + i), i);
        }
        JsonNode keys = Json.mapper().readTree(ArgumentSummary.of(wide));
        assertThat(keys).hasSize(21);
        assertThat(keys.get("…").asText()).isEqualTo("+5 keys");
        assertThat(keys.has("ku")).isFalse();
    }

    @Test
    void theWholeSummaryIsAtMost500Characters() throws Exception {
        ObjectNode o = Json.mapper().createObjectNode();
        for (int i = 0; i < 20; i++) {
            o.put("f" + i, "x".repeat(150));
        }
        String s = ArgumentSummary.of(o);
        assertThat(s).hasSize(500).endsWith("…");
    }

    @Test
    void cuttingNeverSplitsASurrogatePair() {
        String emoji = "😀".repeat(10);
        String cut = ArgumentSummary.cut(emoji, 6);
        assertThat(cut).isEqualTo("😀😀…");
        assertThat(cut.codePoints().allMatch(Character::isValidCodePoint)).isTrue();
    }
}
