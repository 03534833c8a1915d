package dev.toolbus.tool.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.result.ForeignValues;
import dev.toolbus.text.DescriptionLocale;
import dev.toolbus.tool.Action;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.Param;
import dev.toolbus.tool.Tool;
import dev.toolbus.tool.ToolArguments;
import dev.toolbus.tool.ToolContext;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolParamType;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.VectorTools;
import dev.toolbus.tool.Visibility;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

class AnnotatedToolsTest {

    private static final ToolContext CTX = ToolContext.builder().streamId("s1").who(CallContext.builder().userId("u1").build()).build();

    enum Mode { FAST, SLOW }

    record Filter(String field, int minValue) {
    }

    public static class SearchPlugin {
        @Tool(name = "search_web", briefDescription = "Search the internet for information",
                detailedDescription = "Use a search engine.", timeoutMs = 5000, sideEffecting = true,
                dangerous = true, cacheScope = CacheScope.GLOBAL, visibility = Visibility.DEFERRED,
                metadata = {"core_tool=true", "owner=team a", "limits={\"rpm\":5}"})
        public String search(@Param(description = "Search keywords") String query,
                             @Param(description = "Maximum number of results to return", required = false,
                                     defaultValue = "5") int limit,
                             ToolContext ctx) {
            return query + ":" + limit + ":" + ctx.who().userId();
        }

        @Tool(name = "typed")
        public ToolResult typed(@Param String s, @Param long l, @Param Double d, @Param boolean b,
                                @Param List<String> tags, @Param int[] nums, @Param Map<String, Object> m,
                                @Param Filter filter, @Param(required = false) Mode mode, @Param BigDecimal price,
                                @Param(name = "raw_json", type = ToolParamType.OBJECT, typeSet = true) JsonNode rawJson,
                                @Param List<List<Integer>> grid) {
            return ToolResult.text("ok");
        }

        @Tool(name = "echo_all", blocking = false)
        public Object echoAll(JsonNode all, ToolArguments args) {
            return all.toString() + "|" + args.string("x");
        }

        @Tool(name = "reactive")
        public Mono<String> reactive(@Param String text) {
            return Mono.just(text.toUpperCase());
        }

        @Tool(name = "reactive_result")
        public Mono<ToolResult> reactiveResult() {
            return Mono.just(ToolResult.error("nope"));
        }

        @Tool(name = "future")
        public CompletionStage<String> future() {
            return CompletableFuture.completedFuture("done");
        }

        @Tool(name = "nothing")
        public void nothing() {
        }

        @Tool(name = "fails")
        public String fails() throws IOException {
            throw new IOException("disk on fire");
        }

        @Tool(name = "static_tool")
        public static String staticTool(@Param(defaultValue = "hi") String greeting) {
            return greeting;
        }

        @Tool(name = "enum_num")
        public String enumNum(@Param(type = ToolParamType.INTEGER, typeSet = true, enumValues = {"1", "2"},
                items = "") String n) {
            return n;
        }

        public String notATool() {
            return "";
        }
    }

    @SuppressWarnings("deprecation")
    public static class LegacyPlugin {
        @Action(name = "greet", description = "向用户打招呼", activationType = "KEYWORD",
                activationKeywords = {"你好", "hello"}, actionRequire = {"需要时使用", " "},
                associatedTypes = {"text", "emoji"}, parallelAction = true, actionPrompt = "打招呼",
                metadata = {"foo=bar"})
        public String greet(@Param(description = "打招呼对象") String target, @Param String style, JsonNode all) {
            return "hi " + target + " " + style;
        }

        @Action(name = "count")
        public int count(@Param int n) {
            return n + 1;
        }
    }

    private static Map<String, ToolSpec> read(Object plugin) {
        Map<String, ToolSpec> out = new java.util.LinkedHashMap<>();
        Tools.fromObject(plugin, "p1").forEach(s -> out.put(s.name(), s));
        return out;
    }

    private static ToolResult call(ToolSpec spec, String json) {
        return spec.handler().call(ToolArguments.parse(json), CTX).defaultIfEmpty(ToolResult.empty()).block(Duration.ofSeconds(5));
    }

    @Test
    void fromObject_readsAnnotatedMethodsSortedByName() {
        assertThat(Tools.fromObject(new SearchPlugin())).extracting(ToolSpec::name).containsExactly(
                "echo_all", "enum_num", "fails", "future", "nothing", "reactive", "reactive_result", "search_web",
                "static_tool", "typed");
    }

    @Test
    void toolAttributes_mapOntoTheDefinition() {
        ToolDefinition def = read(new SearchPlugin()).get("search_web").definition();
        assertThat(def.description(DescriptionLocale.EN)).isEqualTo("Search the internet for information");
        assertThat(def.detailedDescription(DescriptionLocale.EN)).isEqualTo("Parameter details:\n"
                + "- query: string, required. Search keywords\n"
                + "- limit: integer, optional. Maximum number of results to return. Default: 5\n\n"
                + "Use a search engine.");
        assertThat(def.timeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(def.sideEffecting()).isTrue();
        assertThat(def.dangerous()).isTrue();
        assertThat(def.cacheScope()).isEqualTo(CacheScope.GLOBAL);
        assertThat(def.visibility()).isEqualTo(Visibility.DEFERRED);
        assertThat(def.pluginId()).isEqualTo("p1");
        assertThat(def.metadata()).containsEntry("core_tool", true).containsEntry("owner", "team a")
                .containsEntry("limits", Map.of("rpm", 5));
        assertThat(def.inputSchema().toString()).isEqualTo("{\"type\":\"object\",\"properties\":{"
                + "\"query\":{\"type\":\"string\",\"description\":\"Search keywords\"},"
                + "\"limit\":{\"type\":\"integer\",\"description\":\"Maximum number of results to return\",\"default\":5}},"
                + "\"required\":[\"query\"]}");
    }

    @Test
    void typesAreInferredFromJava() {
        JsonNode props = read(new SearchPlugin()).get("typed").definition().inputSchema().get("properties");
        assertThat(props.get("s").get("type").textValue()).isEqualTo("string");
        assertThat(props.get("l").get("type").textValue()).isEqualTo("integer");
        assertThat(props.get("d").get("type").textValue()).isEqualTo("number");
        assertThat(props.get("b").get("type").textValue()).isEqualTo("boolean");
        assertThat(props.get("tags").toString()).isEqualTo("{\"type\":\"array\",\"description\":\"\",\"items\":{\"type\":\"string\"}}");
        assertThat(props.get("nums").get("items").toString()).isEqualTo("{\"type\":\"integer\"}");
        assertThat(props.get("m").toString()).isEqualTo("{\"type\":\"object\",\"description\":\"\",\"properties\":{},\"required\":[]}");
        assertThat(props.get("filter").get("type").textValue()).isEqualTo("object");
        assertThat(props.get("mode").toString()).isEqualTo("{\"type\":\"string\",\"description\":\"\",\"enum\":[\"FAST\",\"SLOW\"]}");
        assertThat(props.get("price").get("type").textValue()).isEqualTo("number");
        assertThat(props.get("raw_json").get("type").textValue()).isEqualTo("object");
        assertThat(props.get("grid").get("items").toString())
                .isEqualTo("{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}");
    }

    @Test
    void enumValues_ofNonStringTypes_areJsonLiterals() {
        JsonNode n = read(new SearchPlugin()).get("enum_num").definition().inputSchema().get("properties").get("n");
        assertThat(n.get("enum").toString()).isEqualTo("[1,2]");
    }

    @Test
    void call_bindsArgumentsAndContext_andAppliesTheDefault() {
        ToolSpec search = read(new SearchPlugin()).get("search_web");
        assertThat(search.handler().isBlocking()).isTrue();
        assertThat(call(search, "{\"query\":\"reactor\"}").content()).isEqualTo(ForeignValues.toResult("reactor:5:u1").content());
        assertThat(call(search, "{\"query\":\"reactor\",\"limit\":\"7\"}").content())
                .isEqualTo(ForeignValues.toResult("reactor:7:u1").content());
    }

    @Test
    void call_bindsPojosEnumsAndCollections() {
        ToolSpec typed = read(new SearchPlugin()).get("typed");
        ToolResult r = call(typed, "{\"s\":\"x\",\"l\":1,\"d\":1.5,\"b\":true,\"tags\":[\"a\"],\"nums\":[1,2],"
                + "\"m\":{\"k\":1},\"filter\":{\"field\":\"f\",\"min_value\":2},\"mode\":\"SLOW\",\"price\":\"9.99\","
                + "\"raw_json\":{\"z\":[1]},\"grid\":[[1,2],[3]]}");
        assertThat(r.content()).isEqualTo("ok");
    }

    @Test
    void call_conversionFailure_namesTheArgument() {
        ToolSpec search = read(new SearchPlugin()).get("search_web");
        StepVerifier.create(search.handler().call(ToolArguments.parse("{\"query\":\"q\",\"limit\":\"many\"}"), CTX))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageStartingWith("argument 'limit' cannot be read as int"))
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void call_missingRequiredArgument_isAnError() {
        ToolSpec search = read(new SearchPlugin()).get("search_web");
        StepVerifier.create(search.handler().call(ToolArguments.parse("{}"), CTX))
                .expectErrorMessage("missing required argument 'query'")
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void call_missingRequiredPrimitive_isAnError() {
        ToolSpec typed = read(new SearchPlugin()).get("typed");
        StepVerifier.create(typed.handler().call(ToolArguments.parse("{\"s\":\"x\"}"), CTX))
                .expectErrorMessage("missing required argument 'l'")
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void call_optionalArgumentMissing_isNull() {
        ToolSpec typed = read(new SearchPlugin()).get("typed");
        ToolResult r = call(typed, "{\"s\":\"x\",\"l\":1,\"d\":1.5,\"b\":true,\"tags\":[],\"nums\":[],"
                + "\"m\":{},\"filter\":{},\"price\":1,\"raw_json\":{},\"grid\":[]}");
        assertThat(r.content()).isEqualTo("ok");
    }

    @Test
    void call_injectsAllArguments_andRunsInlineWhenNotBlocking() {
        ToolSpec echo = read(new SearchPlugin()).get("echo_all");
        assertThat(echo.handler().isBlocking()).isFalse();
        assertThat(echo.definition().inputSchema().toString())
                .isEqualTo("{\"type\":\"object\",\"properties\":{},\"required\":[]}");
        assertThat(call(echo, "{\"x\":\"1\"}").content()).isEqualTo(ForeignValues.toResult("{\"x\":\"1\"}|1").content());
    }

    @Test
    void monoAndFutureReturns_areNonBlocking_andMapped() {
        Map<String, ToolSpec> tools = read(new SearchPlugin());
        assertThat(tools.get("reactive").handler().isBlocking()).isFalse();
        assertThat(call(tools.get("reactive"), "{\"text\":\"hi\"}").content()).isEqualTo(ForeignValues.toResult("HI").content());
        assertThat(call(tools.get("reactive_result"), "{}").isError()).isTrue();
        assertThat(tools.get("future").handler().isBlocking()).isFalse();
        assertThat(call(tools.get("future"), "{}").content()).isEqualTo(ForeignValues.toResult("done").content());
    }

    @Test
    void voidReturn_isEmpty() {
        assertThat(call(read(new SearchPlugin()).get("nothing"), "{}")).isSameAs(ToolResult.empty());
    }

    @Test
    void thrownException_surfacesUnwrapped() {
        StepVerifier.create(read(new SearchPlugin()).get("fails").handler().call(ToolArguments.parse("{}"), CTX))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IOException.class).hasMessage("disk on fire"))
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void staticMethod_withStringDefaultTakenVerbatim() {
        ToolSpec s = read(new SearchPlugin()).get("static_tool");
        assertThat(s.definition().inputSchema().get("properties").get("greeting").get("default").textValue()).isEqualTo("hi");
        assertThat(call(s, "{}").content()).isEqualTo(ForeignValues.toResult("hi").content());
    }

    @Test
    void action_convertsLikeTheSdk() {
        Map<String, ToolSpec> tools = read(new LegacyPlugin());
        ToolDefinition greet = tools.get("greet").definition();
        assertThat(greet.isLegacyAction()).isTrue();
        assertThat(greet.detailedDescription(DescriptionLocale.ZH))
                .isEqualTo(VectorTools.greet().detailedDescription(DescriptionLocale.ZH));
        assertThat(greet.inputSchema(DescriptionLocale.ZH)).isEqualTo(VectorTools.greet().inputSchema(DescriptionLocale.ZH));
        assertThat(greet.metadata()).isEqualTo(VectorTools.greet().metadata());
        assertThat(call(tools.get("greet"), "{\"target\":\"MaiBot\"}").content())
                .isEqualTo(ForeignValues.toResult("hi MaiBot null").content());
        assertThat(call(tools.get("count"), "{\"n\":\"41\"}").content()).isEqualTo(ForeignValues.toResult(42).content());
        assertThat(tools.get("count").definition().description(DescriptionLocale.ZH)).isEqualTo("工具 count");
    }

    // ---- invalid declarations

    public static class Unannotated {
        @Tool(name = "bad")
        public String bad(String query) {
            return query;
        }
    }

    public static class Duplicate {
        @Tool(name = "same")
        public String a() {
            return "";
        }

        @Tool(name = "same")
        public String b() {
            return "";
        }
    }

    public static class ObjectParam {
        @Tool(name = "obj")
        public String obj(@Param Object anything) {
            return "";
        }
    }

    public static class RawList {
        @Tool(name = "raw")
        public String raw(@Param List<?> items) {
            return "";
        }
    }

    public static class BadDefault {
        @Tool(name = "bad_default")
        public String bad(@Param(defaultValue = "five") int n) {
            return "";
        }
    }

    public static class FluxReturn {
        @Tool(name = "flux")
        public Flux<String> flux() {
            return Flux.empty();
        }
    }

    public static class BadTimeout {
        @Tool(name = "t", timeoutMs = 0)
        public String t() {
            return "";
        }
    }

    public static class DuplicateParam {
        @Tool(name = "d")
        public String d(@Param(name = "x") String a, @Param(name = "x") String b) {
            return "";
        }
    }

    @SuppressWarnings("deprecation")
    public static class Both {
        @Tool(name = "both")
        @Action(name = "both")
        public String both() {
            return "";
        }
    }

    public static class BadMetadata {
        @Tool(name = "m", metadata = "novalue")
        public String m() {
            return "";
        }
    }

    public static class ContextAsParam {
        @Tool(name = "c")
        public String c(@Param ToolContext ctx) {
            return "";
        }
    }

    @Test
    void invalidDeclarations_areRefused() {
        assertThatThrownBy(() -> Tools.fromObject(new Unannotated())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Unannotated.bad").hasMessageContaining("'query'").hasMessageContaining("@Param");
        assertThatThrownBy(() -> Tools.fromObject(new Duplicate())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duplicate tool name 'same'");
        assertThatThrownBy(() -> Tools.fromObject(new ObjectParam())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot infer the type of parameter 'anything'");
        assertThatThrownBy(() -> Tools.fromObject(new RawList())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'items'").hasMessageContaining("items schema");
        assertThatThrownBy(() -> Tools.fromObject(new BadDefault())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("default of parameter 'n' is not valid JSON");
        assertThatThrownBy(() -> Tools.fromObject(new FluxReturn())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Flux");
        assertThatThrownBy(() -> Tools.fromObject(new BadTimeout())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeoutMs");
        assertThatThrownBy(() -> Tools.fromObject(new DuplicateParam())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("duplicate parameter 'x'");
        assertThatThrownBy(() -> Tools.fromObject(new Both())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("both @Tool and @Action");
        assertThatThrownBy(() -> Tools.fromObject(new BadMetadata())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key=value");
        assertThatThrownBy(() -> Tools.fromObject(new ContextAsParam())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be a @Param");
    }

    @Test
    void objectWithoutTools_givesNone() {
        assertThat(Tools.fromObject(new Object())).isEmpty();
    }

    @Test
    void anonymousClass_methodsAreReachable() {
        Object plugin = new Object() {
            @Tool(name = "anon")
            public String anon(@Param String x) {
                return x;
            }
        };
        assertThat(call(Tools.fromObject(plugin).get(0), "{\"x\":\"y\"}").content()).isEqualTo(ForeignValues.toResult("y").content());
    }

    static final class PolicyPlugin {
        @Tool(name = "kick", description = "Kick a member", optional = true, groups = {"admin_tools"},
                requiredPermission = "admin", channels = {"qq"}, dangerous = true, blocking = false)
        public String kick(@Param(description = "who") String user) {
            return "kicked " + user;
        }
    }

    @org.junit.jupiter.api.Test
    void policyAttributesReachTheDefinition() {
        ToolDefinition d = Tools.fromObject(new PolicyPlugin()).get(0).definition();
        org.assertj.core.api.Assertions.assertThat(d.optional()).isTrue();
        org.assertj.core.api.Assertions.assertThat(d.groups()).containsExactly("admin_tools");
        org.assertj.core.api.Assertions.assertThat(d.requiredPermission()).isEqualTo("admin");
        org.assertj.core.api.Assertions.assertThat(d.channels()).containsExactly("qq");
        org.assertj.core.api.Assertions.assertThat(d.dangerous()).isTrue();
    }
}
