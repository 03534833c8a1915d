package dev.toolbus.executor.internal;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.toolbus.executor.TestEngines;
import dev.toolbus.executor.TestTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** Issue 9, High 2 and 4: the result cache is bounded by bytes, and keys are cheap and capped. */
class CacheBoundsTest {

    private static final ToolDefinition T = ToolDefinition.builder("t").description("t").build();

    private static CacheKey key(String json) throws Exception {
        return CacheKeys.key(T, ArgumentParser.parse(json), CacheScope.GLOBAL, "s", "u", 16 * 1024);
    }

    /** A cacheable tool answering {@code size} characters of its argument {@code c} and counting runs. */
    private static ToolSpec sized(AtomicInteger runs) {
        return new ToolSpec(ToolDefinition.builder("sized").description("sized").build(), (a, c) -> {
            runs.incrementAndGet();
            int size = (int) a.integer("size", 1);
            return Mono.just(ToolResult.text("x".repeat(size)));
        });
    }

    private static ToolResultEvent run(ToolExecutor ex, String id, String args) {
        return TestTools.results(ex.execute(turn("s", id, call(id, "sized", args))).collectList()
                .block(Duration.ofSeconds(10))).get(0);
    }

    @Test
    void aHugeExponentMakesAShortKeyPromptly() {
        String k = assertTimeoutPreemptively(Duration.ofSeconds(2), () -> key("{\"x\":1e999999999}")).args();
        assertThat(k).hasSizeLessThan(40).endsWith("{\"x\":1e999999999}");
        assertThat(assertTimeoutPreemptively(Duration.ofSeconds(2), () -> key("{\"x\":-1.5e-999999999}")).args())
                .endsWith("{\"x\":-15e-1000000000}");
    }

    @Test
    void oneNumericValueIsOneKey() throws Exception {
        assertThat(key("{\"x\":1.50}")).isEqualTo(key("{\"x\":1.5}")).isEqualTo(key("{\"x\":15e-1}"));
        assertThat(key("{\"x\":100}")).isEqualTo(key("{\"x\":1e2}")).isEqualTo(key("{\"x\":100.0}"));
        assertThat(key("{\"x\":1e999999999}")).isEqualTo(key("{\"x\":10e999999998}"));
        assertThat(key("{\"x\":0.0}")).isEqualTo(key("{\"x\":0}")).isEqualTo(key("{\"x\":-0.0}"));
        assertThat(key("{\"x\":123456789012345678901234567890}"))
                .isEqualTo(key("{\"x\":1.2345678901234567890123456789e29}"));
        assertThat(key("{\"x\":1.5}")).isNotEqualTo(key("{\"x\":15}"));
    }

    @Test
    void aKeyAboveTheCapIsNotBuilt() throws Exception {
        assertThat(CacheKeys.key(T, ArgumentParser.parse("{\"q\":\"" + "a".repeat(100) + "\"}"), CacheScope.GLOBAL,
                "s", "u", 64)).isNull();
        assertThat(CacheKeys.key(T, ArgumentParser.parse("{\"q\":[" + "1,".repeat(100) + "1]}"), CacheScope.GLOBAL,
                "s", "u", 64)).isNull();
    }

    @Test
    void aCacheableCallWithAHugeExponentIsAnsweredAndCached() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(sized(runs)).build();
        ToolResultEvent first = assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> run(ex, "a", "{\"size\":3,\"pad\":1e999999999}"));
        assertThat(first.content()).isEqualTo("xxx");
        ToolResultEvent second = run(ex, "b", "{\"pad\":10e999999998,\"size\":3}");
        assertThat(second.cached()).isTrue();
        assertThat(runs).hasValue(1);
        // an integer argument of that size reads as Long.MAX_VALUE, not as a billion digits
        assertThat(ToolArguments.of((com.fasterxml.jackson.databind.node.ObjectNode) dev.toolbus.protocol.Json
                .mapper().createObjectNode().set("n", dev.toolbus.protocol.Json.mapper().getNodeFactory()
                        .numberNode(new java.math.BigDecimal("1e999999999")))).integer("n", 0))
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void callsWithArgumentsAboveTheKeyCapRunUncached() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(sized(runs))
                .settings(ExecutionSettings.builder().cacheMaxKeyBytes(1024).build()).build();
        String args = "{\"size\":1,\"pad\":\"" + "p".repeat(2000) + "\"}";
        assertThat(run(ex, "a", args).cached()).isFalse();
        assertThat(run(ex, "b", args).cached()).isFalse();
        assertThat(runs).hasValue(2);
        assertThat(TestEngines.engine(ex).cache().size()).isZero();
    }

    @Test
    void resultsAboveTheResultCapAreNotKept() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(sized(runs))
                .settings(ExecutionSettings.builder().cacheMaxResultBytes(64 * 1024).maxResultChars(0).build()).build();
        assertThat(run(ex, "a", "{\"size\":100000}").content()).hasSize(100_000);
        assertThat(run(ex, "b", "{\"size\":100000}").cached()).isFalse();
        assertThat(runs).hasValue(2);
        assertThat(run(ex, "c", "{\"size\":10}").cached()).isFalse();
        assertThat(run(ex, "d", "{\"size\":10}").cached()).isTrue();
    }

    @Test
    void theCacheIsBoundedByBytes() {
        AtomicInteger runs = new AtomicInteger();
        long maxBytes = 2L * 1024 * 1024;
        ToolExecutor ex = ToolExecutor.builder().tool(sized(runs))
                .settings(ExecutionSettings.builder().cacheMaxBytes(maxBytes).build()).build();
        // 100 distinct results of ~200 KB each would be ~20 MB kept under an entry bound of 10000
        for (int i = 0; i < 100; i++) {
            run(ex, "c" + i, "{\"size\":" + (100_000 + i) + "}");
        }
        ResultCache cache = TestEngines.engine(ex).cache();
        assertThat(cache.weight()).isLessThanOrEqualTo(maxBytes).isGreaterThan(maxBytes / 4);
        assertThat(cache.size()).isBetween(1L, 12L);
    }

    @Test
    void theEntryBoundStillHolds() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(sized(runs))
                .settings(ExecutionSettings.builder().cacheMaxEntries(10).build()).build();
        for (int i = 0; i < 50; i++) {
            run(ex, "c" + i, "{\"size\":" + (i + 1) + "}");
        }
        assertThat(TestEngines.engine(ex).cache().size()).isLessThanOrEqualTo(10);
    }

    @Test
    void stringsAreQuotedAsJacksonQuotesThem() {
        StringBuilder all = new StringBuilder();
        for (char c = 0; c < 0x100; c++) {
            all.append(c);
        }
        for (String text : new String[] {"plain text", "你好", all.toString(), "a\"b\\c\n", "/\u2028\u007f"}) {
            StringBuilder sb = new StringBuilder();
            CacheKeys.canonical(com.fasterxml.jackson.databind.node.TextNode.valueOf(text), sb, 1 << 20);
            assertThat(sb.toString()).isEqualTo(
                    "\"" + new String(com.fasterxml.jackson.core.io.JsonStringEncoder.getInstance().quoteAsString(text)) + "\"");
        }
    }
}
