package dev.toolbus.executor.internal;

import static dev.toolbus.executor.TestTools.call;
import static dev.toolbus.executor.TestTools.turn;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolbus.executor.TestEngines;
import dev.toolbus.executor.TestTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolParameter;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * Issue 24 item 2: cache keys made of the raw argument text where it is already canonical, looked up
 * before the arguments are parsed, and keyed on the tool's definition.
 */
class RawCacheKeyTest {

    private static final ToolDefinition T = ToolDefinition.builder("t").description("t").build();

    /** A cacheable tool answering its arguments as it got them, with the run's number. */
    private static ToolSpec echo(String name, AtomicInteger runs) {
        return new ToolSpec(ToolDefinition.builder(name).description("echo").build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text(runs.incrementAndGet() + " " + a.json())));
    }

    private static ToolResultEvent run(ToolExecutor ex, String stream, String id, String tool, String args) {
        return TestTools.results(ex.execute(turn(stream, id, call(id, tool, args))).collectList()
                .block(Duration.ofSeconds(10))).get(0);
    }

    private static CacheKey parsedKey(String json) throws Exception {
        return CacheKeys.key(T, ArgumentParser.parse(json), CacheScope.STREAM_USER, "s", "u", 1 << 20);
    }

    private static CacheKey rawKey(String json) {
        return CacheKeys.rawKey(T, json, CacheScope.STREAM_USER, "s", "u", 1 << 20);
    }

    @Test
    void canonicalTextIsItsOwnKeyAndEqualsTheParsedKey() throws Exception {
        String[] canonical = {
            "{}", "{\"a\":1}", "{\"a\":-12,\"b\":\"x y\",\"c\":[true,false,null,{}],\"d\":{\"e\":[]}}",
            "{\"A\":1,\"B\":2,\"a\":3,\"aa\":4,\"b\":5}", "{\"q\":\"你好\",\"r\":999999999999999999}",
            "{\"x\":{\"stream_id\":\"nested is not filled\"}}", "{\"e\":\"\ud83d\ude00 ok\",\"\ud83d\ude00\":1}", "{\"a\":0,\"b\":[0,-1,[[]]]}",
        };
        for (String json : canonical) {
            assertThat(CacheKeys.canonicalObject(json)).as(json).isTrue();
            CacheKey raw = rawKey(json);
            assertThat(raw.args()).isSameAs(json);
            assertThat(raw).as(json).isEqualTo(parsedKey(json)).hasSameHashCodeAs(parsedKey(json));
            assertThat(parsedKey(json).exact()).as(json).isTrue();
        }
    }

    @Test
    void textThatIsNotCanonicalIsKeyedTheUsualWay() throws Exception {
        String[] not = {
            "", "[]", "{ }", "{\"a\": 1}", "{\"b\":1,\"a\":2}", "{\"a\":1,\"a\":1}", "{\"a\":\"\\u0041\"}",
            "{\"a\":\"q\\\"\"}", "{\"a\":1.0}", "{\"a\":1e2}", "{\"a\":-0}", "{\"a\":01}", "{\"a\":1234567890123456789}",
            "{\"stream_id\":\"x\"}", "{\"chat_id\":\"x\"}", "{\"a\":1} ", "{\"a\":1}}", "{\"a\":tru}", "{\"a\":[1,]}",
            "{\"a\":1,}", "{\"a\"}", "{\"a\":\"\ud800\"}", "{\"a\":\"\udc00x\"}", "{\"a\":\"x\ud800\"}", "{\"a\":\"\ud800\ud800\"}", "{\"a\":\"x", "{\"a\":" + "[".repeat(40) + "]".repeat(40) + "}",
        };
        for (String json : not) {
            assertThat(CacheKeys.canonicalObject(json)).as(json).isFalse();
            assertThat(rawKey(json)).as(json).isNull();
        }
        // the same value in another spelling gets the key of its canonical text
        assertThat(parsedKey("{ \"b\" : [1, 2], \"a\" : \"\\u0041\" }")).isEqualTo(rawKey("{\"a\":\"A\",\"b\":[1,2]}"));
        assertThat(parsedKey("{\"a\":1.0}")).isEqualTo(rawKey("{\"a\":1}"));
        assertThat(parsedKey("{\"a\":1.0}").exact()).isFalse();
    }

    @Test
    void keysOfOtherDefinitionsScopesStreamsAndUsersDiffer() {
        ToolDefinition same = ToolDefinition.builder("t").description("t").build();
        String json = "{\"a\":1}";
        CacheKey k = rawKey(json);
        assertThat(k).isNotEqualTo(CacheKeys.rawKey(same, json, CacheScope.STREAM_USER, "s", "u", 1 << 20));
        assertThat(k).isNotEqualTo(CacheKeys.rawKey(T, json, CacheScope.STREAM_USER, "s2", "u", 1 << 20));
        assertThat(k).isNotEqualTo(CacheKeys.rawKey(T, json, CacheScope.STREAM_USER, "s", "u2", 1 << 20));
        assertThat(k).isNotEqualTo(CacheKeys.rawKey(T, json, CacheScope.GLOBAL, "s", "u", 1 << 20));
        assertThat(CacheKeys.rawKey(T, json, CacheScope.GLOBAL, "s", "u", 1 << 20))
                .isEqualTo(CacheKeys.rawKey(T, json, CacheScope.GLOBAL, "s2", "u2", 1 << 20));
    }

    @Test
    void aRawKeyOverTheCapIsNotMade() {
        String json = "{\"q\":\"" + "a".repeat(100) + "\"}";
        assertThat(CacheKeys.rawKey(T, json, CacheScope.GLOBAL, "s", "u", 64)).isNull();
        // the cap counts what the parsed key counts: exactly at the cap both are made, one past it neither
        int cap = json.length() + "t".length() + 2;
        assertThat(CacheKeys.rawKey(T, json, CacheScope.GLOBAL, "s", "u", cap)).isNotNull();
        assertThat(CacheKeys.rawKey(T, json, CacheScope.GLOBAL, "s", "u", cap - 1)).isNull();
        ObjectNode parsed = JsonNodeFactory.instance.objectNode().put("q", "a".repeat(100));
        assertThat(CacheKeys.key(T, parsed, CacheScope.GLOBAL, "s", "u", cap)).isNotNull();
        assertThat(CacheKeys.key(T, parsed, CacheScope.GLOBAL, "s", "u", cap - 1)).isNull();
    }

    @Test
    void keysWithAForcedEqualHashDoNotShareAFlight() {
        CacheKey a = new CacheKey(T, null, null, "{\"q\":\"a\"}", true, 7);
        CacheKey b = new CacheKey(T, null, null, "{\"q\":\"b\"}", true, 7);
        assertThat(a).isNotEqualTo(b).hasSameHashCodeAs(b);
        ResultCache cache = new ResultCache(Duration.ofMinutes(1), 100, 1 << 20, 1 << 16, 1 << 16, System::nanoTime);
        CompletableFuture<ResultCache.Flight> fa = new CompletableFuture<>();
        assertThat(cache.join(a, fa)).isNull();
        cache.land(a, fa, new ResultCache.Flight(ToolResult.text("A"), null));
        assertThat(cache.hit(b)).isNull();
        assertThat(cache.find(b)).isNull();
        CompletableFuture<ResultCache.Flight> fb = new CompletableFuture<>();
        assertThat(cache.join(b, fb)).isNull();
        cache.land(b, fb, new ResultCache.Flight(ToolResult.text("B"), null));
        assertThat(cache.hit(a).result().content()).isEqualTo("A");
        assertThat(cache.hit(b).result().content()).isEqualTo("B");
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void argumentTextsWithEqualHashesRunApart() {
        // "Aa" and "BB" have one String hash, so the two keys have one hash too
        assertThat("{\"q\":\"Aa\"}".hashCode()).isEqualTo("{\"q\":\"BB\"}".hashCode());
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(echo("e", runs)).build();
        assertThat(run(ex, "s", "a", "e", "{\"q\":\"Aa\"}").content()).isEqualTo("1 {\"q\":\"Aa\"}");
        ToolResultEvent bb = run(ex, "s", "b", "e", "{\"q\":\"BB\"}");
        assertThat(bb.cached()).isFalse();
        assertThat(bb.content()).isEqualTo("2 {\"q\":\"BB\"}");
        assertThat(run(ex, "s", "c", "e", "{\"q\":\"Aa\"}").content()).isEqualTo("1 {\"q\":\"Aa\"}");
        assertThat(run(ex, "s", "d", "e", "{\"q\":\"BB\"}").content()).isEqualTo("2 {\"q\":\"BB\"}");
        assertThat(runs).hasValue(2);
    }

    @Test
    void canonicalAndOtherSpellingsOfOneValueAreOneEntry() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(echo("e", runs)).build();
        ResultCache cache = TestEngines.engine(ex).cache();
        // canonical first: the others find its entry after parsing
        assertThat(run(ex, "s", "a", "e", "{\"a\":1,\"b\":\"x\"}").cached()).isFalse();
        assertThat(run(ex, "s", "b", "e", "{ \"b\" : \"x\", \"a\" : 1 }").cached()).isTrue();
        assertThat(run(ex, "s", "c", "e", "{\"b\":\"\\u0078\",\"a\":1.0}").cached()).isTrue();
        assertThat(run(ex, "s", "d", "e", "{\"a\":1,\"b\":\"x\"}").cached()).isTrue();
        assertThat(runs).hasValue(1);
        assertThat(cache.size()).isEqualTo(1);
        // another spelling first: the canonical text then finds its entry, before or after parsing
        assertThat(run(ex, "s", "e", "e", "{\"c\":2, \"a\":1}").cached()).isFalse();
        ToolResultEvent canonical = run(ex, "s", "f", "e", "{\"a\":1,\"c\":2}");
        assertThat(canonical.cached()).isTrue();
        assertThat(canonical.content()).isEqualTo("2 {\"c\":2,\"a\":1}");
        assertThat(run(ex, "s", "g", "e", "{\"a\":1.0,\"c\":2}").cached()).isTrue();
        // an entry made of decimals: the canonical text is checked first, then finds it
        assertThat(run(ex, "s", "h", "e", "{\"d\":4.0}").cached()).isFalse();
        ToolResultEvent four = run(ex, "s", "i", "e", "{\"d\":4}");
        assertThat(four.cached()).isTrue();
        assertThat(four.content()).isEqualTo("3 {\"d\":4.0}");
        assertThat(runs).hasValue(3);
        assertThat(cache.size()).isEqualTo(3);
    }

    @Test
    void aReRegisteredToolWithANewSchemaDoesNotGetTheOldEntry() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().build();
        ex.registry().register(echo("e", runs), ToolSource.PLUGIN);
        String args = "{\"n\":\"five\"}";
        assertThat(run(ex, "s", "a", "e", args).isError()).isFalse();
        assertThat(run(ex, "s", "b", "e", args).cached()).isTrue();
        // the same name, now with an integer n: the old entry must not answer a call the new schema refuses
        ToolSpec typed = new ToolSpec(ToolDefinition.builder("e").description("echo")
                .parameter(ToolParameter.of("n", ToolParamType.INTEGER, "n")).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("typed " + runs.incrementAndGet())));
        assertThat(ex.registry().replace(typed, ToolSource.PLUGIN)).isTrue();
        ToolResultEvent refused = run(ex, "s", "c", "e", args);
        assertThat(refused.isError()).isTrue();
        assertThat(refused.error().code()).isEqualTo(ErrorCode.INVALID_ARGUMENTS);
        assertThat(refused.cached()).isFalse();
        // and a valid call runs the new tool, then hits its own entry
        assertThat(run(ex, "s", "d", "e", "{\"n\":5}").content()).isEqualTo("typed 2");
        assertThat(run(ex, "s", "e", "e", "{\"n\":5}").cached()).isTrue();
        assertThat(runs).hasValue(2);
    }

    @Test
    void canonicalCallsOverTheKeyCapRunUncached() {
        AtomicInteger runs = new AtomicInteger();
        ToolExecutor ex = ToolExecutor.builder().tool(echo("e", runs))
                .settings(ExecutionSettings.builder().cacheMaxKeyBytes(1024).build()).build();
        String args = "{\"pad\":\"" + "p".repeat(2000) + "\",\"size\":1}";
        assertThat(CacheKeys.canonicalObject(args)).isTrue();
        assertThat(run(ex, "s", "a", "e", args).cached()).isFalse();
        assertThat(run(ex, "s", "b", "e", args).cached()).isFalse();
        assertThat(runs).hasValue(2);
        assertThat(TestEngines.engine(ex).cache().size()).isZero();
    }

    @Test
    void aHitByRawTextStillChecksTheCallerAndIsLoggedAndCounted() {
        AtomicInteger runs = new AtomicInteger();
        ToolSpec directOnly = new ToolSpec(ToolDefinition.builder("d").description("d")
                .allowedCallers(java.util.Set.of(dev.toolbus.protocol.CallerType.DIRECT)).build(),
                (a, c) -> Mono.fromSupplier(() -> ToolResult.text("run " + runs.incrementAndGet())));
        ToolExecutor ex = ToolExecutor.builder().tool(directOnly).build();
        assertThat(run(ex, "s", "a", "d", "{\"q\":1}").cached()).isFalse();
        assertThat(run(ex, "s", "b", "d", "{\"q\":1}").cached()).isTrue();
        ToolCall fromCode = ToolCall.ofJson("c", "d", "{\"q\":1}").withCaller(dev.toolbus.protocol.Caller.programmatic("x"));
        ToolCallsEvent t = turn("s", "c", fromCode);
        ToolResultEvent refused = TestTools.results(ex.execute(t).collectList().block(Duration.ofSeconds(10))).get(0);
        assertThat(refused.error().code()).isEqualTo(ErrorCode.NOT_ALLOWED);
        assertThat(runs).hasValue(1);
        assertThat(ex.callLog().recent()).extracting(r -> r.cached()).containsExactly(false, true, false);
    }
}
