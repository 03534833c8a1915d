package dev.toolbus.executor.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolbus.executor.TestTools;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.policy.PolicyConfig;
import dev.toolbus.policy.ToolPolicies;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.ListToolsEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.spi.ToolPolicy;
import dev.toolbus.tool.CacheScope;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.Visibility;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** Issue 11.4 through a real executor: a long result is cut, then read back with read_tool_result. */
class ReadToolResultTest {

    private static final Pattern NEXT = Pattern.compile("\"offset\": (\\d+)\\}");

    private final AtomicLong nanos = new AtomicLong();
    private final AtomicInteger runs = new AtomicInteger();

    /** Numbered lines, about 12 characters each; {@code n} lines. */
    static String lines(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append("line ").append(i).append(" 😀\n");
        }
        return sb.toString().strip();
    }

    private ToolSpec longTool(String name, Integer ownLimit) {
        return new ToolSpec(ToolDefinition.builder(name).description("long text").maxResultChars(ownLimit)
                .cacheScope(CacheScope.GLOBAL).build(), (a, c) -> {
                    runs.incrementAndGet();
                    return Mono.just(ToolResult.text(lines((int) a.integer("n", 500))));
                });
    }

    /** An executor on the registry (it registers read_tool_result itself). */
    private ToolExecutor executor(ToolRegistry registry, ExecutionSettings settings,
                                  dev.toolbus.spi.ToolPolicy policy) {
        return ToolExecutor.builder().registry(registry).settings(settings).policy(policy).nanoClock(nanos::get).build();
    }

    private ToolExecutor executor(int maxChars) {
        ToolRegistry r = ToolRegistry.create();
        r.register(longTool("long", null), ToolSource.PLUGIN);
        return executor(r, ExecutionSettings.builder().maxResultChars(maxChars).build(), ToolPolicy.allowAll());
    }

    private static ToolResultEvent run(ToolExecutor ex, String stream, String id, String name, String args) {
        return TestTools.results(ex.execute(new ToolCallsEvent(stream, "t-" + id,
                List.of(ToolCall.ofJson(id, name, args)), CallContext.EMPTY, null)).collectList()
                .block(Duration.ofSeconds(10))).get(0);
    }

    private static String read(String id, int offset) {
        return "{\"tool_call_id\":\"" + id + "\",\"offset\":" + offset + "}";
    }

    @Test
    void aLongResultIsCutAndReadBackPieceByPieceToTheEnd() {
        String full = lines(500);
        try (ToolExecutor ex = executor(1_000)) {
            ToolResultEvent first = run(ex, "s1", "call_1", "long", "{}");
            assertThat(first.isError()).isFalse();
            String content = first.content();
            int markerAt = content.indexOf("[toolbus: this result is " + full.length() + " characters long;");
            assertThat(markerAt).isPositive();
            String shown = content.substring(0, markerAt).replaceAll("\n+$", "\n");
            assertThat(shown.length()).isLessThanOrEqualTo(1_000);
            assertThat(shown).endsWith("\n").as("cut after a line").isEqualTo(full.substring(0, shown.length()));
            StringBuilder got = new StringBuilder(shown);
            Matcher m = NEXT.matcher(content);
            assertThat(m.find()).isTrue();
            int offset = Integer.parseInt(m.group(1));
            assertThat(offset).isEqualTo(shown.length());
            int pieces = 0;
            while (true) {
                ToolResultEvent piece = run(ex, "s1", "r" + pieces, ReadToolResult.NAME, read("call_1", offset));
                assertThat(piece.isError()).as(piece.content()).isFalse();
                JsonNode data = (JsonNode) piece.data();
                assertThat(data.get("offset").asInt()).isEqualTo(offset);
                assertThat(data.get("total").asInt()).isEqualTo(full.length());
                int end = data.get("end").asInt();
                assertThat(end - offset).isLessThanOrEqualTo(1_000);
                got.append(full, offset, end);
                assertThat(piece.content()).startsWith(full.substring(offset, end).strip());
                pieces++;
                if (data.get("next_offset").isNull()) {
                    assertThat(piece.content()).endsWith("of " + full.length() + "; this is the end.]");
                    break;
                }
                assertThat(piece.content()).contains("To go on, call read_tool_result with {\"tool_call_id\": "
                        + "\"call_1\", \"offset\": " + end + "}");
                offset = data.get("next_offset").asInt();
            }
            assertThat(got.toString()).isEqualTo(full);
            assertThat(pieces).as("about 5,900 characters in pieces of at most 1,000").isBetween(5, 6);
            // a given length, never beyond the limit that cut it
            JsonNode small = (JsonNode) run(ex, "s1", "r-small", ReadToolResult.NAME,
                    "{\"tool_call_id\":\"call_1\",\"offset\":0,\"length\":30}").data();
            assertThat(small.get("end").asInt()).isBetween(20, 30);
            JsonNode big = (JsonNode) run(ex, "s1", "r-big", ReadToolResult.NAME,
                    "{\"tool_call_id\":\"call_1\",\"offset\":0,\"length\":100000}").data();
            assertThat(big.get("end").asInt()).isLessThanOrEqualTo(1_000);
        }
    }

    @Test
    void anotherStreamIsRefusedAndBadOffsetsAreErrors() {
        try (ToolExecutor ex = executor(1_000)) {
            run(ex, "qq:group:1", "call_1", "long", "{}");
            ToolResultEvent other = run(ex, "qq:group:2", "x", ReadToolResult.NAME, read("call_1", 1_000));
            assertThat(other.isError()).isTrue();
            assertThat(other.error().code()).isEqualTo(ErrorCode.TOOL_ERROR);
            assertThat(other.content()).isEqualTo("No full result of call 'call_1' is kept for this conversation: it "
                    + "was not cut, it expired, or it belongs to another conversation.");
            assertThat(run(ex, "qq:group:1", "y", ReadToolResult.NAME, read("call_1", 1_000)).isError()).isFalse();
            ToolResultEvent past = run(ex, "qq:group:1", "z", ReadToolResult.NAME, read("call_1", 999_999));
            assertThat(past.isError()).isTrue();
            assertThat(past.content()).startsWith("offset 999999 is out of range: the result has ");
            assertThat(run(ex, "qq:group:1", "w", ReadToolResult.NAME, read("call_1", -1)).isError()).isTrue();
            assertThat(run(ex, "qq:group:1", "v", ReadToolResult.NAME, "{}").error().code())
                    .isEqualTo(ErrorCode.INVALID_ARGUMENTS);
            assertThat(run(ex, "qq:group:1", "u", ReadToolResult.NAME, read("never", 0)).isError()).isTrue();
        }
    }

    @Test
    void aKeptTextExpires() {
        ExecutionSettings s = ExecutionSettings.builder().maxResultChars(1_000).resultStoreTtl(Duration.ofMinutes(1)).build();
        ToolRegistry r = ToolRegistry.create();
        r.register(longTool("long", null), ToolSource.PLUGIN);
        try (ToolExecutor ex = executor(r, s, ToolPolicy.allowAll())) {
            run(ex, "s", "call_1", "long", "{}");
            nanos.addAndGet(Duration.ofSeconds(59).toNanos());
            assertThat(run(ex, "s", "a", ReadToolResult.NAME, read("call_1", 1_000)).isError()).isFalse();
            nanos.addAndGet(Duration.ofSeconds(2).toNanos());
            assertThat(run(ex, "s", "b", ReadToolResult.NAME, read("call_1", 1_000)).content())
                    .contains("it expired");
        }
    }

    @Test
    void aCachedResultIsCutPerCallAndEachCallIdIsReadable() {
        try (ToolExecutor ex = executor(1_000)) {
            ToolResultEvent a = run(ex, "s", "call_a", "long", "{\"n\":300}");
            ToolResultEvent b = run(ex, "s", "call_b", "long", "{\"n\":300}");
            assertThat(b.cached()).isTrue();
            assertThat(runs).hasValue(1);
            assertThat(a.content()).contains("\"tool_call_id\": \"call_a\"");
            assertThat(b.content()).contains("\"tool_call_id\": \"call_b\"");
            assertThat(run(ex, "s", "r", ReadToolResult.NAME, read("call_b", 1_000)).isError()).isFalse();
        }
    }

    @Test
    void offAndPerToolLimits() {
        ToolRegistry r = ToolRegistry.create();
        r.register(longTool("long", null), ToolSource.PLUGIN);
        r.register(longTool("own", 500), ToolSource.PLUGIN);
        r.register(longTool("never", 0), ToolSource.PLUGIN);
        r.register(longTool("configured", 500), ToolSource.PLUGIN);
        ExecutionSettings s = ExecutionSettings.builder().maxResultChars(0)
                .maxResultCharsByTool(java.util.Map.of("configured", 2_000)).build();
        try (ToolExecutor ex = executor(r, s, ToolPolicy.allowAll())) {
            assertThat(run(ex, "s", "1", "long", "{}").content()).isEqualTo(lines(500));
            assertThat(run(ex, "s", "2", "never", "{}").content()).isEqualTo(lines(500));
            assertThat(run(ex, "s", "3", "own", "{}").content()).contains("the first 4").contains("characters long");
            String configured = run(ex, "s", "4", "configured", "{}").content();
            assertThat(configured.indexOf("[toolbus:")).isBetween(1_600, 2_002);
        }
    }

    @Test
    void theConfiguredPolicyLetsEverySessionCallItWithoutListingIt() {
        ToolRegistry r = ToolRegistry.create();
        r.register(longTool("long", null), ToolSource.PLUGIN);
        var policy = ToolPolicies.switchable(ToolPolicies.from(PolicyConfig.builder().allow(List.of("long")).build(), r));
        try (ToolExecutor ex = executor(r, ExecutionSettings.builder().maxResultChars(1_000).build(), policy)) {
            List<String> names = new ArrayList<>();
            ex.listTools(new ListToolsEvent("s", "r", CallContext.EMPTY, null)).tools()
                    .forEach(t -> names.add(t.get("function").get("name").asText()));
            assertThat(names).containsExactly("long");
            run(ex, "s", "call_1", "long", "{}");
            assertThat(run(ex, "s", "r1", ReadToolResult.NAME, read("call_1", 1_000)).isError())
                    .as("deferred, not in the allow list, never searched: still callable").isFalse();
        }
        ToolRegistry r2 = ToolRegistry.create();
        r2.register(longTool("long", null), ToolSource.PLUGIN);
        var denied = ToolPolicies.switchable(ToolPolicies.from(PolicyConfig.builder()
                .deny(List.of(ReadToolResult.NAME)).build(), r2));
        try (ToolExecutor ex = executor(r2, ExecutionSettings.builder().maxResultChars(1_000).build(), denied)) {
            run(ex, "s", "call_1", "long", "{}");
            assertThat(run(ex, "s", "r1", ReadToolResult.NAME, read("call_1", 1_000)).error().code())
                    .isEqualTo(ErrorCode.NOT_AVAILABLE);
        }
    }

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    /** The full texts the executor's turn state keeps (its gauge). */
    private double kept() {
        return meters.get("toolbus.state.records").tag("facet", "cut_results").gauge().value();
    }

    @Test
    void everyExecutorRegistersTheToolAsADeferredCoreTool() {
        ToolRegistry r = ToolRegistry.create();
        r.register(longTool("long", null), ToolSource.PLUGIN);
        try (ToolExecutor ex = ToolExecutor.builder().registry(r).meterRegistry(meters)
                .settings(ExecutionSettings.builder().maxResultChars(1_000).build()).build()) {
            ToolRegistry.Entry e = r.find(ReadToolResult.NAME);
            assertThat(e).as("registered by the executor").isNotNull();
            assertThat(e.source()).isEqualTo(ToolSource.CORE);
            assertThat(e.tool().definition().visibility()).isEqualTo(Visibility.DEFERRED);
            assertThat(ex.listTools(new ListToolsEvent("s", "r", CallContext.EMPTY, null)).tools())
                    .as("deferred: not listed").hasSize(1);
            String content = run(ex, "s", "call_1", "long", "{}").content();
            assertThat(content).contains("To read the rest, call " + ReadToolResult.NAME
                    + " with {\"tool_call_id\": \"call_1\", \"offset\": ");
            assertThat(kept()).isEqualTo(1);
        }
    }

    /**
     * The name is reserved (issue 21): a plugin's tool cannot take it, so the executor registers its
     * own and keeps cut texts for it. (Before, a plugin's tool of that name was left in place and
     * nothing was kept: {@code "The rest was not kept."}.)
     */
    @Test
    void aPluginToolOfTheSameNameIsRefused_andTheExecutorsOwnReadsOn() {
        ToolRegistry r = ToolRegistry.create();
        r.register(longTool("long", null), ToolSource.PLUGIN);
        ToolSpec own = longTool(ReadToolResult.NAME, null);
        assertThat(r.register(own, ToolSource.PLUGIN)).isFalse();
        assertThat(r.diagnostics()).extracting(ToolRegistry.Diagnostic::message).singleElement().asString()
                .contains("is reserved for toolbus's own tool");
        try (ToolExecutor ex = ToolExecutor.builder().registry(r).meterRegistry(meters)
                .settings(ExecutionSettings.builder().maxResultChars(1_000).build()).build()) {
            assertThat(r.find(ReadToolResult.NAME).tool()).isNotSameAs(own);
            assertThat(r.find(ReadToolResult.NAME).source()).isEqualTo(ToolSource.CORE);
            String content = run(ex, "s", "call_1", "long", "{}").content();
            assertThat(content).contains(ReadToolResult.NAME).doesNotContain("The rest was not kept.");
            assertThat(kept()).isEqualTo(1);
        }
    }

    @Test
    void oneRegisteredToolReadsTheStoreOfTheExecutorRunningTheCall() {
        ToolRegistry shared = ToolRegistry.create();
        shared.register(longTool("long", null), ToolSource.PLUGIN);
        try (ToolExecutor a = executor(shared, ExecutionSettings.builder().maxResultChars(1_000).build(),
                ToolPolicy.allowAll());
             ToolExecutor b = executor(shared, ExecutionSettings.builder().maxResultChars(1_000).build(),
                     ToolPolicy.allowAll())) {
            run(b, "s", "call_1", "long", "{}");
            assertThat(run(b, "s", "r", ReadToolResult.NAME, read("call_1", 1_000)).isError()).isFalse();
            assertThat(run(a, "s", "r", ReadToolResult.NAME, read("call_1", 1_000)).isError()).isTrue();
        }
    }

    @Test
    void aCutTextDropsStringDataButKeepsStructuredData() {
        String text = lines(500);
        ToolRegistry r = ToolRegistry.create();
        r.register(new ToolSpec(ToolDefinition.builder("str").build(),
                (a, c) -> Mono.just(ToolResult.builder().content(text).data(text).build())), ToolSource.PLUGIN);
        r.register(new ToolSpec(ToolDefinition.builder("obj").build(), (a, c) -> Mono.just(ToolResult.builder()
                .content(text).data(java.util.Map.of("rows", 500)).build())), ToolSource.PLUGIN);
        r.register(new ToolSpec(ToolDefinition.builder("short").build(),
                (a, c) -> Mono.just(ToolResult.builder().content("hi").data("hi").build())), ToolSource.PLUGIN);
        try (ToolExecutor ex = executor(r, ExecutionSettings.builder().maxResultChars(1_000).build(),
                ToolPolicy.allowAll())) {
            assertThat(run(ex, "s", "1", "str", "{}").data()).isNull();
            assertThat(((JsonNode) run(ex, "s", "2", "obj", "{}").data()).get("rows").asInt()).isEqualTo(500);
            assertThat(((JsonNode) run(ex, "s", "3", "short", "{}").data()).asText()).isEqualTo("hi");
        }
    }
}
