package dev.toolbus.executor.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.toolbus.protocol.Json;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ArgumentParserTest {

    @ParameterizedTest
    @ValueSource(strings = {"{\"text\":\"hello\"}", "{}", "[1,2.50,\"x\",null,true,false]",
            "{\"a\":{\"b\":[{\"c\":12345678901234}]},\"n\":1e3,\"big\":123456789012345678901234567890}",
            "{\"u\":\"\\u4f60\\u597d \\\"q\\\"\"}", "42", "\"s\""})
    void buildsTheSameTreeAsReadTree(String json) throws Exception {
        assertThat(ArgumentParser.parse(json)).isEqualTo(Json.mapper().readTree(json));
    }

    @ParameterizedTest
    @ValueSource(strings = {"{not json", "", "   ", "{\"a\":1} trailing", "{\"a\":1}{}", "[1,", "{\"a\":NaN}"})
    void rejectsWhatIsNotExactlyOneJsonValue(String json) {
        assertThatThrownBy(() -> ArgumentParser.parse(json)).isInstanceOf(JsonProcessingException.class);
    }

    @org.junit.jupiter.api.Test
    void aReusedParserReadsDocumentAfterDocumentAndNothingLeaksFromABrokenOne() throws Exception {
        String[] broken = {"{\"a\":1", "{\"a\":1}{", "{\"a\":[1,2", "{\"a\":1} x", "{\"a\":1,\"a\":2}",
            "{\"a\":\"\ud800\"}", "{\"a\":nul}", "{}{}", "{\"a\":{}}}", "{\"a\":1} trailing}",
            "{\"x\":1e99999999999999}"};
        for (int i = 0; i < 3 * ReusedParsers.DOCUMENTS_PER_PARSER; i++) {
            String json = "{\"k" + i + "\":" + i + ",\"s\":\"v" + i + " \ud83d\ude00\",\"n\":{\"d\":" + i + ".50}}";
            String plain = "{\"k" + i + "\":[" + i + ",true,null],\"t\":\"\u4f60\u597d\"}";
            assertThat(ArgumentParser.parse(json, 2)).isEqualTo(Json.mapper().readTree(json));
            assertThat(ArgumentParser.parse(plain, 1)).isEqualTo(Json.mapper().readTree(plain));
            String bad = broken[i % broken.length];
            assertThatThrownBy(() -> ArgumentParser.parse(bad, 1)).as(bad).isInstanceOf(JsonProcessingException.class);
        }
    }

    @org.junit.jupiter.api.Test
    void asciiTextOfAnyLengthGoesThroughTheReusedBufferAndALongerDocumentLeavesNothingForAShorterOne()
            throws Exception {
        int[] lengths = {1, 300, 5, 4000, 0, 120, 127, 128, 2000, 3};
        for (int round = 0; round < 2 * ReusedParsers.DOCUMENTS_PER_PARSER / lengths.length + 1; round++) {
            for (int n : lengths) {
                String json = "{\"t\":\"" + "x".repeat(n) + "\",\"r\":" + round + "}";
                com.fasterxml.jackson.databind.node.ObjectNode reused = ReusedParsers.parseObject(json, 2);
                assertThat(reused).as("ASCII of %d characters takes the reused parser", json.length()).isNotNull();
                assertThat(reused).isEqualTo(Json.mapper().readTree(json));
                String spaced = json + " \n";
                assertThat(ReusedParsers.parseObject(spaced, 2)).isEqualTo(Json.mapper().readTree(spaced));
                String wide = "{\"t\":\"\u00e9" + "y".repeat(n) + "\"}";
                assertThat(ReusedParsers.parseObject(wide, 1)).isEqualTo(Json.mapper().readTree(wide));
            }
        }
        String longest = "{\"t\":\"" + "z".repeat(ReusedParsers.MAX_CHARS - 8) + "\"}";
        assertThat(longest).hasSize(ReusedParsers.MAX_CHARS);
        assertThat(ReusedParsers.parseObject(longest, 1)).isEqualTo(Json.mapper().readTree(longest));
        assertThat(ReusedParsers.parseObject(longest + "}", 1)).isNull();
        assertThatThrownBy(() -> ArgumentParser.parse("{\"t\":\"\ud800\"}", 1))
                .isInstanceOf(JsonProcessingException.class).hasMessageContaining("surrogate");
        assertThat(ArgumentParser.parse("{\"t\":\"a\"}", 1)).isEqualTo(Json.mapper().readTree("{\"t\":\"a\"}"));
        // ASCII text that spells a lone surrogate as an escape is still refused, in a string and in a key
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(() -> ArgumentParser.parse("{\"t\":\"x\\ud800\"}", 1))
                    .isInstanceOf(JsonProcessingException.class).hasMessageContaining("surrogate");
            assertThatThrownBy(() -> ArgumentParser.parse("{\"\\udc00\":1}", 1))
                    .isInstanceOf(JsonProcessingException.class).hasMessageContaining("surrogate");
            assertThatThrownBy(() -> ArgumentParser.parse("{\"a\":[{\"b\":\"\\ud83d\"}]}", 1))
                    .isInstanceOf(JsonProcessingException.class).hasMessageContaining("surrogate");
            String pair = "{\"t\":\"\\ud83d\\ude00 \\\"q\\\"\"}";
            assertThat(ReusedParsers.parseObject(pair, 1)).isEqualTo(Json.mapper().readTree(pair));
            assertThat(ArgumentParser.parse("{\"a\":[\"b\",{\"c\":\"d\"}]}", 1))
                    .isEqualTo(Json.mapper().readTree("{\"a\":[\"b\",{\"c\":\"d\"}]}"));
        }
    }

    @org.junit.jupiter.api.Test
    void cacheKeysIgnoreKeyOrderAndNumberSpellingButNotValues() throws Exception {
        CacheKey a = key("{\"b\":[1,{\"y\":\"q\\\"\",\"x\":2.0}],\"a\":true}");
        CacheKey b = key("{\"a\":true,\"b\":[1,{\"x\":2,\"y\":\"q\\\"\"}]}");
        assertThat(a).isEqualTo(b);
        assertThat(key("{\"a\":\"1\"}")).isNotEqualTo(key("{\"a\":1}"));
        assertThat(key("{\"a\":null}")).isNotEqualTo(key("{\"a\":\"null\"}"));
    }

    private static final dev.toolbus.tool.ToolDefinition T = dev.toolbus.tool.ToolDefinition.builder("t").description("t")
            .build();

    private static CacheKey key(String json) throws Exception {
        return CacheKeys.key(T, ArgumentParser.parse(json), dev.toolbus.tool.CacheScope.GLOBAL, "s", "u", 1 << 20);
    }
}
