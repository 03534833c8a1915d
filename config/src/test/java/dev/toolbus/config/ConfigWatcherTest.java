package dev.toolbus.config;

import static org.assertj.core.api.Assertions.assertThat;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/** Hot reload: edits to a file under a running watcher reach new calls; in-flight calls finish; bad files are kept out. */
class ConfigWatcherTest {

    private static final Duration DEBOUNCE = Duration.ofMillis(50);

    private static ToolSpec tool(String name, Mono<Void> gate) {
        return new ToolSpec(ToolDefinition.builder(name).description(name).build(),
                (a, c) -> gate.then(Mono.just(ToolResult.text(name + " ran"))));
    }

    private static ToolResultEvent call(ToolExecutor executor, String stream, String name) {
        List<OutboundEvent> events = executor.execute(new ToolCallsEvent(stream, "t",
                List.of(ToolCall.ofJson("c1", name, "{}")), CallContext.EMPTY, null)).collectList().block();
        return (ToolResultEvent) events.get(0);
    }

    @Test
    void editUnderRunningWatcher_newCallsUseNewPolicy_inFlightCallFinishes(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "tools:\n  deny: [other]\n");
        ToolRegistry registry = ToolRegistry.create();
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Void> release = new CompletableFuture<>();
        registry.register(tool("slow", Mono.fromRunnable(started::countDown).then(Mono.fromFuture(release))),
                ToolSource.CORE);
        try (ConfigWatcher watcher = ConfigWatcher.start(file, DEBOUNCE, Map.<String, String>of()::get)) {
            LiveConfig live = LiveConfig.create(watcher.current().config(), registry);
            Disposable following = live.follow(watcher);
            try (ToolExecutor exec = ToolExecutor.builder().registry(registry).policy(live.policy()).build()) {
                CompletableFuture<ToolResultEvent> inFlight = CompletableFuture.supplyAsync(() -> call(exec, "qq:s1", "slow"));
                started.await();
                Files.writeString(file, "tools:\n  deny: [slow]\n");
                await().atMost(Duration.ofSeconds(10)).until(() -> live.current().tools().deny().contains("slow"));
                assertThat(watcher.current().config().tools().deny()).containsExactly("slow");
                assertThat(call(exec, "qq:s2", "slow").error().code()).isEqualTo(ErrorCode.NOT_AVAILABLE);
                release.complete(null);
                ToolResultEvent finished = inFlight.get();
                assertThat(finished.isError()).as("decided under the old config, finishes").isFalse();
                assertThat(finished.content()).isEqualTo("slow ran");
            } finally {
                following.dispose();
            }
        }
    }

    @Test
    void invalidFile_keepsLastGoodConfig_untilFixed(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "mode: hybrid\ntools: {deny: [a]}\n");
        ToolRegistry registry = ToolRegistry.create();
        try (ConfigWatcher watcher = ConfigWatcher.start(file, DEBOUNCE, Map.<String, String>of()::get)) {
            LiveConfig live = LiveConfig.create(watcher.current().config(), registry);
            Disposable following = live.follow(watcher);
            Files.writeString(file, "tools: {deny: [a, b\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> watcher.lastError() != null);
            assertThat(watcher.lastError()).contains("invalid YAML");
            assertThat(live.current().tools().deny()).containsExactly("a");
            Files.writeString(file, "tools: {deny: [a, b]}\nexecution: {timeout: 5000}\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> live.current().tools().deny().size() == 2);
            assertThat(watcher.lastError()).isNull();
            following.dispose();
        }
    }

    @Test
    void badValues_areApplied_withWarnings_andRestartSectionsReported(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "execution: {timeout: 30000}\n");
        try (ConfigWatcher watcher = ConfigWatcher.start(file, DEBOUNCE, Map.<String, String>of()::get)) {
            List<ConfigLoader.Loaded> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            Disposable d = watcher.updates().subscribe(seen::add);
            Files.writeString(file, "execution: {timeout: abc}\ngateway: {port: 9999}\ntools: {deny: [x]}\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 2);
            ConfigLoader.Loaded l = seen.get(1);
            assertThat(l.warnings()).singleElement().asString().contains("timeout");
            LiveConfig live = LiveConfig.create(seen.get(0).config(), ToolRegistry.create());
            LiveConfig.Reload r = live.apply(l.config());
            assertThat(r.restartNeeded()).containsExactly("gateway");
            assertThat(live.policy().config().tools().deny()).containsExactly("x");
            d.dispose();
        }
    }

    @Test
    void close_stopsTheThread_andCompletesUpdates(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("toolbus.yaml");
        Files.writeString(file, "");
        ConfigWatcher watcher = ConfigWatcher.start(file, DEBOUNCE, Map.<String, String>of()::get);
        CompletableFuture<Void> done = new CompletableFuture<>();
        watcher.updates().subscribe(x -> { }, done::completeExceptionally, () -> done.complete(null));
        watcher.close();
        await().atMost(Duration.ofSeconds(10)).until(done::isDone);
        assertThat(Thread.getAllStackTraces().keySet()).noneMatch(t -> t.getName().equals("toolbus-config-watcher")
                && t.isAlive());
    }
}
