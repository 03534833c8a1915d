package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.protocol.CallContext;
import dev.toolbus.protocol.ErrorCode;
import dev.toolbus.protocol.OutboundEvent;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.protocol.ToolResultEvent;
import dev.toolbus.registry.ToolRegistry;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSource;
import dev.toolbus.tool.ToolSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/** Issue 9: the policy fails closed on reload; YAML aliases resolve; a symlinked config's target is watched. */
class ConfigFailClosedTest {

    private static final Duration DEBOUNCE = Duration.ofMillis(50);
    private static final String POLICY = "tools:\n  deny: [secret]\ngroups:\n  - name: admin\n    tools: [reboot]\n"
            + "    requiredPermission: master\n";

    private static ToolSpec tool(String name) {
        return new ToolSpec(ToolDefinition.builder(name).description(name).build(),
                (a, c) -> Mono.just(ToolResult.text(name + " ran")));
    }

    private static ToolResultEvent callAsMember(ToolExecutor executor, String name) {
        CallContext member = CallContext.builder().userId("u1").permission("member").putAll(Map.of()).build();
        List<OutboundEvent> events = executor.execute(new ToolCallsEvent("s", "t",
                List.of(ToolCall.ofJson("c1", name, "{}")), member, null)).collectList().block(Duration.ofSeconds(10));
        return (ToolResultEvent) events.get(0);
    }

    private static void assertLocked(ToolExecutor exec) {
        assertThat(callAsMember(exec, "secret").isError()).isTrue();
        assertThat(callAsMember(exec, "reboot").isError()).isTrue();
        assertThat(callAsMember(exec, "free").isError()).isFalse();
    }

    @Test
    void anEmptyFileOrAWrongTypedPolicySectionKeepsTheLastGoodPolicy(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, POLICY);
        ToolRegistry registry = ToolRegistry.create();
        for (String n : List.of("secret", "reboot", "free")) {
            registry.register(tool(n), ToolSource.CORE);
        }
        try (ConfigWatcher watcher = ConfigWatcher.start(file, DEBOUNCE, Map.<String, String>of()::get)) {
            LiveConfig live = LiveConfig.create(watcher.current().config(), registry);
            Disposable following = live.follow(watcher);
            try (ToolExecutor exec = ToolExecutor.builder().registry(registry).policy(live.policy()).build()) {
                assertLocked(exec);
                for (String bad : List.of("", "   \n# nothing\n", "tools: [secret]\n" + POLICY.substring(26),
                        "tools:\n  deny: {secret: true}\n", "tools:\n  deny: [[secret]]\n", "groups: {admin: 1}\n",
                        "security: [x]\ntools:\n  deny: [secret]\n", "- a list\n", "mode: sideways\n" + POLICY)) {
                    watcher.reload();
                    String before = watcher.lastError();
                    Files.writeString(file, bad);
                    watcher.reload();
                    assertThat(watcher.lastError()).as("refused: '%s'", bad).isNotNull().isNotEqualTo(before == null
                            ? "" : "x");
                    assertLocked(exec);
                    assertThat(live.current().tools().deny()).containsExactly("secret");
                    Files.writeString(file, POLICY);
                    watcher.reload();
                    assertThat(watcher.lastError()).isNull();
                }
                assertThat(watcher.lastError()).isNull();
                // an explicit empty mapping is a real reset, and a wrong execution value still just falls back
                Files.writeString(file, "{}\n");
                await().atMost(Duration.ofSeconds(10)).until(() -> live.current().tools().deny().isEmpty());
                assertThat(callAsMember(exec, "secret").isError()).isFalse();
                Files.writeString(file, POLICY + "execution: {timeout: abc}\n");
                await().atMost(Duration.ofSeconds(10)).until(() -> !live.current().tools().deny().isEmpty());
                assertLocked(exec);
            } finally {
                following.dispose();
            }
        }
    }

    @Test
    void theEmptyFileMessageSaysWhatToDo(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, POLICY);
        try (ConfigWatcher watcher = ConfigWatcher.start(file, DEBOUNCE, Map.<String, String>of()::get)) {
            Files.writeString(file, "");
            watcher.reload();
            assertThat(watcher.lastError())
                    .endsWith("the file is empty; write {} to reset every setting to its default");
        }
    }

    @Test
    void aWrongTypedPolicySectionIsRefusedAtStart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "tools:\n  deny: secret-tool-as-a-mapping: 1\n");
        Files.writeString(file, "sources:\n  mcp:\n    disabledTools: {add: true}\n");
        assertThatThrownBy(() -> ConfigWatcher.start(file, DEBOUNCE, Map.<String, String>of()::get))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("sources.mcp.disabledTools: must be a list, got a mapping");
        // outside the policy a wrong value still falls back with a warning
        Files.writeString(file, "execution: {timeout: abc}\n");
        try (ConfigWatcher w = ConfigWatcher.start(file, DEBOUNCE, Map.<String, String>of()::get)) {
            assertThat(w.current().warnings()).singleElement().asString().contains("timeout");
        }
    }

    @Test
    void aliasesResolveToTheirAnchorsValue() {
        ConfigLoader.Loaded l = ConfigLoader.parse("tools:\n  deny: &blocked [secret, reboot]\n  profiles:\n"
                + "    safe:\n      deny: *blocked\nsecurity:\n  dangerousTools: [&one shell]\n"
                + "groups:\n  - &g {name: ops, tools: [*one]}\n", Map.<String, String>of()::get);
        assertThat(l.config().tools().profiles().get("safe").deny()).containsExactly("secret", "reboot");
        assertThat(l.config().groups().get(0).tools()).containsExactly("shell");
        assertThat(l.policyErrors()).isEmpty();
        ConfigLoader.Loaded merged = ConfigLoader.parse("base: &b {deny: [secret]}\ntools:\n  <<: *b\n  allow: [x]\n",
                Map.<String, String>of()::get);
        assertThat(merged.config().tools().deny()).containsExactly("secret");
        assertThat(merged.config().tools().allow()).containsExactly("x");
        assertThatThrownBy(() -> ConfigLoader.parse("tools:\n  deny: *nowhere\n", Map.<String, String>of()::get))
                .isInstanceOf(ConfigException.class).hasMessageContaining("invalid alias nowhere");
    }

    @Test
    void editingTheTargetOfASymlinkedConfigIsSeen(@TempDir Path dir) throws Exception {
        Path real = Files.createDirectories(dir.resolve("real")).resolve("policy.yaml");
        Files.writeString(real, "tools: {deny: [a]}\n");
        Path linkDir = Files.createDirectories(dir.resolve("etc"));
        Path link = Files.createSymbolicLink(linkDir.resolve("toolbus.yaml"), real);
        try (ConfigWatcher watcher = ConfigWatcher.start(link, DEBOUNCE, Map.<String, String>of()::get)) {
            Files.writeString(real, "tools: {deny: [a, b]}\n");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> watcher.current().config().tools().deny().size() == 2);
        }
    }
}
