package dev.toolbus.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.executor.settings.ExecutionSettings;
import dev.toolbus.protocol.ToolCall;
import dev.toolbus.protocol.ToolCallsEvent;
import dev.toolbus.tool.ToolDefinition;
import dev.toolbus.tool.ToolResult;
import dev.toolbus.tool.ToolSpec;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/** Issue 9: {@code /healthz} reports what the executor can do, not just that the server is up. */
class HealthzExecutorTest {

    @Test
    void aCallHoldingItsSlotPastItsTimeoutMakesHealthzDown() {
        // a timer that never fires stands for a release path that did not run; the clock moves on
        AtomicLong clock = new AtomicLong();
        ToolSpec hang = new ToolSpec(ToolDefinition.builder("hang").description("never answers").build(),
                (a, c) -> Mono.<ToolResult>never());
        ToolExecutor executor = ToolExecutor.builder().tool(hang).timer(VirtualTimeScheduler.create())
                .nanoClock(clock::get).settings(ExecutionSettings.builder().timeoutMs(2000).build()).build();
        GatewayServer server = Gateway.builder().executor(executor).port(0).build().start();
        Disposable turn = null;
        try {
            Http http = new Http("http://127.0.0.1:" + server.port());
            Http.Response up = http.get("/healthz", null);
            assertThat(up.status()).isEqualTo(200);
            assertThat(up.json().get("status").asText()).isEqualTo("UP");
            assertThat(up.json().get("slots").asInt()).isEqualTo(5);
            turn = executor.execute(ToolCallsEvent.of("s", "t", List.of(ToolCall.ofJson("c", "hang", "{}"))))
                    .subscribe();
            clock.addAndGet(Duration.ofSeconds(1).toNanos());
            Http.Response busy = http.get("/healthz", null);
            assertThat(busy.status()).isEqualTo(200);
            assertThat(busy.json().get("slotsInUse").asInt()).isEqualTo(1);
            clock.addAndGet(Duration.ofSeconds(10).toNanos());
            Http.Response stuck = http.get("/healthz", null);
            assertThat(stuck.status()).isEqualTo(503);
            assertThat(stuck.json().get("status").asText()).isEqualTo("DOWN");
            assertThat(stuck.json().get("executor").asText()).isEqualTo("STUCK");
            assertThat(stuck.json().get("stuck").asInt()).isEqualTo(1);
        } finally {
            if (turn != null) {
                turn.dispose();
            }
            server.closeGracefully().block(Duration.ofSeconds(10));
            executor.closeGracefully().block(Duration.ofSeconds(10));
        }
    }
}
