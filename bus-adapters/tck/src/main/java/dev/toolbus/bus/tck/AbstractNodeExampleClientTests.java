package dev.toolbus.bus.tck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolbus.spi.ToolBus;
import dev.toolbus.executor.ToolExecutor;
import dev.toolbus.tool.method.Tools;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The broker's example client of docs/examples/node against a real broker and an executor on the
 * bus: it publishes a turn and prints the turn's events as they arrive.
 */
public abstract class AbstractNodeExampleClientTests extends AbstractBusTests {

    /** The script of docs/examples/node (for example {@code redis-turn.js}). */
    protected abstract String script();

    /** The script's environment: where the broker is and which stream or topic names this test uses. */
    protected abstract Map<String, String> environment();

    @Test
    void exampleClient_publishesATurnAndPrintsItsEvents() throws Exception {
        NodeExamples.require();
        ToolBus bus = broker.bus(BusOptions.named("node").build());
        ToolExecutor executor = closeLater(ToolExecutor.builder()
                .tool(Tools.function("echo", "Returns its arguments", json -> json)).build());
        closeLater(() -> bus.closeGracefully().block(Duration.ofSeconds(30)));
        executor.attach(bus);
        NodeExamples.Result r = NodeExamples.run(List.of("node", script(), "node:chat:1", "hi there"), environment(), 90);
        assertThat(r.exitCode()).as(r.stderr()).isZero();
        List<String> lines = r.stdout().lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).contains("\"type\":\"tool_result\"", "\"stream_id\":\"node:chat:1\"",
                "-1\"", "hi there", "\"is_error\":false");
        assertThat(lines.get(1)).contains("\"type\":\"tool_result\"", "-2\"", "HI THERE");
        assertThat(lines.get(2)).contains("\"type\":\"turn_completed\"", "\"error_count\":0");
    }
}
