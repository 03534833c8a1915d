package dev.toolbus.assembly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.toolbus.bus.InMemoryBus;
import dev.toolbus.config.Config;
import dev.toolbus.config.ConfigLoader;
import dev.toolbus.config.ConfigWatcher;
import dev.toolbus.executor.approval.ApprovalMode;
import dev.toolbus.tool.BuiltInTools;
import dev.toolbus.policy.ToolSearch;
import dev.toolbus.protocol.ApprovalDecision;
import dev.toolbus.protocol.ApprovalRequestEvent;
import dev.toolbus.protocol.ApprovalResponseEvent;
import dev.toolbus.protocol.Json;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import dev.toolbus.tool.Visibility;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** {@link ToolbusAssembly}: a config plus overrides becomes one running toolbus, closed in order. */
class ToolbusAssemblyTest {

    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static Config config(String yaml) {
        ConfigLoader.Loaded l = ConfigLoader.parse(yaml, n -> null);
        assertThat(l.warnings()).isEmpty();
        return l.config();
    }

    private static ToolCallsEvent turn(String stream, String turn, String... tools) {
        List<ToolCall> calls = new java.util.ArrayList<>();
        for (int i = 0; i < tools.length; i++) {
            calls.add(ToolCall.of("c" + i, tools[i], Json.mapper().createObjectNode().put("text", "hi")
                    .put("target", "disk")));
        }
        return ToolCallsEvent.of(stream, turn, calls);
    }

    @Test
    void theConfigsApprovalAndLimits_reachTheExecutor_andItsInMemoryBusIsServed() {
        Config c = config("""
                approval: {mode: auto, high: [wipe], bypass: [echo]}
                limits:
                  rules: [{name: two-echoes, tools: [echo], maxCallsPerTool: 2}]
                bus: {type: in-memory}
                gateway: {enabled: false}
                """);
        try (Toolbus t = ToolbusAssembly.from(c).sampleTools(true).build().start()) {
            assertThat(t.bus()).isInstanceOf(InMemoryBus.class);
            assertThat(t.gateway()).isNull();
            List<ToolResultEvent> limited = t.executor().execute(turn("s1", "t1", "echo", "echo", "echo"))
                    .ofType(ToolResultEvent.class).collectList().block(WAIT);
            assertThat(limited).extracting(r -> r.isError() ? r.error().code().name() : "ok")
                    .containsExactly("ok", "ok", "LIMIT_EXCEEDED");

            List<OutboundEvent> asked = t.executor().execute(turn("s2", "t1", "wipe")).doOnNext(e -> {
                if (e instanceof ApprovalRequestEvent r) {
                    t.executor().control(new ApprovalResponseEvent(r.streamId(), r.approvalId(), ApprovalDecision.DENY))
                            .subscribeOn(Schedulers.boundedElastic()).subscribe();
                }
            }).collectList().block(WAIT);
            assertThat(asked).hasAtLeastOneElementOfType(ApprovalRequestEvent.class);
            ToolResultEvent denied = asked.stream().filter(ToolResultEvent.class::isInstance)
                    .map(ToolResultEvent.class::cast).findFirst().orElseThrow();
            assertThat(denied.error().code().name()).isEqualTo("NOT_APPROVED");

            InMemoryBus bus = (InMemoryBus) t.bus();
            bus.send("{\"type\":\"tool_call\",\"stream_id\":\"s3\",\"turn_id\":\"t1\",\"tool_call_id\":\"c1\","
                    + "\"name\":\"echo\",\"arguments\":{\"text\":\"over the bus\"}}");
            ToolResultEvent viaBus = bus.events("s3").ofType(ToolResultEvent.class).blockFirst(WAIT);
            assertThat(viaBus.content()).isEqualTo("over the bus");
        }
    }

    @Test
    void theGateway_getsTheScopedTokensOfTheConfig_andClosesWithTheToolbus() throws Exception {
        Config c = config("""
                gateway:
                  port: 0
                  maxConnections: 8
                  tokens:
                    - {name: member, token: m-secret, maxPermission: member, streams: ['web:*']}
                """);
        Toolbus t = ToolbusAssembly.from(c).sampleTools(true).environment(n -> null).build().start();
        String base;
        try {
            assertThat(t.gateway()).isNotNull();
            assertThat(t.gatewayTokens().size()).isEqualTo(1);
            assertThat(t.gatewayTokenSource()).isEqualTo("the config");
            base = t.gateway().baseUrl();
            assertThat(get(base + "/v1/tools?stream_id=web:1", "m-secret")).isEqualTo(200);
            assertThat(get(base + "/v1/tools?stream_id=admin:1", "m-secret")).as("outside its streams").isEqualTo(403);
            assertThat(get(base + "/v1/tools?stream_id=web:1&permission=owner", "m-secret")).isEqualTo(403);
            assertThat(get(base + "/v1/tools?stream_id=web:1", "wrong")).isEqualTo(401);
        } finally {
            t.closeGracefully();
        }
        assertThatThrownBy(() -> get(base + "/healthz", null)).as("the gateway is closed").isInstanceOf(Exception.class);
        assertThat(t.busEnded()).isDone();
    }

    private static int get(String url, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(WAIT);
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    @Test
    void badOverrides_failTheBuild_beforeAnythingStarts() {
        assertThatThrownBy(() -> ToolbusAssembly.withoutConfig().gateway("127.0.0.1", 0).noGateway().build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("contradict");
        assertThatThrownBy(() -> ToolbusAssembly.withoutConfig().gateway("0.0.0.0", 0).environment(n -> null).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a token");
        assertThatThrownBy(() -> ToolbusAssembly.withoutConfig().maxEventBytes(10))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ToolbusAssembly.withoutConfig().gatewayToken(" "))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ToolbusAssembly.withoutConfig().pluginDir(Path.of("no-such-folder-here")).build())
                .isInstanceOf(RuntimeException.class);
    }

    @Test
    void withoutConfig_onlyTheOverridesNameSources_andThereIsNoGatewayOrBusUnlessAsked() {
        try (Toolbus t = ToolbusAssembly.withoutConfig().bus(BusAddress.none()).build().start()) {
            assertThat(t.registry().entries()).extracting(e -> e.tool().name()).containsExactly(BuiltInTools.READ_TOOL_RESULT);
            assertThat(t.gateway()).isNull();
            assertThat(t.bus()).isNull();
            assertThat(t.hasGateway()).isFalse();
        }
    }

    @Test
    void javaToolsOfTheCaller_andDeferredToolsRegisteredAfterTheBuild_areServed() {
        ToolRegistry registry = ToolRegistry.create();
        ToolSpec hello = new ToolSpec(ToolDefinition.builder("hello").description("Says hello.").build(),
                (args, ctx) -> Mono.just(ToolResult.text("hello")));
        Toolbus t = ToolbusAssembly.withoutConfig().registry(registry).tools(List.of(hello)).bus(BusAddress.none())
                .build();
        try {
            assertThat(registry.find(ToolSearch.NAME)).isNull();
            // a Spring application's beans arrive after the toolbus bean was built
            registry.register(new ToolSpec(ToolDefinition.builder("rare").description("Rarely needed.")
                    .visibility(Visibility.DEFERRED).build(), (args, ctx) -> Mono.just(ToolResult.text("rare"))),
                    ToolSource.PLUGIN);
            t.start();
            assertThat(registry.find(ToolSearch.NAME)).as("tool_search once a tool is deferred").isNotNull();
            ToolResultEvent r = t.executor().execute(ToolCallsEvent.of("s", "t", List.of(ToolCall.of("c", "hello",
                    Json.mapper().createObjectNode())))).ofType(ToolResultEvent.class).blockFirst(WAIT);
            assertThat(r.content()).isEqualTo("hello");
        } finally {
            t.closeGracefully();
        }
        ToolResultEvent late = t.executor().execute(ToolCallsEvent.of("s", "late", List.of(ToolCall.of("c", "hello",
                Json.mapper().createObjectNode())))).ofType(ToolResultEvent.class).blockFirst(WAIT);
        assertThat(late.error().code().name()).as("closed: new turns are refused").isEqualTo("REJECTED");
        t.closeGracefully(); // idempotent
    }

    @Test
    void aWatchedConfig_appliesApprovalAndPolicyLive(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("toolbus.yaml"), "approval: {mode: off}\nbus: {type: in-memory}\n"
                + "gateway: {enabled: false}\n");
        try (ConfigWatcher watcher = ConfigWatcher.start(file)) {
            try (Toolbus t = ToolbusAssembly.from(watcher.current().config()).watch(watcher).sampleTools(true).build()
                    .start()) {
                assertThat(t.config().approval().get().mode()).isEqualTo(ApprovalMode.OFF);
                Files.writeString(file, "approval: {mode: ask}\ntools: {deny: [echo]}\nbus: {type: in-memory}\n"
                        + "gateway: {enabled: false}\n");
                await().atMost(WAIT).until(() -> t.config().approval().get().mode() == ApprovalMode.ASK);
                ToolResultEvent denied = t.executor().execute(turn("s", "t", "echo")).ofType(ToolResultEvent.class)
                        .blockFirst(WAIT);
                assertThat(denied.error().code().name()).isEqualTo("NOT_AVAILABLE");
            }
        }
    }

    @Test
    void anApprovalOverride_winsOverTheConfig() {
        Config c = config("approval: {mode: off}\nbus: {type: in-memory}\ngateway: {enabled: false}\n");
        try (Toolbus t = ToolbusAssembly.from(c).sampleTools(true).approval(a -> a.toBuilder().mode(ApprovalMode.ASK).build())
                .build().start()) {
            ToolResultEvent r = t.executor().execute(turn("s", "t", "echo")).ofType(ToolResultEvent.class).blockFirst(WAIT);
            assertThat(r.error().code().name()).isEqualTo("NOT_APPROVED");
            assertThat(Map.of("mode", t.config().current().approval().mode())).containsEntry("mode", ApprovalMode.OFF);
        }
    }
}
